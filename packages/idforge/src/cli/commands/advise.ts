/**
 * `idforge advise`: the seeds' decision questions as flags, answered with a recommended scheme,
 * the reasons, the caveats, the docs to read and the command to start with. The decision is a
 * pure function of the answers ({@link advise}); the command parses flags and prints it.
 */
import {
  ADVICE_DEFAULTS,
  type Advice,
  type Answers,
  adviceBench,
  advise,
} from '../../bench/index.js';
import { integer, noArgs, type Options, type OptionValues } from '../args.js';
import type { Command } from '../host.js';
import { type CliIo, UsageError, wrap } from '../io.js';
import { ask, isTerminal, LineReader } from '../prompt.js';

/** Most writers `--writers` accepts. */
const MAX_WRITERS = 1_000_000;

export const adviseHelp = `Usage: idforge advise [--writers N] [--key-size matters|ok] [--node-ids managed|unmanaged]
                      [--public yes|no] [--partitioned range|hash|no] [--gap-free yes|no] [--json]

Asks the decision questions of choosing an ID scheme, as flags, and recommends one: the scheme
and layout, why, the caveats, the docs to read and the command to start with. A question left
out takes its default, and the answer says which defaults it assumed.

Options:
  --writers N          processes or nodes that create IDs, 1 to ${MAX_WRITERS} (default 2: more than one)
  --key-size K         matters: an 8-byte key counts (wide tables, many secondary indexes);
                       ok: a 16-byte key is fine (default)
  --node-ids M         managed: node/worker IDs can be assigned or leased (idforge/coord);
                       unmanaged: they cannot (default)
  --public P           yes: IDs are shown to users (time-ordered IDs leak creation time and
                       volume, and sequential ones invite enumeration); no (default)
  --partitioned P      range: the store is range-partitioned by key (time-ordered keys make one
                       hot partition); hash; no (default)
  --gap-free G         yes: numbers must have no gaps (no distributed scheme gives that); no (default)
  --json               the recommendation as one JSON object
  -i, --interactive    ask each question not given as a flag (the default on a terminal
                       when no question is given)

Examples:
  idforge advise --writers 12 --key-size matters --node-ids managed
  idforge advise --writers 1 --public yes --json
`;

const adviseOptions = {
  writers: { type: 'string' },
  'key-size': { type: 'string' },
  'node-ids': { type: 'string' },
  public: { type: 'string' },
  partitioned: { type: 'string' },
  'gap-free': { type: 'string' },
  json: { type: 'boolean' },
  interactive: { type: 'boolean', short: 'i' },
} as const satisfies Options;

export type AdviseValues = OptionValues<typeof adviseOptions>;

/** `idforge advise`. */
export const adviseCli: Command<typeof adviseOptions> = {
  summary: ['advise', 'recommend an ID scheme from a few questions (--writers N, --json)'],
  help: adviseHelp,
  options: adviseOptions,
  run: adviseCommand,
};

function choice<T extends string>(flag: string, text: string, accepted: readonly T[]): T {
  if ((accepted as readonly string[]).includes(text)) return text as T;
  throw new UsageError(`--${flag}: expected ${accepted.join(' or ')}, got "${text}"`);
}

/** The answers from the flags, and the flags that took their defaults. */
export function answersOf(v: AdviseValues): { answers: Answers; assumed: string[] } {
  const assumed: string[] = [];
  const pick = <T extends string>(flag: keyof AdviseValues, accepted: readonly T[], d: T): T => {
    const text = v[flag];
    if (typeof text === 'string') return choice(flag, text, accepted);
    assumed.push(`--${flag} ${d}`);
    return d;
  };
  let writers = ADVICE_DEFAULTS.writers;
  if (v.writers === undefined) assumed.push(`--writers ${writers}`);
  else writers = integer('--writers', v.writers, 1, MAX_WRITERS);
  const answers: Answers = {
    writers,
    keySize: pick('key-size', ['matters', 'ok'], ADVICE_DEFAULTS.keySize),
    nodeIds: pick('node-ids', ['managed', 'unmanaged'], ADVICE_DEFAULTS.nodeIds),
    public: pick('public', ['yes', 'no'], ADVICE_DEFAULTS.public),
    partitioned: pick('partitioned', ['range', 'hash', 'no'], ADVICE_DEFAULTS.partitioned),
    gapFree: pick('gap-free', ['yes', 'no'], ADVICE_DEFAULTS.gapFree),
  };
  return { answers, assumed };
}

function render(advice: Advice, assumed: readonly string[]): string {
  const list = (items: readonly string[]) => items.flatMap((i) => wrap(`  - ${i}`));
  const out = [...wrap(`recommended: ${advice.summary}`), `key: ${advice.key}`];
  if (assumed.length > 0) out.push(`assumed (not given): ${assumed.join(', ')}`);
  out.push('', 'why:', ...list(advice.reasons), '', 'caveats:', ...list(advice.caveats));
  if (advice.alternatives.length > 0) out.push('', 'or:', ...list(advice.alternatives));
  out.push('', 'start with:', ...advice.start.map((s) => `  ${s}`));
  out.push(
    '',
    `read: ${advice.docs.join(', ')}`,
    'then measure on your own database (our figures: docs/benchmarks.md, "What a key costs"):',
    `  ${adviceBench(advice)}`,
  );
  return `${out.join('\n')}\n`;
}

/** The questions asked on a terminal, in the order of the flags. */
const QUESTIONS: readonly [keyof AdviseValues, string, string][] = [
  ['writers', 'How many processes or nodes create IDs?', String(ADVICE_DEFAULTS.writers)],
  ['key-size', 'Does an 8-byte key matter (wide tables, many indexes)? matters/ok', 'ok'],
  ['node-ids', 'Can node/worker IDs be assigned or leased? managed/unmanaged', 'unmanaged'],
  ['public', 'Are the IDs shown to users (URLs, APIs)? yes/no', 'no'],
  ['partitioned', 'Is the store range-partitioned by key? range/hash/no', 'no'],
  ['gap-free', 'Must the numbers be gap-free? yes/no', 'no'],
];

/** Asks each question not given as a flag; an answer that does not parse is asked again. */
async function askAnswers(values: AdviseValues, io: CliIo): Promise<AdviseValues> {
  const reader = new LineReader(io.stdin);
  const out: Record<string, unknown> = { ...values };
  for (const [flag, question, fallback] of QUESTIONS) {
    if (out[flag] !== undefined) continue;
    out[flag] = await ask(io, reader, question, fallback, (text) => {
      try {
        answersOf({ [flag]: text });
        return text;
      } catch (error) {
        return { refused: (error as Error).message.replace(/^--[\w-]+: /, '') };
      }
    });
  }
  io.stderr.write('\n');
  return out as AdviseValues;
}

/**
 * Prints the recommendation for the flags; with --interactive, or on a terminal when no
 * question was given as a flag (and not --json), asks the questions first.
 */
export async function adviseCommand(
  positionals: string[],
  values: AdviseValues,
  io: CliIo,
): Promise<number> {
  noArgs(positionals);
  const given = QUESTIONS.some(([flag]) => values[flag] !== undefined);
  const prompt =
    values.interactive === true || (!given && values.json !== true && isTerminal(io.stdin));
  if (prompt) values = await askAnswers(values, io);
  const { answers, assumed } = answersOf(values);
  const advice = advise(answers);
  if (values.json === true) {
    const { scheme, layout, summary, key, publicId, reasons, caveats, alternatives } = advice;
    const out = { scheme, layout, summary, key, publicId, reasons, caveats, alternatives };
    const more = {
      start: advice.start,
      docs: advice.docs,
      answers,
      assumed,
      measure: adviceBench(advice),
    };
    io.stdout.write(`${JSON.stringify({ ...out, ...more })}\n`);
  } else {
    io.stdout.write(render(advice, assumed));
  }
  return 0;
}
