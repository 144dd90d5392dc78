/** Opens a SQLite database file for the idforge stores. */
import Database from 'better-sqlite3';
import { StoreUnavailableError } from '../../core/index.js';
import { redactUrl } from '../url.js';
import { SQLITE_BUSY_SLICE_MS, setBusyBudget } from './run.js';

/** The path of a `sqlite:PATH` URL (`sqlite:` followed by a path; `sqlite://` is tolerated). */
export function sqlitePath(url: string): string {
  const path = url.replace(/^sqlite:(\/\/)?/i, '');
  if (path === '') throw new RangeError(`store URL: expected sqlite:PATH, got "${redactUrl(url)}"`);
  return path;
}

/**
 * Opens (creating if missing) the database in WAL mode. Several processes on one host take
 * turns: a call waits up to `busyTimeoutMs` for another's write lock, in slices of
 * {@link SQLITE_BUSY_SLICE_MS} with the event loop free in between (run.ts). Throws `RangeError`
 * for a URL without a path (misuse), `StoreUnavailableError` when the file cannot be opened.
 */
export function openSqliteDatabase(
  url: string,
  address: string,
  busyTimeoutMs: number,
): Database.Database {
  const path = sqlitePath(url);
  try {
    // Opening (switching a new file to WAL) may wait the whole budget: it happens once.
    const db = new Database(path, { timeout: busyTimeoutMs });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma(`busy_timeout = ${Math.min(busyTimeoutMs, SQLITE_BUSY_SLICE_MS)}`);
    setBusyBudget(db, busyTimeoutMs);
    return db;
  } catch (error) {
    throw new StoreUnavailableError('sqlite', address, 'connect', error);
  }
}
