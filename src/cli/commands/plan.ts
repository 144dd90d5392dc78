/** `idforge plan`: offset/increment statements for N writers sharing one number space. */
import {
  MAX_WRITERS,
  type PlanDialect,
  planWriters,
  type WriterPlanSet,
} from '../../sequences/plan.js';
import { type CliIo, UsageError } from '../io.js';
import { integer } from './gen.js';

export const planHelp = `Usage: idforge plan --writers N [--dialect mysql|postgres] [options]

Prints what each of N writers (MySQL/MariaDB servers, PostgreSQL sequences, ticket servers)
runs so that they never issue the same number: writer i gets offset i and increment N, and
issues i, i + N, i + 2N, ... Prints SQL (comments start with --), so the output can be piped
to a client. Runs nothing itself.

Options:
  --writers N         number of writers, 1 to ${MAX_WRITERS}
  --dialect D         mysql (SET GLOBAL auto_increment_increment/offset; default) or
                      postgres (CREATE SEQUENCE ... INCREMENT BY N START WITH i)
  --increment M       M >= N: leave offsets N+1..M free for writers added later without
                      re-planning (the increment can never change without re-planning)
  --name NAME         PostgreSQL sequence name (default ids); MySQL: also create the
                      ticket table tickets_NAME
  --json              the plan as one JSON object (numbers as strings)

Adding a writer later beyond the increment means re-planning every writer: the caveat printed
with every plan says how.
`;

export interface PlanValues {
  writers?: string;
  dialect?: string;
  increment?: string;
  name?: string;
  json?: boolean;
}

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

function render(plan: WriterPlanSet): string {
  const out = [
    `-- ${plan.writers} writer(s), increment ${plan.increment} (${plan.dialect}): writer i issues ` +
      `i, i + ${plan.increment}, i + ${2 * plan.increment}, ...`,
  ];
  for (const w of plan.perWriter) {
    out.push('', `-- writer ${w.writer}: ${w.sample.join(', ')}, ...`, ...w.statements);
    if (w.config.length > 0)
      out.push(`-- my.cnf [mysqld], so a restart keeps it: ${w.config.join(', ')}`);
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
  if (positionals.length > 0) throw new UsageError(`plan: unexpected argument "${positionals[0]}"`);
  if (values.writers === undefined) throw new UsageError('plan: expected --writers N');
  const writers = integer('--writers', values.writers, 1, MAX_WRITERS);
  const dialect = values.dialect ?? 'mysql';
  if (dialect !== 'mysql' && dialect !== 'postgres') {
    throw new UsageError(`--dialect: expected mysql or postgres, got "${dialect}"`);
  }
  const increment =
    values.increment === undefined
      ? undefined
      : integer('--increment', values.increment, writers, MAX_WRITERS);
  if (values.name !== undefined && !/^[a-z][a-z0-9_]{0,47}$/.test(values.name)) {
    throw new UsageError(
      `--name: expected [a-z][a-z0-9_]* (at most 48 characters), got "${values.name}"`,
    );
  }
  const plan = planWriters(writers, dialect as PlanDialect, {
    ...(increment === undefined ? {} : { increment }),
    ...(values.name === undefined ? {} : { name: values.name }),
  });
  if (values.json === true) {
    io.stdout.write(
      `${JSON.stringify(plan, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}\n`,
    );
  } else {
    io.stdout.write(render(plan));
  }
  return 0;
}
