/** `idforge seq create|next|show|step`: segment sequences ("号段") in a store. */

import {
  openCounterStore,
  openSegmentStore,
  openSequenceSource,
  sequenceKind,
  sequenceKindForms,
  storeScheme,
} from '@idforge/stores';
import {
  bigintArg,
  type CliIo,
  type Command,
  DEFAULT_STORE,
  formatTable,
  integer,
  LineWriter,
  type Options,
  type OptionValues,
  STORE_HELP,
  storeUrl,
  tagArg,
  UsageError,
} from 'idforge/cli';
import {
  describeFormat,
  FormattedSequence,
  formatOfDescription,
  MAX_SEQUENCE_VALUE,
  type NumberFormat,
  type SegmentTag,
} from 'idforge/sequences';
import { formatArg, formatNote, shownDescription } from '../seq-format.js';

export const seqHelp = `Usage: idforge seq <create|next|show|step> [tag] [options]

Segment sequences: per business tag, a table row whose max_id moves up by a step; each
process owns the numbers of the segments it takes, so numbers are unique across every
process and host sharing the store, and increasing within a process.

  seq create <tag> [--step N] [--start N] [--description TEXT]
                    create a tag (step default 1000, first number default 1); an existing
                    tag (or Redis counter) is refused (IDF_TAG_EXISTS) and left unchanged
      [--format PATTERN [--reset never|daily|monthly|yearly] [--time-zone TZ] [--prefix T]]
                    a formatted tag (a table store): business numbers such as
                    INV-{yyyy}-{mm}-{n:6} ({n36:6}: base 36), restarting at 1 each period
                    of the time zone (default UTC), each period its own tag TAG:PERIOD
                    created on first use; the format is stored with the tag
  seq next <tag> [-n COUNT]
                    print COUNT numbers (default 1), one per line: one segment of
                    max(COUNT, step) is taken; the numbers left in it are never reissued;
                    a formatted tag prints them formatted, in the period of this clock
  seq show [--json] list the tags: max_id, step, updated_at, description (--json: one
                    JSON array, [] when there is none; max_id as a string)
  seq step <tag> <N>
                    set the tag's stored step (the smallest segment) to N, 1 to 2^31 - 1;
                    max_id is unchanged and every segment taken from then on is at least
                    N; running processes keep the segments they hold (a table store only;
                    a missing tag is IDF_UNKNOWN_TAG)

Options:
${STORE_HELP}                    (seq: a table in sqlite, postgres or mysql; a Redis counter,
                    INCRBY blocks, in redis)
  --marks URL       with redis://: the durable store of the counter's high-water mark, which
                    refuses or re-seeds a counter that moved backwards (default: $IDFORGE_STORE,
                    else ${DEFAULT_STORE})
Run \`idforge migrate --store URL\` once before using a server store.
`;

const seqOptions = {
  store: { type: 'string' },
  step: { type: 'string' },
  start: { type: 'string' },
  description: { type: 'string' },
  count: { type: 'string', short: 'n' },
  json: { type: 'boolean' },
  marks: { type: 'string' },
  format: { type: 'string' },
  reset: { type: 'string' },
  'time-zone': { type: 'string' },
  prefix: { type: 'string' },
} as const satisfies Options;

export type SeqValues = OptionValues<typeof seqOptions>;

/** `idforge seq <create|next|show|step> [tag]`. */
export const seqCli: Command<typeof seqOptions> = {
  summary: [
    'seq <sub> [tag]',
    'segment sequences (create, next, show, step): numbers by blocks from a table',
  ],
  help: seqHelp,
  options: seqOptions,
  run: seqCommand,
};

/** What `seq <sub>` is asked, checked before any store is opened. */
interface SeqArgs {
  readonly sub: 'create' | 'next' | 'show' | 'step';
  /** The tag (every subcommand but show). */
  readonly tag: string | undefined;
  /** seq step: the new stored step. */
  readonly newStep: number | undefined;
  readonly step: number;
  readonly start: bigint;
  readonly count: number;
  /** seq create --format: the validated format (before any store is opened). */
  readonly format: NumberFormat | undefined;
}

function tagOf(rest: string[], sub: string): string {
  const [tag, extra] = rest;
  if (tag === undefined) throw new UsageError(`seq ${sub}: expected a tag`);
  if (extra !== undefined) throw new UsageError(`seq ${sub}: unexpected argument "${extra}"`);
  return tagArg(tag, `seq ${sub}`); // the one rule of idforge/sequences, as every store checks it
}

/** `seq step <tag> <N>`: the tag and the new stored step. */
function stepArgs(rest: string[]): [string, number] {
  const [tag, n, ...extra] = rest;
  if (tag === undefined) throw new UsageError('seq step: expected a tag and a step');
  if (n === undefined) throw new UsageError('seq step: expected a step after the tag');
  if (extra.length > 0) throw new UsageError(`seq step: unexpected argument "${extra[0]}"`);
  return [tagArg(tag, 'seq step'), integer('seq step: N', n, 1, 2 ** 31 - 1)];
}

function showTable(tags: SegmentTag[]): string {
  const head = ['tag', 'max_id', 'step', 'updated_at', 'description'];
  const rows = tags.map((t) => [
    t.tag,
    t.maxId.toString(),
    String(t.step),
    new Date(t.updatedAtMs).toISOString(),
    shownDescription(t),
  ]);
  return formatTable(head, rows);
}

export async function seqCommand(
  positionals: string[],
  values: SeqValues,
  io: CliIo,
): Promise<number> {
  const args = seqArgs(positionals, values);
  const { sub, tag, start, count } = args;
  const url = storeUrl(values, io);
  // Asked of the backend registry: which stores keep bare counters (and so take --marks).
  const kind = sequenceKind(storeScheme(url));
  if (values.marks !== undefined && kind !== 'counters') {
    throw new UsageError(
      `--marks applies to a counter store (${sequenceKindForms('counters')}) only`,
    );
  }
  if (kind === 'counters') {
    if (args.format !== undefined) {
      throw new UsageError(
        `--format needs a table store (${sequenceKindForms('segments')}): the format is kept with the tag`,
      );
    }
    if (sub === 'step') {
      throw new UsageError(
        "seq step sets a segment table's step; a counter store keeps none (its block size is the client's)",
      );
    }
    return counterSeq(
      sub,
      tag,
      {
        start,
        count,
        json: values.json === true,
        // The marks store from the environment passed in, not the library default.
        marks: values.marks ?? (io.env?.IDFORGE_STORE || DEFAULT_STORE),
      },
      url,
      io,
    );
  }
  return tableSeq(args, values, url, io);
}

/** The subcommand, its arguments and the flags it takes; a mistake is a UsageError. */
function seqArgs(positionals: string[], values: SeqValues): SeqArgs {
  const [sub, ...rest] = positionals;
  if (sub !== 'create' && sub !== 'next' && sub !== 'show' && sub !== 'step') {
    throw new UsageError(
      sub === undefined
        ? 'expected create, next, show or step'
        : `expected create, next, show or step, got "${sub}"`,
    );
  }
  if (sub !== 'create' && (values.step ?? values.start ?? values.description) !== undefined) {
    throw new UsageError('--step, --start and --description apply to seq create only');
  }
  if (sub !== 'next' && values.count !== undefined) throw new UsageError('-n applies to seq next');
  if (sub !== 'show' && values.json) throw new UsageError('--json applies to seq show');
  const [tag, newStep] =
    sub === 'show' ? [] : sub === 'step' ? stepArgs(rest) : [tagOf(rest, sub), undefined];
  if (sub === 'show' && rest.length > 0) throw new UsageError(`seq show: unexpected "${rest[0]}"`);
  const step = integer('--step', values.step ?? '1000', 1, 2 ** 31 - 1);
  const start = bigintArg('--start', values.start ?? '1', 1n, MAX_SEQUENCE_VALUE, '2^63 - 1');
  const count = integer('--count', values.count ?? '1', 1, 10_000_000);
  return { sub, tag, newStep, step, start, count, format: formatArg(sub, tag, values) };
}

/** How `seq next`, `show` and `step` open a segment table: never a new, empty store. */
const READ_ONLY = { create: false, autoMigrate: false } as const;

/**
 * `seq next`: `count` numbers of one block taken from the sequence source, as the service
 * takes a client's segment (a table's step may make the block larger: the rest is wasted,
 * never reissued; a counter's block is guarded by its durable mark).
 */
async function seqNext(
  url: string,
  tag: string,
  count: number,
  options: { create?: boolean; autoMigrate?: boolean; marks?: string },
  io: CliIo,
): Promise<number> {
  const source = await openSequenceSource(url, options);
  try {
    const record = await source.segments?.getTag(tag);
    const format = record ? formatOfDescription(record.description) : null;
    const out = new LineWriter(io.stdout);
    if (format !== null) {
      const batch = await new FormattedSequence(source, tag, format).take(count);
      for (const text of batch.texts) out.line(text);
    } else {
      const block = await source.take(tag, count);
      for (let v = block.first, i = 0; i < count; v++, i++) out.line(v.toString());
    }
    out.flush();
  } finally {
    await source.close();
  }
  return 0;
}

/** `seq` on a segment table (sqlite, postgres, mysql): one store opened for one subcommand. */
async function tableSeq(
  { sub, tag, newStep, step, start, count, format }: SeqArgs,
  values: SeqValues,
  url: string,
  io: CliIo,
): Promise<number> {
  // Only seq create makes a tag: show reads, and next and step need an existing tag, so for
  // them a missing sqlite: file (or its table) is an error, never a new empty store.
  if (sub === 'next') return seqNext(url, tag!, count, READ_ONLY, io);
  const store = await openSegmentStore(url, sub === 'create' ? {} : READ_ONLY);
  try {
    if (sub === 'create') {
      const description = values.description ?? '';
      const t = await store.createTag(tag!, {
        step,
        start,
        description: format === undefined ? description : describeFormat(format, description),
      });
      io.stdout.write(
        `created ${t.tag} in ${store.address}: step ${t.step}, first number ${t.maxId + 1n}${formatNote(format)}\n`,
      );
    } else if (sub === 'step') {
      const t = await store.setStep(tag!, newStep!);
      io.stdout.write(
        `step of ${t.tag} in ${store.address} set to ${t.step}; max_id ${t.maxId} unchanged\n`,
      );
    } else {
      const tags = await store.listTags();
      if (values.json) {
        // One JSON array, as `leases --json` prints ([] when there is none).
        const records = tags.map((t) => ({ ...t, maxId: t.maxId.toString() }));
        io.stdout.write(`${JSON.stringify(records)}\n`);
      } else if (tags.length === 0) io.stdout.write(`no tags in ${store.address}\n`);
      else io.stdout.write(`${showTable(tags)}\n`);
    }
  } finally {
    await store.close();
  }
  return 0;
}

/**
 * `seq` on a counter store (the registry's, by role): create sets the counter to start - 1;
 * next draws guarded blocks.
 */
async function counterSeq(
  sub: 'create' | 'next' | 'show',
  tag: string | undefined,
  args: { start: bigint; count: number; json: boolean; marks: string },
  url: string,
  io: CliIo,
): Promise<number> {
  if (sub === 'show') {
    throw new UsageError('seq show lists segment tables; a counter store has no table to list');
  }
  if (sub === 'create') {
    const counter = await openCounterStore(url);
    try {
      if (counter.create === undefined) {
        throw new UsageError(
          `seq create: the ${counter.backend} counter store cannot create a counter ahead; its first block creates it`,
        );
      }
      // Refused like a table store's existing tag: an existing counter is left as it is.
      const now = await counter.create(tag!, args.start - 1n);
      io.stdout.write(`counter ${tag} in ${counter.address}: next number above ${now}\n`);
    } finally {
      await counter.close();
    }
    return 0;
  }
  return seqNext(url, tag!, args.count, { marks: args.marks }, io);
}
