/**
 * The connection pool every PostgreSQL store opens, with the lease store's conventions
 * (./open.ts): the URL's `?namespace=` names the schema, a small pool, bounded connect and
 * statement timeouts so that a down or silent server becomes `StoreUnavailableError` instead
 * of a hang, and an idle connection that breaks never crashes the process.
 */
import pg from 'pg';
import { StoreUnavailableError } from '../../core/index.js';
import { assertNumber } from '../../core/internal.js';
import { redactUrl } from '../url.js';
import { type PostgresStoreOptions, parsePostgresUrl } from './open.js';

/** Connections per store: a few cover a process's concurrent callers. */
const POOL_SIZE = 4;

/** An open, checked pool and what it was opened for. */
export interface PostgresPool {
  readonly pool: pg.Pool;
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
export async function openPostgresPool(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresPool> {
  const address = redactUrl(url);
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
  const pool = new pg.Pool({
    connectionString: parsed.toString(),
    max: POOL_SIZE,
    connectionTimeoutMillis: Math.ceil(connectTimeoutMs),
    statement_timeout: Math.ceil(queryTimeoutMs),
    query_timeout: Math.ceil(queryTimeoutMs),
    // A client that stalls inside a transaction must not hold rows locked for long.
    idle_in_transaction_session_timeout: Math.ceil(2 * queryTimeoutMs),
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    allowExitOnIdle: true,
    application_name: 'idforge',
    options: `${urlOptions ?? ''} -c synchronous_commit=on`.trim(),
  });
  // A broken idle connection (server restart) is dropped by the pool, which then emits
  // 'error'; without a listener that would crash the process. The next call reconnects.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    throw new StoreUnavailableError('postgres', address, 'connect', error);
  }
  return { pool, address, namespace };
}
