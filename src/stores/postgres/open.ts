/**
 * Opens the PostgreSQL lease store from a `postgres://` (or `postgresql://`) URL:
 *
 *   postgres://user[:password]@host[:port]/database[?namespace=NAME][&other libpq parameters]
 *
 * The namespace (default `idforge`) is the PostgreSQL schema holding the store's tables; it is
 * removed from the URL before node-postgres sees it. Every other parameter is node-postgres's.
 */
import type { LeaseStore } from '../../coord/ports.js';
import { checkStoreUrl, redactUrl } from '../url.js';
import { PostgresLeaseStore } from './lease-store.js';
import { quoteNamespace } from './schema.js';

/** Options of {@link openPostgresLeaseStore}. */
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

/** The default namespace (PostgreSQL schema) of the store. */
export const DEFAULT_POSTGRES_NAMESPACE = 'idforge';

/**
 * Splits a store URL into the URL node-postgres gets and the namespace. Throws `RangeError`
 * for a URL that does not parse or a namespace that is not `[a-z_][a-z0-9_]*`.
 */
export function parsePostgresUrl(
  url: string,
  namespace?: string,
): { connectionString: string; namespace: string } {
  checkStoreUrl(url);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RangeError(
      `store URL: expected postgres://user@host:port/database, got "${redactUrl(url)}"`,
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new RangeError(
      `store URL: expected a postgres:// or postgresql:// URL, got "${redactUrl(url)}"`,
    );
  }
  const fromUrl = parsed.searchParams.get('namespace');
  parsed.searchParams.delete('namespace');
  const ns = namespace ?? fromUrl ?? DEFAULT_POSTGRES_NAMESPACE;
  quoteNamespace(ns);
  return { connectionString: parsed.toString(), namespace: ns };
}

/**
 * Connects to PostgreSQL and checks that the server answers; does not create the schema (call
 * `migrate()`, as `idforge migrate --store URL` does). The store owns a small pool (4
 * connections); `close()` ends it.
 *
 * Throws `RangeError` for a malformed URL, namespace or option; rejects with
 * `StoreUnavailableError` ('postgres', redacted URL, 'connect', cause) when the server cannot
 * be reached, refuses the login or does not answer within the timeouts.
 */
export async function openPostgresLeaseStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<LeaseStore> {
  // The shared pool settings (timeouts, synchronous_commit=on for the marks): pool.ts.
  const { openPostgresPool } = await import('./pool.js');
  const { pool, address, namespace } = await openPostgresPool(url, options);
  return new PostgresLeaseStore(pool, address, namespace);
}
