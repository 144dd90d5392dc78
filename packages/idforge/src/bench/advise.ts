/**
 * The decision table behind `idforge advise`: the seeds' questions about writers, key size,
 * node IDs, public exposure, partitioning and gaps, answered with a scheme and layout, the
 * reasons, the caveats, the command to start with and the `idforge bench db` run that measures
 * the choice. A pure function: the CLI asks the questions and prints the answer.
 */
import { DEFAULT_STORE_URL } from '../core/internal.js';

/** Nodes of the `default` layout (10-bit node field) and of `sonyflake` (16-bit machine). */
const DEFAULT_NODES = 1024;
const SONYFLAKE_NODES = 65_536;

/** The answers to the decision questions. */
export interface Answers {
  writers: number;
  keySize: 'matters' | 'ok';
  nodeIds: 'managed' | 'unmanaged';
  public: 'yes' | 'no';
  partitioned: 'range' | 'hash' | 'no';
  gapFree: 'yes' | 'no';
}

/** A recommendation: mutable lists, so that a caller may add its own notes. */
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

/** The answer assumed for a question left out. */
export const ADVICE_DEFAULTS: Readonly<Answers> = {
  writers: 2,
  keySize: 'ok',
  nodeIds: 'unmanaged',
  public: 'no',
  partitioned: 'no',
  gapFree: 'no',
};

const n = (x: number): string => x.toLocaleString('en-US');

/** The fields every branch starts from: fresh lists, so that `advise` may add to them. */
function blank(): Pick<Advice, 'publicId' | 'alternatives' | 'caveats'> {
  return { publicId: null, alternatives: [], caveats: [] };
}

/** The scheme for the key alone: the branches of the decision table, first match wins. */
function keyAdvice(a: Answers): Advice {
  if (a.partitioned === 'range') return randomKeyAdvice(a);
  if (a.keySize === 'ok') return uuidv7Advice();
  if (a.writers === 1) return singleWriterAdvice();
  if (a.nodeIds === 'managed' && a.writers <= SONYFLAKE_NODES) return snowflakeAdvice(a);
  return sharedSequenceAdvice(a);
}

/** A range-partitioned store: random keys, so that inserts spread over every range. */
function randomKeyAdvice(a: Answers): Advice {
  return {
    ...blank(),
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

/** A 16-byte key is fine: UUIDv7, with no coordination at all. */
function uuidv7Advice(): Advice {
  return {
    ...blank(),
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

/** One writer and an 8-byte key: a counter. */
function singleWriterAdvice(): Advice {
  return {
    ...blank(),
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
      `idforge seq create orders --step 1000 --store ${DEFAULT_STORE_URL}`,
      `idforge seq next orders --store ${DEFAULT_STORE_URL}`,
    ],
    docs: ['docs/sequences.md'],
  };
}

/** Managed node IDs that fit a layout: Snowflake, `sonyflake` past the default's nodes. */
function snowflakeAdvice(a: Answers): Advice {
  const wide = a.writers > DEFAULT_NODES;
  const layout = wide ? 'sonyflake' : 'default';
  return {
    ...blank(),
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

/** Many writers without usable node IDs (or too many for any layout): a shared sequence. */
function sharedSequenceAdvice(a: Answers): Advice {
  return {
    ...blank(),
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
      'the idforge service (idforge serve, docs/service.md): two or more nodes on the shared store hand out Snowflake IDs and segments over HTTP, to writers in any language, which then need no node IDs of their own',
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
      'no distributed ID scheme is gap-free, and neither is a database sequence (rollbacks and restarts skip numbers): if gap-free numbers are truly required (invoice numbers), keep a separate counter row updated in the same database transaction as the insert (GapFreeSequence of idforge/sequences does it on PostgreSQL, MariaDB/MySQL and SQLite: docs/business-numbers.md), and accept that it serialises those inserts',
    );
  }
  return advice;
}

/** The bench that measures a recommendation against the baseline and the random key. */
export function adviceBench(advice: Advice): string {
  const schemes = ['bigint', ...new Set([advice.scheme, 'uuidv7', 'uuidv4'])];
  return `idforge bench db --store URL --rows 1000000 --schemes ${schemes.join(',')}`;
}
