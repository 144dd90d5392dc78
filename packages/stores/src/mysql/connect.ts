/**
 * Connections to MariaDB or MySQL (mysql2) for the idforge stores, from a `mysql://` URL:
 *
 *   mysql://user[:password]@host[:port]/database[?namespace=NAME][&other mysql2 options]
 *   (mariadb:// is the same)
 *
 * The namespace (default `idforge`) prefixes the store's table names (`<namespace>_segments`);
 * it is removed from the URL before mysql2 sees it. Every other parameter is mysql2's.
 *
 * Bounds: opening a connection gives up after `connectTimeoutMs`, waiting for a pooled one as
 * well (mysql2's pool has no such limit of its own), and every statement after
 * `queryTimeoutMs`; the server ends a row-lock wait after that too, rounded up to whole
 * seconds (`innodb_lock_wait_timeout`). A connection that failed or timed out is destroyed,
 * never reused, so a late answer never reaches another call. Every failure is `StoreUnavailableError` ('mysql', the
 * URL without its password, operation, cause).
 */

import { IdforgeError } from 'idforge';
import { StoreUnavailableError } from 'idforge/coord';
import { assertNumber, RunningDeadline } from 'idforge/internal';
import type { Pool, PoolConnection, PoolOptions } from 'mysql2/promise';
import { loadDriver } from '../driver.js';
import type { MysqlPromisePool } from '../driver-types.js';
import { redactOwnUrl, type ServerUrlForm, splitServerUrl } from '../redact.js';
import { assertTablePrefix, DEFAULT_SEGMENT_NAMESPACE } from '../segment-args.js';
import { storeError } from '../store-error.js';
import { mysqlRules, mysqlSite } from './rules.js';

/** Options of the MariaDB/MySQL stores. */
export interface MysqlStoreOptions {
  /** Give up opening a connection (or waiting for a pooled one) after this many ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** Give up on a statement after this many ms. Default: connectTimeoutMs. */
  readonly queryTimeoutMs?: number;
  /** The table-name prefix; overrides the URL's `?namespace=`. Default `idforge`. */
  readonly namespace?: string;
}

/** Connections per store: a few cover a process's concurrent callers. */
const POOL_SIZE = 4;

const MYSQL_URL: ServerUrlForm = {
  rules: mysqlRules,
  form: 'mysql://user@host:port/database',
  schemes: 'a mysql:// or mariadb:// URL',
};

/**
 * Splits a store URL into the URL mysql2 gets and the namespace. Throws `RangeError` for a URL
 * that does not parse, names no database, or has a namespace that is not `[a-z_][a-z0-9_]*` of
 * at most 31 characters.
 */
export function parseMysqlUrl(url: string, namespace?: string): { uri: string; namespace: string } {
  const { parsed, namespace: fromUrl } = splitServerUrl(url, MYSQL_URL);
  if (!/^\/[^/]+$/.test(parsed.pathname)) {
    throw new RangeError(
      `store URL: expected a database name (mysql://user@host:port/database), got "${redactOwnUrl(url, mysqlRules)}"`,
    );
  }
  const ns = assertTablePrefix(namespace ?? fromUrl ?? DEFAULT_SEGMENT_NAMESPACE);
  return { uri: parsed.toString().replace(/^mariadb:/, 'mysql:'), namespace: ns };
}

/**
 * What a MariaDB/MySQL store is built from when the application has its own mysql2 pool
 * (`mysql2/promise` `createPool`): `new MysqlSegmentStore({ pool, namespace })`, kysely's
 * `MysqlDialect({ pool })` convention. The store never ends that pool; the application does,
 * after `store.close()`. The pool must be created with `multipleStatements: true` (a
 * transaction travels in one round trip), `supportBigNumbers: true` and
 * `bigNumberStrings: true` (64-bit numbers never pass through a double); the constructor
 * refuses it otherwise.
 */
export interface MysqlClientOptions {
  /** The caller's mysql2 promise pool (see {@link MysqlPromisePool}). */
  readonly pool: MysqlPromisePool;
  /** The table-name prefix. Default `idforge` (segments), none (ticket servers). */
  readonly namespace?: string;
  /** How the store names the server in errors. Default "mysql (the caller's client)". */
  readonly address?: string;
  /** Give up waiting for a pooled connection after this many ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** Give up on a statement after this many ms. Default: connectTimeoutMs. */
  readonly queryTimeoutMs?: number;
}

/** Throws `RangeError` unless the caller's pool has the settings the stores rely on. */
export function assertMysqlPoolSettings(pool: MysqlPromisePool): void {
  const config = (pool as unknown as { pool?: { config?: { connectionConfig?: object } } }).pool
    ?.config?.connectionConfig as Record<string, unknown> | undefined;
  if (config === undefined) {
    throw new TypeError('pool: expected a mysql2/promise pool (createPool), got something else');
  }
  for (const name of ['multipleStatements', 'supportBigNumbers', 'bigNumberStrings']) {
    if (config[name] !== true) {
      throw new RangeError(
        `pool: expected a mysql2 pool created with ${name}: true, got ${String(config[name])}`,
      );
    }
  }
}

/** A mysql2 pool with bounded waits and typed failures; see the module comment. */
export class MysqlPool {
  readonly address: string;
  readonly namespace: string;
  readonly #pool: Pool;
  readonly #connectTimeoutMs: number;
  readonly #queryTimeoutMs: number;
  #closed: Promise<void> | null = null;

  constructor(
    pool: MysqlPromisePool,
    address: string,
    namespace: string,
    timeouts: { connectMs: number; queryMs: number },
    /** Whether end() ends the mysql2 pool: false for the caller's pool. */
    readonly owned = true,
  ) {
    this.#pool = pool as Pool; // a mysql2 pool: its own type inside (driver-types.ts)
    this.address = address;
    this.namespace = namespace;
    this.#connectTimeoutMs = timeouts.connectMs;
    this.#queryTimeoutMs = timeouts.queryMs;
  }

  unavailable(operation: string, cause: unknown): IdforgeError {
    return storeError(mysqlSite(this.address), operation, cause);
  }

  /** A pooled connection within connectTimeoutMs; one that arrives later is released. */
  async #connection(operation: string): Promise<PoolConnection> {
    const pending = this.#pool.getConnection();
    pending.catch(() => undefined);
    if (!(await new RunningDeadline(this.#connectTimeoutMs).race(pending))) {
      pending.then(
        (c) => c.release(),
        () => {},
      );
      throw this.unavailable(
        operation,
        new Error(`no connection within ${this.#connectTimeoutMs} ms`),
      );
    }
    try {
      return await pending;
    } catch (error) {
      throw this.unavailable(operation, error);
    }
  }

  /**
   * One statement on `conn`, bounded by queryTimeoutMs of this process's running time
   * (RunningDeadline), not by mysql2's own `timeout`: a timer of the driver fires first when a
   * process resumes from a pause (SIGSTOP, a frozen VM) with the answer already in its socket,
   * and fails a statement the server did answer. On timeout the caller destroys the
   * connection (withConnection), which ends the statement on the server with it.
   */
  async #run(conn: PoolConnection, sql: string, values: unknown[]): Promise<unknown> {
    const pending = conn.query({ sql }, values);
    pending.catch(() => undefined);
    if (!(await new RunningDeadline(this.#queryTimeoutMs).race(pending))) {
      throw new Error(`no answer within ${this.#queryTimeoutMs} ms (queryTimeoutMs)`);
    }
    return (await pending)[0];
  }

  /**
   * Runs `fn` on one connection. Typed idforge errors pass through and the connection goes
   * back to the pool; any other error destroys the connection (the server rolls back an open
   * transaction when it goes) and becomes `StoreUnavailableError`.
   */
  async withConnection<T>(
    operation: string,
    fn: (query: (sql: string, values?: unknown[]) => Promise<unknown>) => Promise<T>,
  ): Promise<T> {
    const conn = await this.#connection(operation);
    const query = (sql: string, values: unknown[] = []) => this.#run(conn, sql, values);
    try {
      const result = await fn(query);
      conn.release();
      return result;
    } catch (error) {
      if (error instanceof IdforgeError && !(error instanceof StoreUnavailableError)) {
        conn.release();
        throw error;
      }
      conn.destroy();
      throw this.unavailable(operation, error);
    }
  }

  /** One statement on a pooled connection: its rows (or result header). */
  query(operation: string, sql: string, values: unknown[] = []): Promise<unknown> {
    return this.withConnection(operation, (q) => q(sql, values));
  }

  /** One SELECT-like statement: its rows, as the caller declares them. */
  async rows<R>(operation: string, sql: string, values: unknown[] = []): Promise<R[]> {
    return (await this.query(operation, sql, values)) as R[];
  }

  /** Ends the pool. Idempotent. */
  end(): Promise<void> {
    this.#closed ??= (this.owned ? this.#pool.end() : Promise.resolve()).catch((error: unknown) => {
      throw this.unavailable('close', error);
    });
    return this.#closed;
  }
}

/**
 * Opens a pool for `url` and checks that the server answers (`SELECT 1`). 64-bit integers come
 * back as decimal strings (`bigNumberStrings`), never through a double. `multipleStatements`
 * lets one round trip carry a whole transaction; values are still escaped by mysql2. The caller
 * owns the pool and ends it.
 *
 * Throws `RangeError` for a malformed URL, namespace or option; rejects with
 * `StoreUnavailableError` ('mysql', redacted URL, 'connect', cause) when the server cannot be
 * reached, refuses the login or does not answer within the timeouts.
 */
export async function connectMysql(
  url: string,
  options: MysqlStoreOptions = {},
  extra: { readonly multipleStatements?: boolean } = {},
): Promise<MysqlPool> {
  const address = redactOwnUrl(url, mysqlRules);
  const connectMs = Math.ceil(
    assertNumber('connectTimeoutMs', options.connectTimeoutMs ?? 5000, 1),
  );
  const queryMs = Math.ceil(assertNumber('queryTimeoutMs', options.queryTimeoutMs ?? connectMs, 1));
  const { uri, namespace } = parseMysqlUrl(url, options.namespace);
  const pool = await newPool({
    uri,
    connectTimeout: connectMs,
    connectionLimit: POOL_SIZE,
    maxIdle: POOL_SIZE,
    idleTimeout: 30_000,
    enableKeepAlive: true,
    charset: 'utf8mb4',
    supportBigNumbers: true,
    bigNumberStrings: true,
    multipleStatements: extra.multipleStatements ?? false,
  });
  // Row-lock waits end on the server too, not only in the client: a statement the client gave
  // up on must not keep waiting (and then locking) for InnoDB's default 50 s. Queued first on
  // each new connection, so it runs before any call.
  const lockWaitS = Math.max(1, Math.ceil(queryMs / 1000));
  pool.pool.on('connection', (conn) => {
    // A pooled connection that breaks while idle (server restart) emits 'error' again after
    // the pool's own handler; without a listener that would crash the process.
    conn.on('error', () => {});
    conn.query(`SET SESSION innodb_lock_wait_timeout = ${lockWaitS}`, () => {});
  });
  const store = new MysqlPool(pool, address, namespace, { connectMs, queryMs });
  try {
    await store.query('connect', 'SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  return store;
}

/** A new pool of `config`, mysql2 loaded on first use (`DriverMissingError` ('mysql2') when not installed). */
async function newPool(config: PoolOptions): Promise<Pool> {
  const module = await loadDriver('mysql2', 'mysql', () => import('mysql2/promise'));
  const mysql = (module as { default?: typeof import('mysql2/promise') }).default ?? module;
  return mysql.createPool(config);
}

/**
 * A mysql2 pool of idforge's own settings `config` (mysql2's `PoolOptions`, which callers check
 * with `satisfies PoolOptions`: only a function body may name mysql2's types), not checked
 * (unlike {@link connectMysql}); the caller owns and ends it. Rejects with
 * `DriverMissingError` ('mysql2') when mysql2 is not installed.
 */
export function createMysqlPool(
  config: Readonly<Record<string, unknown>>,
): Promise<MysqlPromisePool> {
  return newPool(config as PoolOptions);
}
