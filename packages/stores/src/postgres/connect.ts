/**
 * PostgreSQL connections for the idforge stores (node-postgres), from a `postgres://` (or
 * `postgresql://`) URL:
 *
 *   postgres://user[:password]@host[:port]/database[?namespace=NAME][&other libpq parameters]
 *
 * The namespace (default `idforge`) is the PostgreSQL schema holding the store's tables; it is
 * removed from the URL before node-postgres sees it. Every other parameter is node-postgres's.
 */

import { assertNumber } from 'idforge/internal';
import type pg from 'pg';
import { loadDriver } from '../driver.js';
import type { PgPool } from '../driver-types.js';
import { redactOwnUrl, type ServerUrlForm, splitServerUrl } from '../redact.js';
import { storeError } from '../store-error.js';
import { postgresRules, postgresSite } from './rules.js';
import { quoteNamespace } from './schema.js';

/** Options of the PostgreSQL stores' `open…` functions. */
export interface PostgresStoreOptions {
  /** Give up opening a connection (or waiting for a pooled one) after this many ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /**
   * Give up on a statement after this many ms, both on the server (`statement_timeout`, which
   * includes waiting for a row lock) and in the client (for a server that stopped answering).
   * Default: connectTimeoutMs.
   */
  readonly queryTimeoutMs?: number;
  /** The schema to use; overrides the URL's `?namespace=`. Default `idforge`. */
  readonly namespace?: string;
}

/**
 * What a PostgreSQL store is built from when the application has its own pool:
 * `new PostgresLeaseStore({ pool, namespace })` (kysely's `PostgresDialect({ pool })`
 * convention). The store never ends that pool; the application does, after `store.close()`.
 * Run it with `synchronous_commit = on` (the server default) so that an acknowledged write
 * that hands out numbers survives a server crash.
 */
export interface PostgresClientOptions {
  /** The caller's node-postgres pool (a `pg.Pool`; see {@link PgPool}). */
  readonly pool: PgPool;
  /** The schema holding the store's tables. Default `idforge`. */
  readonly namespace?: string;
  /** How the store names the server in errors. Default "postgres (the caller's client)". */
  readonly address?: string;
}

/** The default namespace (PostgreSQL schema) of the store. */
export const DEFAULT_POSTGRES_NAMESPACE = 'idforge';

const POSTGRES_URL: ServerUrlForm = {
  rules: postgresRules,
  form: 'postgres://user@host:port/database',
  schemes: 'a postgres:// or postgresql:// URL',
};

/**
 * Splits a store URL into the URL node-postgres gets and the namespace. Throws `RangeError`
 * for a URL that does not parse or a namespace that is not `[a-z_][a-z0-9_]*`.
 */
export function parsePostgresUrl(
  url: string,
  namespace?: string,
): { connectionString: string; namespace: string } {
  const { parsed, namespace: fromUrl } = splitServerUrl(url, POSTGRES_URL);
  const ns = namespace ?? fromUrl ?? DEFAULT_POSTGRES_NAMESPACE;
  quoteNamespace(ns);
  return { connectionString: parsed.toString(), namespace: ns };
}

/** Connections per store: a few cover a process's concurrent callers. */
const POOL_SIZE = 4;

/** An open, checked pool and what it was opened for. */
export interface PostgresPool {
  readonly pool: PgPool;
  /** The URL with its password redacted: the store's address in errors. */
  readonly address: string;
  /** The schema the store uses. */
  readonly namespace: string;
}

/**
 * Opens a pool for `url` and checks that the server answers (`SELECT 1`). Every connection
 * runs with `synchronous_commit = on`, whatever the server's default or the URL's `options`
 * say, so a commit is acknowledged only once it is flushed to the WAL: a store whose writes
 * hand out numbers must not forget one in a server crash after the caller got it. The caller
 * owns the pool and ends it.
 *
 * Throws `RangeError` for a malformed URL, namespace or option; rejects with
 * `StoreUnavailableError` ('postgres', redacted URL, 'connect', cause) when the server cannot
 * be reached, refuses the login or does not answer within the timeouts (default 5000 ms).
 */
export async function connectPostgres(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresPool> {
  const address = redactOwnUrl(url, postgresRules);
  const connectTimeoutMs = assertNumber('connectTimeoutMs', options.connectTimeoutMs ?? 5000, 1);
  const queryTimeoutMs = assertNumber(
    'queryTimeoutMs',
    options.queryTimeoutMs ?? connectTimeoutMs,
    1,
  );
  const { connectionString, namespace } = parsePostgresUrl(url, options.namespace);
  // The URL's own `options` would replace ours (node-postgres lets the URL win): keep them and
  // put ours last, where PostgreSQL takes the last `-c` of a setting.
  const parsed = new URL(connectionString);
  const urlOptions = parsed.searchParams.get('options');
  parsed.searchParams.delete('options');
  const pool = await newPool({
    connectionString: parsed.toString(),
    max: POOL_SIZE,
    connectionTimeoutMillis: Math.ceil(connectTimeoutMs),
    statement_timeout: Math.ceil(queryTimeoutMs),
    query_timeout: Math.ceil(queryTimeoutMs),
    // A client that stalls inside a transaction (a paused or frozen process) must not hold rows
    // locked for long: the server ends its session after half the statement timeout, so a
    // statement waiting on those locks gets them before its own timeout, instead of failing.
    // Our transactions are a few round trips with no pause between them; one killed this way
    // rolls back whole and is retried like any store failure.
    idle_in_transaction_session_timeout: Math.max(250, Math.ceil(queryTimeoutMs / 2)),
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    allowExitOnIdle: true,
    application_name: 'idforge',
    options: `${urlOptions ?? ''} -c synchronous_commit=on`.trim(),
  });
  // A connection the server ends while it is checked out between two statements (a process
  // paused inside a transaction outlives idle_in_transaction_session_timeout) emits 'error' on
  // its client, which pg-pool no longer listens to while checked out: without this the resumed
  // process would crash instead of seeing its next statement fail and retrying on a new one.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw storeError(postgresSite(address), 'connect', error);
  }
  return { pool, address, namespace };
}

/**
 * A new pool of `config` with node-postgres loaded on first use (`DriverMissingError` ('pg')
 * when it is not installed). A broken idle connection (server restart) is dropped by the pool,
 * which then emits 'error'; without a listener that would crash the process, so the pool has
 * one that ignores it: the next call reconnects.
 */
async function newPool(config: pg.PoolConfig): Promise<pg.Pool> {
  const { Pool } = (await loadDriver('pg', 'postgres', () => import('pg'))).default;
  const pool = new Pool(config);
  pool.on('error', () => {});
  return pool;
}

/**
 * A pool of idforge's own settings `config` (a `pg.PoolConfig`, which callers check with
 * `satisfies pg.PoolConfig`: only a function body may name pg's types), its idle connections'
 * errors ignored, not checked (unlike {@link connectPostgres}); the caller owns and ends it.
 * Rejects with `DriverMissingError` ('pg') when node-postgres is not installed.
 */
export function createPgPool(config: Readonly<Record<string, unknown>>): Promise<PgPool> {
  return newPool(config as pg.PoolConfig);
}

/**
 * Ends `pool` if the store opened it (`owned`), else leaves the caller's pool alone; a failure
 * rejects as a store error naming `address`. Stores memoize the promise, so close is idempotent.
 */
export function endPool(pool: PgPool, owned: boolean, address: string): Promise<void> {
  return (owned ? pool.end() : Promise.resolve()).catch((error: unknown) => {
    throw storeError(postgresSite(address), 'close', error);
  });
}
