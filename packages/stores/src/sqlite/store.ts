/**
 * What the SQLite stores (leases, segments, marks) share: how one is built on a better-sqlite3
 * database, how it runs a call and names its tables, and how its opener hands it a database of
 * its own. Each store adds only its SQL, its methods and how it closes.
 */
import type Database from 'better-sqlite3';
import { OWNED, type Ownership } from '../owned.js';
import { redactOwnUrl } from '../redact.js';
import { assertTablePrefix, DEFAULT_SEGMENT_NAMESPACE } from '../segment-args.js';
import type { StoreFileOptions } from '../store-path.js';
import {
  connectSqlite,
  parseSqliteUrl,
  type SqliteClientOptions,
  sqliteAddress,
} from './connect.js';
import { sqliteRules } from './rules.js';
import { runSqlite } from './run.js';

/**
 * A SQLite store on a better-sqlite3 `Database`. Two ways to build one, as every idforge store:
 * on the application's own client (`new SqliteLeaseStore({ database, namespace })`), which
 * `close()` leaves open (the caller closes it); or from a URL with its `open…` function
 * ({@link openSqliteStore}), whose client the store opened and `close()` closes.
 */
export abstract class SqliteStore {
  readonly backend = 'sqlite';
  readonly address: string;
  /** The prefix of the store's tables (`NAMESPACE_leases`, `NAMESPACE_segments`, ...). */
  readonly namespace: string;
  readonly #db: Database.Database;
  readonly #owned: boolean;

  /**
   * A store on `options.database`, the caller's (see {@link SqliteClientOptions}): `close()`
   * leaves that database open, unless the store's opener made it. `namespace` prefixes the
   * tables (default `idforge`; `RangeError` unless `[a-z_][a-z0-9_]*`, at most 31 characters).
   */
  constructor(options: SqliteClientOptions & Ownership) {
    this.namespace = assertTablePrefix(options.namespace ?? DEFAULT_SEGMENT_NAMESPACE);
    this.#db = options.database as Database.Database; // its own type inside (driver-types.ts)
    this.address = sqliteAddress(options);
    this.#owned = options[OWNED] === true;
  }

  /** Whether the store's opener opened the database, which `close()` then closes. */
  protected get owned(): boolean {
    return this.#owned;
  }

  /** `sql` with its tables (`idforge_...`) named for this namespace. */
  protected tables(sql: string): string {
    return this.namespace === 'idforge' ? sql : sql.replaceAll('idforge_', `${this.namespace}_`);
  }

  /** Runs `fn` (a lock held elsewhere is waited out, run.ts); driver errors become StoreUnavailableError. */
  protected run<T>(operation: string, fn: () => T): Promise<T> {
    return runSqlite(this.#db, this.address, operation, fn);
  }
}

/** What the openers of every SQLite store take: the file options and the table prefix. */
export interface SqliteOpenOptions extends StoreFileOptions {
  /** Table prefix; wins over the URL's `?namespace=`. Default `idforge`. */
  readonly namespace?: string;
}

/** What the SQLite openers that create their tables (leases, marks) take besides. */
export interface SqliteMigratingOptions extends SqliteOpenOptions {
  /** Create the store's tables now if missing. Default true (SQLite is the embedded default). */
  readonly autoMigrate?: boolean;
}

/**
 * The opener of every SQLite store: the database of a `sqlite:PATH[?namespace=NAME]` URL
 * ({@link connectSqlite}: created if missing unless `create` is false, `onCreate` told), its
 * tables prefixed by `options.namespace`, else the URL's, else `idforge`, handed to `Store`,
 * which owns it (`close()` closes it), and migrated when `migrate` is true. `busyTimeoutMs`,
 * read once the namespace is checked, is how long a call waits for another process's write
 * lock: each store names that option its own way. Throws `RangeError` for a malformed URL or
 * namespace; rejects as connectSqlite does, or as the store's `migrate()`.
 */
export async function openSqliteStore<S extends { migrate(): Promise<void> }>(
  Store: new (options: SqliteClientOptions & Ownership) => S,
  url: string,
  options: SqliteOpenOptions,
  busyTimeoutMs: () => number,
  migrate: boolean,
): Promise<S> {
  const address = redactOwnUrl(url, sqliteRules);
  const namespace = assertTablePrefix(
    options.namespace ?? parseSqliteUrl(url).namespace ?? DEFAULT_SEGMENT_NAMESPACE,
  );
  const database = await connectSqlite(url, address, busyTimeoutMs(), options);
  const store = new Store({ database, address, namespace, [OWNED]: true });
  if (migrate) await store.migrate();
  return store;
}
