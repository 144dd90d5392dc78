/**
 * `idforge advise`: the seeds' decision questions as flags, answered with a recommended scheme,
 * the reasons, the caveats, the docs to read and the command to start with. The decision is a
 * pure function of the answers ({@link advise}); the command parses flags and prints it.
 */
import { integer, noArgs } from '../args.js';
import { type CliIo, UsageError } from '../io.js';

/** Most writers `--writers` accepts. */
const MAX_WRITERS = 1_000_000;
/** Nodes of the `default` layout (10-bit node field) and of `sonyflake` (16-bit machine). */
const DEFAULT_NODES = 1024;
const SONYFLAKE_NODES = 65_536;

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

Examples:
  idforge advise --writers 12 --key-size matters --node-ids managed
  idforge advise --writers 1 --public yes --json
`;

export interface Answers {
  writers: number;
  keySize: 'matters' | 'ok';
  nodeIds: 'managed' | 'unmanaged';
  public: 'yes' | 'no';
  partitioned: 'range' | 'hash' | 'no';
  gapFree: 'yes' | 'no';
}

export interface Advice {
  scheme: 'uuidv7' | 'uuidv4' | 'snowflake' | 'sequence';
  layout: string | null;
  summary: string;
  key: string;
  publicId: 'uuidv4' | null;
  reasons: string[];
  caveats: string[];
  alternatives: string[];
  start: string[];
  docs: string[];
}

const DEFAULTS: Answers = {
  writers: 2,
  keySize: 'ok',
  nodeIds: 'unmanaged',
  public: 'no',
  partitioned: 'no',
  gapFree: 'no',
};

const n = (x: number): string => x.toLocaleString('en-US');

const MEASURE = 'measure on your own database with `idforge bench db` (planned, issue 11)';

/** The scheme for the key alone: the branches of the decision table. */
function keyAdvice(a: Answers): Advice {
  const base = { publicId: null, alternatives: [] as string[], caveats: [] as string[] };
  if (a.partitioned === 'range') {
    return {
      ...base,
      scheme: 'uuidv4',
      layout: null,
      summary: 'UUIDv4 as the key',
      key: '16 bytes (uuid, BINARY(16))',
      reasons: [
        'the store is range-partitioned by key: time-ordered keys (UUIDv7, ULID, Snowflake, sequences) send every insert to the last partition, one hot spot',
        'random keys spread inserts over every range',
      ],
      caveats: [
        'in a B-tree, random keys split pages and leave them partly full: a bigger index and more I/O than a time-ordered key',
        ...(a.keySize === 'matters'
          ? [
              'an 8-byte key matters to you: keep a time-ordered 8-byte key and partition by its hash instead, or put a shard number in front of it',
            ]
          : []),
      ],
      start: ['idforge gen uuidv4', "import { uuidv4 } from 'idforge';"],
      docs: ['docs/layouts.md'],
    };
  }
  if (a.keySize === 'ok') {
    return {
      ...base,
      scheme: 'uuidv7',
      layout: null,
      summary: 'UUIDv7 as the key',
      key: '16 bytes (uuid, BINARY(16))',
      reasons: [
        'no coordination: any number of writers, no node IDs to hand out',
        'time-ordered: inserts append at the right edge of the B-tree instead of splitting random pages',
      ],
      caveats: [
        'order across writers follows their clocks: never use ID order as event order',
        'store it in the native 16-byte form (uuid, BINARY(16)), not as 36 characters of text',
      ],
      alternatives: ['ULID: the same 128 bits as 26 characters of text (idforge gen ulid)'],
      start: ['idforge gen uuidv7', "import { uuidv7 } from 'idforge';"],
      docs: ['docs/layouts.md'],
    };
  }
  if (a.writers === 1) {
    return {
      ...base,
      scheme: 'sequence',
      layout: null,
      summary: 'a segment sequence (or the database identity column)',
      key: '8 bytes (BIGINT)',
      reasons: [
        'one writer: a counter needs no node IDs and no clock, and gives the smallest, densest keys',
        "the database's own identity / AUTO_INCREMENT column does the same when the ID can wait for the insert",
      ],
      caveats: [
        'a restart wastes the rest of a segment (a gap), never repeats a number',
        'adding writers later: a segment sequence on postgres:// or mysql:// serves many processes',
      ],
      start: [
        'idforge seq create orders --step 1000 --store sqlite:idforge.db',
        'idforge seq next orders --store sqlite:idforge.db',
      ],
      docs: ['docs/sequences.md'],
    };
  }
  if (a.nodeIds === 'managed' && a.writers <= SONYFLAKE_NODES) {
    const wide = a.writers > DEFAULT_NODES;
    const layout = wide ? 'sonyflake' : 'default';
    return {
      ...base,
      scheme: 'snowflake',
      layout,
      summary: `Snowflake, layout ${layout}, worker IDs leased through idforge/coord`,
      key: '8 bytes (BIGINT)',
      reasons: [
        'an 8-byte, k-sorted key made locally on each writer: no round trip per ID',
        wide
          ? `${n(a.writers)} writers pass the default layout's ${n(DEFAULT_NODES)} nodes: sonyflake has ${n(SONYFLAKE_NODES)} (25,600 IDs/s each)`
          : `${n(a.writers)} writers fit the default layout's ${n(DEFAULT_NODES)} nodes (4,096 IDs/ms each)`,
        'leases give each live node a worker ID no other holds, and a clock mark that survives restarts',
      ],
      caveats: [
        'uniqueness rests on the leases and the clock: a node refuses to issue on clock rollback or an expired lease',
        'order across nodes follows their clocks: never use ID order as event order',
      ],
      start: [
        'idforge migrate --store postgres://db/ids',
        `idforge gen snowflake${wide ? ' --layout sonyflake' : ''} --store postgres://db/ids`,
        `await createSnowflakeNode({ store${wide ? ", layout: 'sonyflake'" : ''} }); // idforge/coord`,
      ],
      docs: ['docs/layouts.md', 'docs/coordination.md'],
    };
  }
  return {
    ...base,
    scheme: 'sequence',
    layout: null,
    summary: 'a segment sequence on a shared database',
    key: '8 bytes (BIGINT)',
    reasons: [
      a.nodeIds === 'unmanaged'
        ? 'node IDs cannot be managed, so Snowflake is out: two nodes with one ID issue duplicates'
        : `${n(a.writers)} writers pass the ${n(SONYFLAKE_NODES)} nodes of any Snowflake layout`,
      'each writer takes a block of numbers from one table and hands them out locally: 8-byte keys, no clock',
    ],
    caveats: [
      'the shared database is needed for each new block (buffered blocks ride out a short outage)',
      'a restart wastes the rest of a block: gaps, never repeats',
    ],
    alternatives: [
      'a Flickr ticket-server pair (odd/even on two databases), for no single database: idforge ticket setup orders --servers mysql://a/ids,mysql://b/ids',
    ],
    start: [
      'idforge seq create orders --step 1000 --store postgres://db/ids',
      'idforge seq next orders --store postgres://db/ids',
    ],
    docs: ['docs/sequences.md', 'docs/sequences-tickets.md'],
  };
}

/** The recommendation for `answers`: the key's scheme, then the public-ID and gap-free notes. */
export function advise(a: Answers): Advice {
  const advice = keyAdvice(a);
  if (a.partitioned === 'hash') {
    advice.reasons.push(
      'hash partitioning spreads time-ordered keys over partitions; a range scan by time visits every one',
    );
  }
  if (a.public === 'yes') {
    advice.publicId = 'uuidv4';
    advice.summary += ', with a UUIDv4 as the public ID';
    advice.reasons.push(
      'IDs are shown to users: a random UUIDv4 beside the key reveals no creation time or volume and cannot be enumerated',
    );
    advice.caveats.push('the public UUIDv4 needs its own unique index; never show the key itself');
    advice.start.push('idforge gen uuidv4');
  }
  if (a.gapFree === 'yes') {
    advice.caveats.unshift(
      'no distributed ID scheme is gap-free, and neither is a database sequence (rollbacks and restarts skip numbers): if gap-free numbers are truly required (invoice numbers), keep a separate counter row updated in the same database transaction as the insert, and accept that it serialises those inserts',
    );
  }
  return advice;
}

export interface AdviseValues {
  writers?: string;
  'key-size'?: string;
  'node-ids'?: string;
  public?: string;
  partitioned?: string;
  'gap-free'?: string;
  json?: boolean;
}

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
  let writers = DEFAULTS.writers;
  if (v.writers === undefined) assumed.push(`--writers ${writers}`);
  else writers = integer('--writers', v.writers, 1, MAX_WRITERS);
  const answers: Answers = {
    writers,
    keySize: pick('key-size', ['matters', 'ok'], DEFAULTS.keySize),
    nodeIds: pick('node-ids', ['managed', 'unmanaged'], DEFAULTS.nodeIds),
    public: pick('public', ['yes', 'no'], DEFAULTS.public),
    partitioned: pick('partitioned', ['range', 'hash', 'no'], DEFAULTS.partitioned),
    gapFree: pick('gap-free', ['yes', 'no'], DEFAULTS.gapFree),
  };
  return { answers, assumed };
}

/** A list item wrapped at `width` columns, continuation lines indented under its text. */
function wrap(item: string, width = 96): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of item.split(/(?<=\S) /)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = `    ${word}`;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

function render(advice: Advice, assumed: readonly string[]): string {
  const list = (items: readonly string[]) => items.flatMap((i) => wrap(`  - ${i}`));
  const out = [...wrap(`recommended: ${advice.summary}`), `key: ${advice.key}`];
  if (assumed.length > 0) out.push(`assumed (not given): ${assumed.join(', ')}`);
  out.push('', 'why:', ...list(advice.reasons), '', 'caveats:', ...list(advice.caveats));
  if (advice.alternatives.length > 0) out.push('', 'or:', ...list(advice.alternatives));
  out.push('', 'start with:', ...advice.start.map((s) => `  ${s}`));
  out.push('', `read: ${advice.docs.join(', ')}`, `then ${MEASURE}`);
  return `${out.join('\n')}\n`;
}

export function adviseCommand(positionals: string[], values: AdviseValues, io: CliIo): number {
  noArgs(positionals);
  const { answers, assumed } = answersOf(values);
  const advice = advise(answers);
  if (values.json === true) {
    const { scheme, layout, summary, key, publicId, reasons, caveats, alternatives } = advice;
    const out = { scheme, layout, summary, key, publicId, reasons, caveats, alternatives };
    const more = { start: advice.start, docs: advice.docs, answers, assumed, measure: MEASURE };
    io.stdout.write(`${JSON.stringify({ ...out, ...more })}\n`);
  } else {
    io.stdout.write(render(advice, assumed));
  }
  return 0;
}
