/**
 * SQLite for the idforge stores (better-sqlite3): `sqlite:PATH[?namespace=NAME]` URLs and the
 * database. better-sqlite3 is an optional peer dependency like the other drivers: this is the
 * one file that imports it, lazily, when a database is first opened.
 */

import { resolve } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { bindingFailure, loadDriver } from '../driver.js';
import type { SqliteDatabase, SqliteDatabaseClass } from '../driver-types.js';
import { redactOwnUrl } from '../redact.js';
import { assertTablePrefix } from '../segment-args.js';
import { storeError } from '../store-error.js';
import {
  checkStorePath,
  isInMemory,
  type StoreFileOptions,
  storePathFailure,
} from '../store-path.js';
import { sqliteRules, sqliteSite } from './rules.js';
import { SQLITE_BUSY_SLICE_MS, setBusyBudget } from './run.js';

/**
 * The path and namespace of a `sqlite:PATH[?namespace=NAME]` URL (`sqlite://` is tolerated).
 * The namespace prefixes every table (`NAME_leases`, `NAME_segments`, ...; default `idforge`),
 * so fleets in one file stay apart. Throws `RangeError` for an empty path, a parameter other
 * than `namespace` (a typo must not become part of a file name), or a malformed namespace.
 */
export function parseSqliteUrl(url: string): { path: string; namespace: string | undefined } {
  const rest = url.replace(/^sqlite:(\/\/)?/i, '');
  const q = rest.indexOf('?');
  const path = q < 0 ? rest : rest.slice(0, q);
  if (path === '')
    throw new RangeError(
      `store URL: expected sqlite:PATH, got "${redactOwnUrl(url, sqliteRules)}"`,
    );
  let namespace: string | undefined;
  if (q >= 0) {
    for (const [key, value] of new URLSearchParams(rest.slice(q + 1))) {
      if (key !== 'namespace') {
        throw new RangeError(
          `store URL: a sqlite: URL accepts only the parameter "namespace", got "${key.length > 40 ? `${key.slice(0, 37)}...` : key}" in ${redactOwnUrl(url, sqliteRules)}`,
        );
      }
      namespace = assertTablePrefix(value);
    }
  }
  return { path, namespace };
}

/** The file path of a `sqlite:` URL (see {@link parseSqliteUrl}). */
export function sqlitePath(url: string): string {
  return parseSqliteUrl(url).path;
}

/**
 * better-sqlite3's `Database` class, loaded on first use (`load` is for tests): rejects with
 * `DriverMissingError` ('better-sqlite3') when it is not installed and with
 * `DriverBindingError` when its native binding cannot be loaded, if that happens as the module
 * loads (else it happens at `new Database()`, where {@link connectSqlite} turns it into the
 * same error); with the import's own error otherwise.
 */
export async function loadSqlite(
  load: () => Promise<{ readonly default: unknown }> = () => import('better-sqlite3'),
): Promise<SqliteDatabaseClass> {
  const module = await loadDriver('better-sqlite3', 'sqlite', async () => {
    try {
      return await load();
    } catch (error) {
      throw bindingFailure('better-sqlite3', 'sqlite', error) ?? error;
    }
  });
  return module.default as SqliteDatabaseClass;
}

/**
 * Opens (creating if missing, unless `create` is false) the database in WAL mode. Several
 * processes on one host take turns: a call waits up to `busyTimeoutMs` for another's write
 * lock, in slices of {@link SQLITE_BUSY_SLICE_MS} with the event loop free in between
 * (run.ts). `onCreate` is told the absolute path when the file was created by this call.
 * Rejects with `RangeError` for a URL without a path (misuse), `DriverMissingError` when
 * better-sqlite3 is not installed or its binding cannot be loaded (`DriverBindingError`),
 * `StorePathError` when the path cannot be used (missing with `create: false`, no such
 * directory, a directory, no permission, not a database), `StoreUnavailableError` when the
 * file cannot be opened for another reason.
 */
export async function connectSqlite(
  url: string,
  address: string,
  busyTimeoutMs: number,
  options: StoreFileOptions = {},
): Promise<SqliteDatabase> {
  const path = sqlitePath(url);
  const memory = isInMemory(path);
  // better-sqlite3's own type inside (driver-types.ts)
  const Database = (await loadSqlite()) as unknown as typeof BetterSqlite3;
  const existed = memory || checkStorePath('sqlite', path, options.create ?? true);
  let db: BetterSqlite3.Database | undefined;
  try {
    // Opening (switching a new file to WAL) may wait the whole budget: it happens once.
    db = new Database(path, { timeout: busyTimeoutMs, fileMustExist: existed && !memory });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma(`busy_timeout = ${Math.min(busyTimeoutMs, SQLITE_BUSY_SLICE_MS)}`);
    setBusyBudget(db, busyTimeoutMs);
  } catch (error) {
    db?.close();
    throw (
      bindingFailure('better-sqlite3', 'sqlite', error) ??
      (memory ? null : storePathFailure('sqlite', path, error)) ??
      storeError(sqliteSite(address), 'connect', error)
    );
  }
  if (!existed) options.onCreate?.(resolve(path));
  return db;
}

/**
 * What a SQLite store is built from when the application has its own better-sqlite3
 * database: `new SqliteLeaseStore({ database, namespace })`. The store never closes that
 * database; the application does, after `store.close()`. Open it in WAL mode with
 * `synchronous = FULL` for the durability the stores promise (as {@link connectSqlite} does).
 */
export interface SqliteClientOptions {
  /** The caller's better-sqlite3 database (see {@link SqliteDatabase}). */
  readonly database: SqliteDatabase;
  /** The table prefix (`NAME_leases`, ...). Default `idforge`. */
  readonly namespace?: string;
  /** How the store names the file in errors. Default `sqlite:<the database's file name>`. */
  readonly address?: string;
  /** The store's clock, in unix ms (tests). Default `Date.now`. */
  readonly now?: () => number;
}

/** The address of a caller's database: the one given, else `sqlite:` and its file name. */
export function sqliteAddress(options: SqliteClientOptions): string {
  return options.address ?? `sqlite:${options.database.name}`;
}
