/** Opens a SQLite database file for the idforge stores. */
import Database from 'better-sqlite3';
import { StoreUnavailableError } from '../../core/index.js';
import { redactUrl } from '../url.js';

/** The path of a `sqlite:PATH` URL (`sqlite:` followed by a path; `sqlite://` is tolerated). */
export function sqlitePath(url: string): string {
  const path = url.replace(/^sqlite:(\/\/)?/i, '');
  if (path === '') throw new RangeError(`store URL: expected sqlite:PATH, got "${redactUrl(url)}"`);
  return path;
}

/**
 * Opens (creating if missing) the database in WAL mode with a busy timeout, so that several
 * processes on one host take turns instead of failing with SQLITE_BUSY. Throws `RangeError`
 * for a URL without a path (misuse), `StoreUnavailableError` when the file cannot be opened.
 */
export function openSqliteDatabase(
  url: string,
  address: string,
  busyTimeoutMs: number,
): Database.Database {
  const path = sqlitePath(url);
  try {
    const db = new Database(path, { timeout: busyTimeoutMs });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    return db;
  } catch (error) {
    throw new StoreUnavailableError('sqlite', address, 'connect', error);
  }
}
