/**
 * The online backfill of a public ID column (`idforge backfill`) as pure logic over a
 * {@link BackfillTarget}: the seeds' migration recipe, step by step.
 *
 * 1. Describe the table; refuse it, changing nothing, without a usable key (a unique NOT NULL
 *    integer or 16-byte column: `BackfillNoKeyError`) or with the column present in a type that
 *    cannot hold the values (`BackfillTableError`).
 * 2. Add the column, nullable, if missing: a catalog change, no table rewrite.
 * 3. Fill it in batches: each reads the next `batch` rows in key order after the last key of
 *    the batch before (so a pass reads each row once, and one query never more than `batch`
 *    rows, even over a stretch already filled by an earlier run), takes those whose column IS
 *    NULL, writes
 *    them `WHERE key = ? AND column IS NULL`, and commits on its own. Row locks are held for one
 *    small batch; the table stays writable throughout. A value written meanwhile (by the
 *    application, or by a second backfill) is never overwritten.
 * 4. Rows inserted with NULL behind the cursor during a pass are caught by another pass, as
 *    long as the NULL count read between passes is not zero (at most {@link MAX_BACKFILL_PASSES}).
 * 5. Build the unique index once full, without blocking writes (the target's way).
 *
 * No progress is stored anywhere but in the table: what is left is what is NULL. A run killed
 * at any point (before, between or inside a batch, whose transaction then rolls back) is
 * resumed by running it again, and every row is filled exactly once. A run on a complete table
 * with its index changes nothing and reports it complete.
 *
 * Browser-safe like the rest of idforge/public: no I/O of its own, no timers.
 */
import { assertInteger, ENGINES, typeError } from '../core/internal.js';
import { type FillCounts, type FillJob, fillPass } from './backfill-pass.js';
import type {
  BackfillColumn,
  BackfillColumnSpec,
  BackfillTableInfo,
  BackfillTarget,
} from './backfill-ports.js';
import type { BackfillValues } from './backfill-values.js';
import { BackfillNoKeyError, BackfillTableError } from './errors-backfill.js';

/** Largest --batch: a batch is one transaction; larger ones hold their row locks longer. */
export const MAX_BACKFILL_BATCH = 10_000;
/** Passes over the table at most: the first and the catch-up passes for rows inserted meanwhile. */
export const MAX_BACKFILL_PASSES = 5;

/** Where a backfill is: after each batch, and when it starts the index. */
export interface BackfillProgress {
  readonly phase: 'fill' | 'index';
  /** 1 for the first pass, more for catch-up passes. */
  readonly pass: number;
  /** Rows this run filled so far. */
  readonly filled: number;
  /** Rows to fill: the NULLs found at the start (grown by those found between passes). */
  readonly total: number;
  /** Milliseconds since the run began. */
  readonly elapsedMs: number;
}

/** Options of {@link runBackfill}. */
export interface BackfillOptions {
  /** The table, `name` or `schema.name` (letters, digits, `_`, `$`). */
  readonly table: string;
  /** The column to add and fill. */
  readonly column: string;
  /** The key to walk the table by. Default `id`. */
  readonly keyColumn?: string;
  /** Where the values come from (backfill-values.ts). */
  readonly values: BackfillValues;
  /**
   * The column holding each row's own time (`created_at`), for backdated values
   * (`uuidv7AtValues`, `ulidAtValues`): required with those, refused with the others. Its type
   * must hold a point in time; a type without a time zone (`timestamp`, `DATETIME`) is read as
   * UTC. Rows to fill without a time stop the run before it changes anything.
   */
  readonly atColumn?: string;
  /** Rows per batch (one transaction each), 1..MAX_BACKFILL_BATCH. Default 1000. */
  readonly batch?: number;
  /** Stops the run between two batches; it rejects with the signal's reason. Rerun to resume. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: BackfillProgress) => void;
  /** Milliseconds of a monotonic clock. Default `performance.now`. */
  readonly now?: () => number;
}

/** What a backfill did. */
export interface BackfillReport {
  readonly engine: BackfillTarget['engine'];
  readonly address: string;
  readonly table: string;
  readonly column: string;
  readonly keyColumn: string;
  readonly scheme: string;
  /** The column's type in the engine's words. */
  readonly columnType: string;
  /** This run added the column. */
  readonly columnAdded: boolean;
  /** Rows in the table at the start, and of those rows already filled then. */
  readonly rows: number;
  readonly alreadyFilled: number;
  /** Rows in the table at the end. */
  readonly rowsAtEnd: number;
  /** Rows this run filled. */
  readonly filled: number;
  /** Passes over the table (0 when nothing was left to fill). */
  readonly passes: number;
  /** The unique index on the column, and whether this run built it. */
  readonly index: string;
  readonly indexAdded: boolean;
  /** Rows still NULL at the end: inserted with NULL after the last pass (0 when complete). */
  readonly remaining: number;
  readonly complete: boolean;
  readonly seconds: number;
  /** Rows filled per second of filling (0 when none). */
  readonly rowsPerSecond: number;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_$]{0,62}$/;

function assertName(name: string, value: unknown, dotted = false): string {
  if (typeof value !== 'string') throw typeError(name, 'a name', value);
  const parts = dotted ? value.split('.') : [value];
  if (parts.length > 2 || !parts.every((p) => NAME.test(p))) {
    throw new RangeError(
      `${name}: expected a name of letters, digits, _ and $ (at most 63)${dotted ? ', or schema.name' : ''}, got "${value.slice(0, 80)}"`,
    );
  }
  return value;
}

/**
 * Runs the backfill (see the module comment). Throws `TypeError`/`RangeError` for a malformed
 * name or batch; rejects with `BackfillNoKeyError`, `BackfillTableError`, the target's store
 * errors (`StoreUnavailableError`...), or the signal's reason when aborted between batches
 * (whatever was committed stays: rerun to resume). Does not close the target.
 */
export async function runBackfill(
  target: BackfillTarget,
  options: BackfillOptions,
): Promise<BackfillReport> {
  const job = checkOptions(options);
  const { now } = job;
  const start = now();
  const { key, spec, existing, at } = await prepareColumn(target, job);
  if (at !== undefined) job.at = at;
  const first = await target.counts(job.table, job.column);
  const counts: FillCounts = { passes: 0, filled: 0, total: first.rows - first.filled, fillMs: 0 };
  const progress = (phase: BackfillProgress['phase']) =>
    options.onProgress?.({
      phase,
      pass: counts.passes,
      filled: counts.filled,
      total: counts.total,
      elapsedMs: now() - start,
    });
  await fillPasses(target, job, key, counts, progress);

  job.signal?.throwIfAborted();
  const index = backfillIndexName(job.table, job.column);
  const indexAdded = existing?.unique !== true;
  if (indexAdded) {
    progress('index');
    await target.addUniqueIndex(job.table, job.column, index);
  }
  const end = await target.counts(job.table, job.column);
  const facts = { spec, existing, first, end, counts, index, indexAdded, start };
  return backfillReport(target, job, facts);
}

/** The options checked, with their defaults: what a run works from. */
interface BackfillJob extends FillJob {
  readonly keyName: string;
  readonly atName: string | undefined;
}

/** `options.atColumn` checked against the values: a name when they are backdated, else none. */
function checkAtColumn(options: BackfillOptions, column: string): string | undefined {
  const backdated = options.values.backdated === true;
  if (options.atColumn === undefined) {
    if (!backdated) return undefined;
    throw new TypeError(
      `atColumn: expected the column of each row's time for ${options.values.scheme} values minted at it, got none`,
    );
  }
  const at = assertName('atColumn', options.atColumn);
  if (!backdated) {
    throw new RangeError(
      `atColumn: only with values minted at each row's time (uuidv7AtValues, ulidAtValues); ${options.values.scheme} values carry no row time`,
    );
  }
  if (at === column)
    throw new RangeError(`atColumn: expected a column other than the one to fill, got "${at}"`);
  return at;
}

function checkOptions(options: BackfillOptions): BackfillJob {
  const table = assertName('table', options.table, true);
  const column = assertName('column', options.column);
  const keyName = assertName('keyColumn', options.keyColumn ?? 'id');
  if (keyName === column) {
    throw new RangeError(
      `keyColumn: expected a column other than the one to fill, got "${column}"`,
    );
  }
  const batch = assertInteger('batch', options.batch ?? 1000, 1, MAX_BACKFILL_BATCH);
  const values = options.values;
  if (typeof values?.value !== 'function') throw typeError('values', 'BackfillValues', values);
  const now = options.now ?? (() => performance.now());
  const atName = checkAtColumn(options, column);
  return { table, column, keyName, atName, batch, values, signal: options.signal, now };
}

/**
 * Steps 1 and 2: the key to walk the table by, the column's spec, and the column as it was
 * found (undefined when this run added it). Refuses the table before changing anything.
 */
async function prepareColumn(target: BackfillTarget, job: BackfillJob) {
  const { table, column } = job;
  const fail = (reason: 'missing-table' | 'column-type', found: string) =>
    new BackfillTableError(target.engine, target.address, table, column, reason, found);
  const info = await target.describe(table);
  if (info === null) throw fail('missing-table', 'not found');
  const key = usableKey(target, table, job.keyName, column, info.columns);
  const spec = job.values.column(key.kind === 'integer' ? 'integer' : 'bytes16');
  const existing = info.columns.find((c) => c.name === column);
  if (existing !== undefined && !fits(existing, spec)) throw fail('column-type', existing.type);
  const at = job.atName === undefined ? undefined : await timeColumn(target, job, info, existing);
  if (existing === undefined) await target.addColumn(table, column, spec);
  return { key, spec, existing, at };
}

/**
 * The `atColumn` of the table, when it holds a time and every row to fill has one; refuses the
 * table (`BackfillTableError`, before anything changed) otherwise.
 */
async function timeColumn(
  target: BackfillTarget,
  job: BackfillJob,
  info: BackfillTableInfo,
  existing: BackfillColumn | undefined,
): Promise<BackfillColumn> {
  const name = job.atName!;
  const fail = (reason: 'time-column' | 'untimed', found: string) =>
    new BackfillTableError(target.engine, target.address, job.table, job.column, reason, found);
  const at = info.columns.find((c) => c.name === name);
  if (at === undefined) throw fail('time-column', `is "${name}", which does not exist`);
  // An engine without a time type (SQLite) keeps times as date-time text: its trait says so.
  const textTime = ENGINES[target.engine].backfill.textHoldsTime;
  const holdsTime = at.kind === 'time' || (textTime && at.kind === 'text');
  if (!holdsTime) throw fail('time-column', `is "${name}" of type ${at.type}, not a point in time`);
  const untimed = await target.untimed(job.table, at, existing === undefined ? null : job.column);
  if (untimed > 0) {
    const what = textTime ? 'NULL or not date-time text' : 'NULL';
    throw fail('untimed', `${untimed} row(s) to fill have ${name} ${what}`);
  }
  return at;
}

/** Steps 3 and 4: passes over the table while NULLs are left, at most MAX_BACKFILL_PASSES. */
async function fillPasses(
  target: BackfillTarget,
  job: BackfillJob,
  key: BackfillColumn,
  counts: FillCounts,
  progress: (phase: 'fill') => void,
): Promise<void> {
  const { now } = job;
  for (let left = counts.total; left > 0 && counts.passes < MAX_BACKFILL_PASSES; ) {
    counts.passes++;
    const passStart = now();
    await fillPass(target, job, key, counts, progress);
    counts.fillMs += now() - passStart;
    const c = await target.counts(job.table, job.column);
    left = c.rows - c.filled;
    counts.total = Math.max(counts.total, counts.filled + left);
  }
}

/** What a run found, did and ended with. */
interface RunFacts {
  readonly spec: BackfillColumnSpec;
  readonly existing: BackfillColumn | undefined;
  readonly first: { readonly rows: number; readonly filled: number };
  readonly end: { readonly rows: number; readonly filled: number };
  readonly counts: FillCounts;
  readonly index: string;
  readonly indexAdded: boolean;
  readonly start: number;
}

function backfillReport(target: BackfillTarget, job: BackfillJob, run: RunFacts): BackfillReport {
  const { existing, first, end, counts } = run;
  const { now } = job;
  return {
    engine: target.engine,
    address: target.address,
    table: job.table,
    column: job.column,
    keyColumn: job.keyName,
    scheme: job.values.scheme,
    columnType: existing?.type ?? target.columnType(run.spec),
    columnAdded: existing === undefined,
    rows: first.rows,
    alreadyFilled: first.filled,
    rowsAtEnd: end.rows,
    filled: counts.filled,
    passes: counts.passes,
    index: run.indexAdded ? run.index : `(existing unique index on ${job.column})`,
    indexAdded: run.indexAdded,
    remaining: end.rows - end.filled,
    complete: end.rows === end.filled,
    seconds: (now() - run.start) / 1000,
    rowsPerSecond: counts.fillMs > 0 ? counts.filled / (counts.fillMs / 1000) : 0,
  };
}

/** A key column is usable when it is unique, NOT NULL, and an integer or 16 bytes. */
function usable(c: BackfillColumn): boolean {
  return c.unique && !c.nullable && (c.kind === 'integer' || c.kind === 'bytes16');
}

function usableKey(
  target: BackfillTarget,
  table: string,
  keyName: string,
  column: string,
  columns: readonly BackfillColumn[],
): BackfillColumn {
  const key = columns.find((c) => c.name === keyName);
  if (key !== undefined && usable(key)) return key;
  let found: string;
  if (key === undefined) found = 'does not exist';
  else if (key.kind !== 'integer' && key.kind !== 'bytes16') {
    found = `is ${key.type}, neither an integer nor a 16-byte column`;
  } else if (!key.unique) found = `is ${key.type} without a unique index or primary key on it`;
  else found = `is ${key.type}, unique but nullable (rows with a NULL key could not be reached)`;
  const candidates = columns
    .filter((c) => c.name !== column && usable(c))
    .map((c) => `${c.name} (${c.type})`);
  throw new BackfillNoKeyError(target.engine, target.address, table, keyName, found, candidates);
}

function fits(c: BackfillColumn, spec: BackfillColumnSpec): boolean {
  if (spec.kind === 'bytes16') return c.kind === 'bytes16';
  return c.kind === 'text' && (c.length === null || c.length >= spec.length);
}

/** `<table>_<column>_key` (PostgreSQL's own naming of a unique constraint), at most 63 characters. */
export function backfillIndexName(table: string, column: string): string {
  const bare = table.includes('.') ? table.slice(table.indexOf('.') + 1) : table;
  return `${bare}_${column}_key`.slice(0, 63);
}
