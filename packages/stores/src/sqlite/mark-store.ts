/**
 * {@link DurableMarkStore} on SQLite (better-sqlite3): the high-water marks that guard Redis
 * counters against moving backwards (packages/idforge/src/sequences/counter-source.ts).
 *
 *   idforge_counter_marks(key TEXT PRIMARY KEY, mark INTEGER NOT NULL)
 *
 * Durability: the database runs in WAL mode with `synchronous = FULL` (./connect.ts), so a
 * raise is on disk (the WAL fsynced) when its autocommit statement returns, and `raise`
 * resolves only then. Marks are 64-bit integers read with `safeIntegers` (as bigint), never
 * through a double. Every process of one host may share the file; a raise is one statement,
 * `max(stored, value)`, so two raisers can never lower each other's mark.
 */
import type Database from 'better-sqlite3';
import type { DurableMarkStore } from 'idforge/sequences';
import { assertMark, assertMarkTag } from '../mark-args.js';
import type { Ownership } from '../owned.js';
import type { SqliteClientOptions } from './connect.js';
import { openSqliteStore, type SqliteMigratingOptions, SqliteStore } from './store.js';

/** Created by `migrate()` (idempotent). */
export const SQLITE_MARK_SCHEMA = `
CREATE TABLE IF NOT EXISTS idforge_counter_marks (
  key  TEXT    PRIMARY KEY,
  mark INTEGER NOT NULL
);
`;

const RAISE = `
INSERT INTO idforge_counter_marks (key, mark) VALUES (?, ?)
ON CONFLICT (key) DO UPDATE SET mark = max(mark, excluded.mark)
RETURNING mark`;

const READ = 'SELECT mark FROM idforge_counter_marks WHERE key = ?';

/**
 * The durable mark store on SQLite (a better-sqlite3 `Database`). Two ways to build it, as every
 * idforge store: on the application's own client, `new SqliteMarkStore({ database, namespace })`,
 * which `close()` leaves open (the caller closes it); or from a URL with {@link
 * openSqliteMarkStore}, whose client the store opened and `close()` closes.
 */
export class SqliteMarkStore extends SqliteStore implements DurableMarkStore {
  readonly #db: Database.Database;
  #raise: Database.Statement | null = null;
  #read: Database.Statement | null = null;

  /**
   * A store on `options.database`, the caller's (see {@link SqliteClientOptions}): `close()`
   * leaves that database open, unless the store's opener made it. `namespace` prefixes the
   * table (default `idforge`); `RangeError` when malformed.
   */
  constructor(options: SqliteClientOptions & Ownership) {
    super(options);
    this.#db = options.database as Database.Database; // its own type inside (driver-types.ts)
  }

  /** Creates the table. Idempotent; never run by the other methods. */
  migrate(): Promise<void> {
    return this.run('migrate', () => {
      this.#db.exec(this.tables(SQLITE_MARK_SCHEMA));
    });
  }

  /**
   * The mark, or null when never raised. Rejects with `RangeError` for a bad key,
   * `StoreUnavailableError` ('read') when the database fails (or was never migrated).
   */
  async read(tag: string): Promise<bigint | null> {
    assertMarkTag(tag);
    return this.run('read', () => {
      this.#read ??= this.#db.prepare(this.tables(READ)).pluck().safeIntegers(true);
      const mark = this.#read.get(tag) as bigint | undefined;
      return mark ?? null;
    });
  }

  /**
   * Sets the mark to max(stored, value), committed and fsynced before resolving; returns the
   * new mark. Rejects with `RangeError` for a bad tag or value, `StoreUnavailableError`
   * ('raise') when the database fails.
   */
  async raise(tag: string, value: bigint): Promise<bigint> {
    assertMarkTag(tag);
    assertMark(value);
    return this.run('raise', () => {
      this.#raise ??= this.#db.prepare(this.tables(RAISE)).pluck().safeIntegers(true);
      return this.#raise.get(tag, value) as bigint;
    });
  }

  /** Closes the database. Idempotent. */
  close(): Promise<void> {
    return this.run('close', () => {
      if (this.owned && this.#db.open) this.#db.close();
    });
  }
}

/** Options of {@link openSqliteMarkStore}. */
export interface SqliteMarkStoreOptions extends SqliteMigratingOptions {
  /** How long a write waits for another process's transaction. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens (creating if missing) the mark store of a `sqlite:PATH` URL. Rejects with
 * `StoreUnavailableError` ('sqlite', path, 'connect' or 'migrate') when the file cannot be
 * opened or written.
 */
export async function openSqliteMarkStore(
  url: string,
  options: SqliteMarkStoreOptions = {},
): Promise<SqliteMarkStore> {
  const busyTimeoutMs = () => options.busyTimeoutMs ?? 5000;
  return openSqliteStore(SqliteMarkStore, url, options, busyTimeoutMs, options.autoMigrate ?? true);
}
