/**
 * Opens stores from a URL, importing each driver only when its scheme is asked for, so that
 * `import 'idforge'` never loads a driver. The composition roots (CLI, service) and tests are
 * the only importers of this file.
 *
 *   sqlite:PATH              the embedded default (a file; created if missing)
 *   file:PATH                leases and marks in one JSON file, for a node without a
 *                            coordination service (one host; atomic rename, fsync)
 *   postgres://user@host:port/db   (also postgresql://)
 *   redis://host:port[/db]
 *   mysql://user@host:port/db      MariaDB or MySQL (segments, ticket servers)
 *   etcd://host:port[,host:port...]
 * Each accepts ?namespace=NAME (a schema, table prefix or key prefix; default idforge).
 */
import type { LeaseStore } from '../coord/ports.js';
import { StoreUnavailableError } from '../core/index.js';
import type { CounterStore, DurableMarkStore, SegmentStore } from '../sequences/ports.js';
import { assertTablePrefix } from './segment-args.js';

/** Options of {@link openLeaseStore}. */
export interface OpenStoreOptions {
  /** Give up connecting after this many ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** Create the schema if missing (SQLite only; servers need `idforge migrate`). Default true. */
  readonly autoMigrate?: boolean;
  /** Tables schema (PostgreSQL) or key prefix (Redis, etcd); else the URL's ?namespace=. */
  readonly namespace?: string;
}

import { redactUrl, storeScheme } from './url.js';

/** Where the two URL helpers live (a leaf module the drivers' adapters import). */
export { redactUrl, storeScheme };

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
      const { openSqliteDatabase, parseSqliteUrl } = await import('./sqlite/database.js');
      const { SqliteLeaseStore } = await import('./sqlite/lease-store.js');
      const namespace = assertTablePrefix(
        options.namespace ?? parseSqliteUrl(url).namespace ?? 'idforge',
      );
      const db = openSqliteDatabase(url, address, connectTimeoutMs);
      const store = new SqliteLeaseStore(db, address, undefined, namespace);
      if (options.autoMigrate ?? true) await store.migrate();
      return store;
    }
    case 'file': {
      const { openFileLeaseStore } = await import('./file/open.js');
      const store = await openFileLeaseStore(url, withNamespace({ connectTimeoutMs }, options));
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
        `store URL: expected a scheme of sqlite, file, postgres, redis or etcd, got "${scheme}" in ${address}`,
      );
  }
}

function unsupported(what: string, scheme: string, address: string, allowed: string): never {
  throw new RangeError(
    `${what}: expected a store URL of ${allowed}, got "${scheme}" in ${address}`,
  );
}

/**
 * Opens the segment store a URL names (sqlite:, postgres://, mysql:// for MariaDB or MySQL).
 * The SQLite store creates its table on open (unless autoMigrate is false); servers need
 * `migrate()` (`idforge migrate --store URL`). Rejects as {@link openLeaseStore}.
 */
export async function openSegmentStore(
  url: string,
  options: OpenStoreOptions = {},
): Promise<SegmentStore> {
  const scheme = storeScheme(url);
  const base = withNamespace({ connectTimeoutMs: options.connectTimeoutMs ?? 5000 }, options);
  switch (scheme) {
    case 'sqlite': {
      const { openSqliteSegmentStore } = await import('./sqlite/segment-store.js');
      const store = await openSqliteSegmentStore(url, base);
      if (options.autoMigrate ?? true) await store.migrate();
      return store;
    }
    case 'postgres': {
      const { openPostgresSegmentStore } = await import('./postgres/segment-store.js');
      return openPostgresSegmentStore(url, base);
    }
    case 'mysql':
    case 'mariadb': {
      const { openMysqlSegmentStore } = await import('./mysql/segment-store.js');
      return openMysqlSegmentStore(url, base);
    }
    default:
      return unsupported('segment store', scheme, redactUrl(url), 'sqlite, postgres or mysql');
  }
}

/** Opens a counter store (redis:// only). */
export async function openCounterStore(
  url: string,
  options: OpenStoreOptions = {},
): Promise<CounterStore> {
  const scheme = storeScheme(url);
  if (scheme !== 'redis') return unsupported('counter store', scheme, redactUrl(url), 'redis');
  const { openRedisCounterStore } = await import('./redis/counter-store.js');
  return openRedisCounterStore(
    url,
    withNamespace({ connectTimeoutMs: options.connectTimeoutMs ?? 5000 }, options),
  );
}

/** Opens a durable mark store (sqlite: or postgres://), for Redis counters' high-water marks. */
export async function openMarkStore(
  url: string,
  options: OpenStoreOptions = {},
): Promise<DurableMarkStore> {
  const scheme = storeScheme(url);
  const connectTimeoutMs = options.connectTimeoutMs ?? 5000;
  if (scheme === 'sqlite') {
    const { openSqliteMarkStore } = await import('./sqlite/mark-store.js');
    return openSqliteMarkStore(
      url,
      withNamespace(
        { busyTimeoutMs: connectTimeoutMs, autoMigrate: options.autoMigrate ?? true },
        options,
      ),
    );
  }
  if (scheme === 'postgres') {
    const { openPostgresMarkStore } = await import('./postgres/mark-store.js');
    return openPostgresMarkStore(url, withNamespace({ connectTimeoutMs }, options));
  }
  return unsupported('mark store', scheme, redactUrl(url), 'sqlite or postgres');
}

/**
 * `idforge migrate`: creates everything idforge keeps in the store a URL names, idempotently,
 * and says what: leases (sqlite, postgres, redis, etcd), segments (sqlite, postgres, mysql),
 * counter marks (sqlite, postgres).
 */
export async function migrateStore(url: string, options: OpenStoreOptions = {}): Promise<string[]> {
  const scheme = storeScheme(url);
  const opts = { ...options, autoMigrate: false };
  const done: string[] = [];
  const run = async (
    what: string,
    open: () => Promise<{ migrate(): Promise<void>; close(): Promise<void> }>,
  ) => {
    const store = await open();
    try {
      await store.migrate();
      done.push(what);
    } finally {
      await store.close();
    }
  };
  if (['sqlite', 'postgres', 'redis', 'etcd', 'file'].includes(scheme)) {
    await run('leases, marks, claims', () => openLeaseStore(url, opts));
  }
  if (['sqlite', 'postgres', 'mysql', 'mariadb'].includes(scheme)) {
    await run('segments', () => openSegmentStore(url, opts));
  }
  if (['sqlite', 'postgres'].includes(scheme)) {
    await run('counter marks', () => openMarkStore(url, opts));
  }
  if (done.length === 0) {
    unsupported('migrate', scheme, redactUrl(url), 'sqlite, postgres, mysql, redis or etcd');
  }
  return done;
}

function withNamespace<T extends object>(
  base: T,
  options: OpenStoreOptions,
): T & { namespace?: string } {
  return options.namespace === undefined ? base : { ...base, namespace: options.namespace };
}

export type { PlannableTicketServer } from './ticket-common.js';

export {
  closeTicketServers,
  lazyTicketServer,
  openTicketServer,
  openTicketServers,
  setupTicketServers,
  type TicketServerOptions,
} from './tickets-open.js';
export { StoreUnavailableError };
