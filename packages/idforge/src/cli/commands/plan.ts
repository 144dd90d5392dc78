/** `idforge plan`: offset/increment statements for N writers sharing one number space. */
import {
  MAX_WRITERS,
  PLAN_DIALECTS,
  type PlanDialect,
  planWriters,
  type WriterPlan,
  type WriterPlanSet,
} from '../../sequences/index.js';
import { integer, noArgs, type Options, type OptionValues, ticketTagArg } from '../args.js';
import type { Command } from '../host.js';
import { type CliIo, UsageError } from '../io.js';

export const planHelp = `Usage: idforge plan --writers N [--writer I] [--dialect mysql|postgres] [options]

Plans N writers (MySQL/MariaDB servers, PostgreSQL servers, ticket servers) so that they never
issue the same number: writer i gets offset i and increment N, and issues i, i + N, i + 2N, ...
With --writer I it prints writer I's statements alone, as SQL to pipe into that writer's
client (comments start with --); without, an overview of every writer in which each
statement is commented out, so piping it into a server runs nothing. Runs nothing itself.

  idforge plan --writers 3 --writer 2 | mysql -h db2      # configures db2 as writer 2 of 3

Options:
  --writers N         number of writers, 1 to ${MAX_WRITERS}
  --writer I          print only writer I's statements (1 to N), ready to pipe
  --dialect D         mysql (SET GLOBAL auto_increment_increment/offset; default) or
                      postgres (CREATE SEQUENCE ... INCREMENT BY N START WITH i)
  --increment M       M >= N: leave offsets N+1..M free for writers added later without
                      re-planning (the increment can never change without re-planning)
  --tag TAG           PostgreSQL: the sequence created (default ids); MySQL: also
                      create the ticket table tickets_TAG ([a-z][a-z0-9_]*)
  --json              the plan as one JSON object (numbers as strings)

Adding a writer later beyond the increment means re-planning every writer: the caveat printed
with every plan says how.
`;

const planOptions = {
  writers: { type: 'string' },
  writer: { type: 'string' },
  dialect: { type: 'string' },
  increment: { type: 'string' },
  tag: { type: 'string' },
  json: { type: 'boolean' },
} as const satisfies Options;

export type PlanValues = OptionValues<typeof planOptions>;

/** `idforge plan --writers N`. */
export const planCli: Command<typeof planOptions> = {
  summary: ['plan --writers N', 'auto-increment offset/increment statements for N writers'],
  help: planHelp,
  options: planOptions,
  run: planCommand,
};

/** Wraps `text` into SQL comment lines of at most `width` characters. */
function commentBlock(text: string, width = 92): string[] {
  const lines: string[] = [];
  let line = '--';
  for (const word of text.split(' ')) {
    if (line.length + 1 + word.length > width && line !== '--') {
      lines.push(line);
      line = '--';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

/** One writer's lines: statements as SQL, or commented out in the overview of every writer. */
function writerLines(w: WriterPlan, runnable: boolean): string[] {
  const out = [`-- writer ${w.writer}: ${w.sample.join(', ')}, ...`];
  for (const st of w.statements) out.push(runnable ? st : `--   ${st}`);
  if (w.config.length > 0)
    out.push(`-- my.cnf [mysqld], so a restart keeps it: ${w.config.join(', ')}`);
  return out;
}

function render(plan: WriterPlanSet, only: number | undefined): string {
  const out = [
    `-- ${plan.writers} writer(s), increment ${plan.increment} (${plan.dialect}): writer i issues ` +
      `i, i + ${plan.increment}, i + ${2 * plan.increment}, ...`,
  ];
  if (only === undefined) {
    out.push(
      '-- An overview, which runs nothing: each writer runs only its own statements. Add',
      "-- --writer I to this command to print writer I's, ready to pipe into its client.",
    );
  }
  for (const w of plan.perWriter) {
    if (only === undefined || w.writer === only)
      out.push('', ...writerLines(w, only !== undefined));
  }
  if (plan.spareOffsets.length > 0) {
    const spare = plan.spareOffsets;
    const list = spare.length <= 8 ? spare.join(', ') : `${spare[0]}..${spare.at(-1)}`;
    out.push('', `-- spare offsets for writers added later: ${list}`);
  }
  out.push('', ...commentBlock(`Caveat: ${plan.caveat}`));
  return `${out.join('\n')}\n`;
}

export function planCommand(positionals: string[], values: PlanValues, io: CliIo): number {
  noArgs(positionals);
  if (values.writers === undefined) throw new UsageError('expected --writers N');
  const writers = integer('--writers', values.writers, 1, MAX_WRITERS);
  // One writer needs no choosing: its plan is runnable as it is.
  const only =
    values.writer === undefined
      ? writers === 1
        ? 1
        : undefined
      : integer('--writer', values.writer, 1, writers);
  const dialect = values.dialect ?? 'mysql';
  if (!(PLAN_DIALECTS as readonly string[]).includes(dialect)) {
    throw new UsageError(`--dialect: expected ${PLAN_DIALECTS.join(' or ')}, got "${dialect}"`);
  }
  const increment =
    values.increment === undefined
      ? undefined
      : integer('--increment', values.increment, writers, MAX_WRITERS);
  const tag = values.tag === undefined ? undefined : ticketTagArg(values.tag);
  const plan = planWriters(writers, dialect as PlanDialect, {
    ...(increment === undefined ? {} : { increment }),
    ...(tag === undefined ? {} : { tag }),
  });
  if (values.json === true) {
    const shown =
      values.writer === undefined
        ? plan
        : { ...plan, perWriter: plan.perWriter.filter((w) => w.writer === only) };
    io.stdout.write(
      `${JSON.stringify(shown, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}\n`,
    );
  } else {
    io.stdout.write(render(plan, only));
  }
  return 0;
}
