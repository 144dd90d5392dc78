/**
 * What the SQLite adapters know of their backend without the registry (backend.ts,
 * `BackendRules`): its scheme (`sqlite:PATH`) and what better-sqlite3's error codes mean.
 */
import type { BackendRules, Classify } from '../backend.js';
import type { CallSite } from '../store-error.js';

export const sqliteRules: BackendRules = { name: 'sqlite', url: { path: true } };

export const classifySqlite: Classify = ({ code, message }) =>
  code === 'SQLITE_ERROR' && typeof message === 'string' && /^no such table\b/.test(message)
    ? 'not-migrated'
    : // SQLITE_READONLY and its extended codes: opened, but this user may not write the file.
      typeof code === 'string' && code.startsWith('SQLITE_READONLY')
      ? 'read-only'
      : null;

/** A call to the sqlite store at `address` (redacted), for its errors. */
export function sqliteSite(address: string): CallSite {
  return { backend: sqliteRules.name, address, classify: classifySqlite };
}
