/**
 * What the SQL backends of `idforge backfill` share (mysql/, postgres/ and
 * sqlite/backfill-target.ts): the statement timeout of a server, quoting a `schema.table`
 * name, retrying a batch that lost a deadlock, and a scan's answer from its rows. Nothing here
 * does I/O or names a driver.
 */
import type { BackfillKey, BackfillScan } from 'idforge/public';

/** A server's statement timeout for the backfill: an index build on a large table may take many minutes. */
export const BACKFILL_STATEMENT_TIMEOUT_MS = 6 * 60 * 60_000;

/** Tries of a batch that lost a deadlock to the application's transactions. */
const BATCH_TRIES = 5;

/** The quoting of a `schema.table` name, part by part, with `q` (an engine's identifier quotes). */
export function quoteTable(q: (name: string) => string): (table: string) => string {
  return (table) => table.split('.').map(q).join('.');
}

/**
 * `batch()`, tried again while it fails with an error `deadlocked` recognises (it lost a
 * deadlock to the application's transactions and rolled back whole), {@link BATCH_TRIES}
 * tries in all. Rejects with the last failure.
 */
export async function retryDeadlocked<T>(
  batch: () => Promise<T>,
  deadlocked: (error: unknown) => boolean,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await batch();
    } catch (error) {
      if (deadlocked(error) && attempt < BATCH_TRIES) continue;
      throw error;
    }
  }
}

/**
 * The answer of `nextKeys` from the rows it read, in key order: the keys of the rows whose
 * column is `empty`, the last key read, and with `time` (when `nextKeys` was given `at`) the
 * time of each of those rows.
 */
export function scanOf<R>(
  rows: readonly R[],
  empty: (row: R) => boolean,
  key: (row: R) => BackfillKey,
  time: ((row: R) => number | null) | undefined,
): BackfillScan {
  const last = rows[rows.length - 1];
  const blank = rows.filter(empty);
  return {
    keys: blank.map(key),
    last: last === undefined ? null : key(last),
    ...(time === undefined ? {} : { at: blank.map(time) }),
  };
}
