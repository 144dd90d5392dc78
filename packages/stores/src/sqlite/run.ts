/**
 * Runs a synchronous better-sqlite3 call for a store, waiting out another process's write lock
 * without blocking the event loop.
 *
 * better-sqlite3 is synchronous: its busy handler sleeps inside the call, so a busy timeout of
 * seconds freezes the whole process (timers, sockets, other requests) for seconds while another
 * process holds the lock. The database is therefore opened with a short driver busy timeout
 * ({@link SQLITE_BUSY_SLICE_MS}) and a call that still finds the lock taken is retried here,
 * after a jittered back-off on a timer, until the store's own budget (its `busyTimeoutMs`,
 * default 5000 ms) is spent; then it rejects with `StoreUnavailableError`. Every call that is
 * retried is atomic (one statement or one `BEGIN IMMEDIATE` transaction), so a retry never
 * applies a change twice.
 */
import { IdforgeError } from 'idforge';
import { Backoff } from 'idforge/internal';
import { storeCallSync } from '../call.js';
import type { SqliteDatabase } from '../driver-types.js';
import { storeError } from '../store-error.js';
import { sqliteSite } from './rules.js';

/** The longest one call blocks the event loop waiting for a lock (the driver's busy timeout). */
export const SQLITE_BUSY_SLICE_MS = 20;

const budgets = new WeakMap<SqliteDatabase, number>();

/** Records how long calls on `db` may wait for a lock in all (set by openSqliteDatabase). */
export function setBusyBudget(db: SqliteDatabase, budgetMs: number): void {
  budgets.set(db, budgetMs);
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * `fn()`, or, while the database is locked by another writer, `fn()` again after a back-off,
 * until the budget is spent. Typed idforge errors pass through; every other failure rejects
 * with `StoreUnavailableError('sqlite', address, operation, cause)`.
 */
export async function runSqlite<T>(
  db: SqliteDatabase,
  address: string,
  operation: string,
  fn: () => T,
): Promise<T> {
  const budgetMs = budgets.get(db) ?? 5000;
  const started = performance.now();
  let backoff: Backoff | undefined;
  for (;;) {
    try {
      return fn();
    } catch (error) {
      if (error instanceof IdforgeError) throw error;
      const left = budgetMs - (performance.now() - started);
      if (!isBusy(error) || left <= 0) {
        throw storeError(sqliteSite(address), operation, error);
      }
      backoff ??= new Backoff({ initialMs: 4, maxMs: 100 });
      await sleep(Math.min(backoff.next(), left));
    }
  }
}

/**
 * `fn()` without retrying a lock (the bench's and the backfill's own statements, which run
 * on a database no other idforge process writes), its failure typed as {@link runSqlite}'s.
 */
export function runSqliteSync<T>(address: string, operation: string, fn: () => T): T {
  return storeCallSync(sqliteSite(address), operation, fn);
}
