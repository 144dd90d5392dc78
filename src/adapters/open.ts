/**
 * Opens stores from a URL, importing each driver only when its scheme is asked for, so that
 * `import 'idforge'` never loads a driver. The composition roots (CLI, service) and tests are
 * the only importers of this file.
 *
 *   sqlite:PATH              the embedded default (a file; created if missing)
 *   postgres://user@host:port/db   (also postgresql://)
 *   redis://host:port[/db]
 *   etcd://host:port[,host:port...]
 */
import type { LeaseStore } from '../coord/ports.js';
import { StoreUnavailableError } from '../core/index.js';

/** Options of {@link openLeaseStore}. */
export interface OpenStoreOptions {
  /** Give up connecting after this many ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** Create the schema if missing (SQLite only; servers need `idforge migrate`). Default true. */
  readonly autoMigrate?: boolean;
  /** Tables schema (PostgreSQL) or key prefix (Redis, etcd); else the URL's ?namespace=. */
  readonly namespace?: string;
}

/** The URL with any password replaced by `***`: safe for logs and error messages. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z0-9+.-]+:\/\/[^:/@]*):[^@/]*@/i, '$1:***@');
}

/** The scheme of a store URL: 'sqlite', 'postgres', 'redis', 'etcd', 'mysql'. */
export function storeScheme(url: string): string {
  const m = /^([a-z0-9+.-]+):/i.exec(url);
  if (m === null) {
    throw new RangeError(
      `store URL: expected sqlite:PATH, postgres://..., redis://... or etcd://host:port, got "${url}"`,
    );
  }
  const s = m[1]!.toLowerCase();
  return s === 'postgresql' ? 'postgres' : s;
}

/**
 * Opens the lease store a URL names and checks it answers. Rejects with `RangeError` for an
 * unknown scheme or malformed URL, `StoreUnavailableError` when the server cannot be reached.
 */
export async function openLeaseStore(
  url: string,
  options: OpenStoreOptions = {},
): Promise<LeaseStore> {
  const scheme = storeScheme(url);
  const address = redactUrl(url);
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  switch (scheme) {
    case 'sqlite': {
      const { openSqliteDatabase } = await import('./sqlite/database.js');
      const { SqliteLeaseStore } = await import('./sqlite/lease-store.js');
      const db = openSqliteDatabase(url, address, connectTimeoutMs);
      const store = new SqliteLeaseStore(db, address);
      if (options.autoMigrate ?? true) await store.migrate();
      return store;
    }
    case 'postgres': {
      const { openPostgresLeaseStore } = await import('./postgres/open.js');
      return openPostgresLeaseStore(url, withNamespace({ connectTimeoutMs }, options));
    }
    case 'redis': {
      const { openRedisLeaseStore } = await import('./redis/open.js');
      return openRedisLeaseStore(url, withNamespace({ connectTimeoutMs }, options));
    }
    case 'etcd': {
      const { openEtcdLeaseStore } = await import('./etcd/open.js');
      return openEtcdLeaseStore(url, withNamespace({ connectTimeoutMs }, options));
    }
    default:
      throw new RangeError(
        `store URL: expected a scheme of sqlite, postgres, redis or etcd, got "${scheme}" in ${address}`,
      );
  }
}

function withNamespace<T extends object>(
  base: T,
  options: OpenStoreOptions,
): T & { namespace?: string } {
  return options.namespace === undefined ? base : { ...base, namespace: options.namespace };
}

export { StoreUnavailableError };
