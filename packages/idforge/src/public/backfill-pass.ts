/**
 * One pass of the backfill over the table (step 3 of backfill.ts): `batch` keys at a time in
 * key order after the last key of the batch before, the NULLs among them filled, one commit
 * per batch. The counts it moves are the run's, which reports them as progress.
 */
import { ENGINES } from '../core/internal.js';
import type {
  BackfillColumn,
  BackfillKey,
  BackfillScan,
  BackfillTarget,
  BackfillValue,
} from './backfill-ports.js';
import type { BackfillValues } from './backfill-values.js';
import { BackfillTableError } from './errors-backfill.js';

/** What the passes work from: the table and column, the batch, the values, signal and clock. */
export interface FillJob {
  readonly table: string;
  readonly column: string;
  readonly batch: number;
  readonly values: BackfillValues;
  readonly signal: AbortSignal | undefined;
  readonly now: () => number;
  /** The column of each row's time, for backdated values; set once the table is checked. */
  at?: BackfillColumn;
}

/** A run's counts, which the passes move on. */
export interface FillCounts {
  passes: number;
  filled: number;
  /** Rows to fill: the NULLs at the start, grown by those found since. */
  total: number;
  /** Milliseconds spent in the passes. */
  fillMs: number;
}

/** One pass: `batch` keys at a time in key order, each batch's NULLs filled in its own commit. */
export async function fillPass(
  target: BackfillTarget,
  job: FillJob,
  key: BackfillColumn,
  counts: FillCounts,
  progress: (phase: 'fill') => void,
): Promise<void> {
  const { table, column } = job;
  let after: BackfillKey | null = null;
  for (;;) {
    job.signal?.throwIfAborted();
    const scan = await target.nextKeys(table, key, column, after, job.batch, job.at);
    if (scan.last === null) break;
    after = scan.last;
    if (scan.keys.length === 0) continue;
    const keys = scan.keys;
    const made =
      job.at === undefined
        ? keys.map((k) => job.values.value(k))
        : timed(target, job, scan, counts.filled);
    counts.filled += await target.fill(table, key, column, keys, made);
    counts.total = Math.max(counts.total, counts.filled);
    progress('fill');
  }
}

/**
 * The values of a scan's keys minted at their rows' times. A row without a time that the check
 * before the run did not see (inserted since, or its time cleared) stops the run before this
 * batch is written; the `filled` rows of the batches before keep their values.
 */
function timed(
  target: BackfillTarget,
  job: FillJob,
  scan: BackfillScan,
  filled: number,
): BackfillValue[] {
  return scan.keys.map((k, i) => {
    const at = scan.at?.[i];
    if (typeof at === 'number') return job.values.value(k, at);
    const what = ENGINES[target.engine].backfill.textHoldsTime
      ? 'NULL (or text that is no date-time)'
      : 'NULL';
    throw new BackfillTableError(
      target.engine,
      target.address,
      job.table,
      job.column,
      'untimed',
      `the row with key ${typeof k === 'bigint' ? k : 'of 16 bytes'} has ${job.at!.name} ${what}, ` +
        'written after the run checked that every row to fill had a time (inserted since, or ' +
        `its time cleared); the ${filled} row(s) filled before it keep their values, and a ` +
        'rerun goes on from them',
    );
  });
}
