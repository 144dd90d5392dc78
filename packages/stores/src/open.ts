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
 * Ticket servers (mysql://, postgres://) and sequences by URL (`openSequence`: a segment table
 * or a Redis counter guarded by durable marks) are opened here too.
 */
import { existsSync } from 'node:fs';
import type { LeaseStore } from 'idforge/coord';
import type {
  CounterBlockSourceOptions,
  CounterStore,
  DurableMarkStore,
  PlannableTicketServer,
  SegmentSequenceOptions,
  SegmentStore,
  TicketServer,
} from 'idforge/sequences';
import { counterBlockSource, openSegmentSequence, SegmentBuffer } from 'idforge/sequences';
import { KNOWN_SCHEMES, schemePrefix, wrongSchemeMessage } from './roles.js';
import type { StoreFileOptions } from './store-path.js';
import { DEFAULT_STORE_URL, redactUrl, storeScheme } from './url.js';

/**
 * Options of {@link openLeaseStore} and the other openers. `create: false` (sqlite:, file:)
 * refuses to create a missing file (`StorePathError`, reason 'missing'): for read-only use;
 * `onCreate` is told the absolute path when opening created the file (a new, empty store).
 */
export interface OpenStoreOptions extends StoreFileOptions {
  /** Give up connecting after this many ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** Create the schema if missing (SQLite only; servers need `idforge migrate`). Default true. */
  readonly autoMigrate?: boolean;
  /** Tables schema (PostgreSQL) or key prefix (Redis, etcd); else the URL's ?namespace=. */
  readonly namespace?: string;
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
      const { openSqliteLeaseStore } = await import('./sqlite/lease-store.js');
      return openSqliteLeaseStore(url, { ...options, connectTimeoutMs });
    }
    case 'file': {
      const { openFileLeaseStore } = await import('./file/lease-store.js');
      const { parseFileUrl } = await import('./file/connect.js');
      const { path } = parseFileUrl(url, options.namespace);
      const existed = existsSync(path);
      const store = await openFileLeaseStore(
        url,
        withNamespace({ connectTimeoutMs, create: options.create ?? true }, options),
      );
      if (options.autoMigrate ?? true) {
        await store.migrate();
        if (!existed && existsSync(path)) options.onCreate?.(path);
      }
      return store;
    }
    case 'postgres': {
      const { openPostgresLeaseStore } = await import('./postgres/lease-store.js');
      return openPostgresLeaseStore(url, withNamespace({ connectTimeoutMs }, options));
    }
    case 'redis': {
      const { openRedisLeaseStore } = await import('./redis/lease-store.js');
      return openRedisLeaseStore(url, withNamespace({ connectTimeoutMs }, options));
    }
    case 'etcd': {
      const { openEtcdLeaseStore } = await import('./etcd/lease-store.js');
      return openEtcdLeaseStore(url, withNamespace({ connectTimeoutMs }, options));
    }
    default:
      throw new RangeError(`store URL ${address}: ${wrongSchemeMessage('store', scheme)}`);
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
      const store = await openSqliteSegmentStore(url, { ...base, ...fileOptions(options) });
      if (options.autoMigrate ?? true) await store.migrate();
      return store;
    }
    case 'postgres': {
      const { openPostgresSegmentStore } = await import('./postgres/segment-store.js');
      return openPostgresSegmentStore(url, base);
    }
    case 'mysql': {
      const { openMysqlSegmentStore } = await import('./mysql/segment-store.js');
      return openMysqlSegmentStore(url, base);
    }
    default:
      throw new RangeError(
        `segment store URL ${redactUrl(url)}: ${wrongSchemeMessage('sequences', scheme)}`,
      );
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
        {
          busyTimeoutMs: connectTimeoutMs,
          autoMigrate: options.autoMigrate ?? true,
          ...fileOptions(options),
        },
        options,
      ),
    );
  }
  if (scheme === 'postgres') {
    const { openPostgresMarkStore } = await import('./postgres/mark-store.js');
    return openPostgresMarkStore(url, withNamespace({ connectTimeoutMs }, options));
  }
  throw new RangeError(`mark store URL ${redactUrl(url)}: ${wrongSchemeMessage('marks', scheme)}`);
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
  if (['sqlite', 'postgres', 'mysql'].includes(scheme)) {
    await run('segments', () => openSegmentStore(url, opts));
  }
  if (['sqlite', 'postgres'].includes(scheme)) {
    await run('counter marks', () => openMarkStore(url, opts));
  }
  if (done.length === 0) {
    throw new RangeError(
      `store URL ${redactUrl(url)}: unknown store scheme "${scheme}:"; known: ${KNOWN_SCHEMES.map(schemePrefix).join(', ')}`,
    );
  }
  return done;
}

/** The file options given (create, onCreate), for the sqlite: openers. */
function fileOptions(options: StoreFileOptions): StoreFileOptions {
  return {
    ...(options.create === undefined ? {} : { create: options.create }),
    ...(options.onCreate === undefined ? {} : { onCreate: options.onCreate }),
  };
}

function withNamespace<T extends object>(
  base: T,
  options: OpenStoreOptions,
): T & { namespace?: string } {
  return options.namespace === undefined ? base : { ...base, namespace: options.namespace };
}

/** Options of {@link openTicketServer}. */
export interface TicketServerOptions {
  /** Give up connecting after this many ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** Give up on a statement after this many ms. Default: connectTimeoutMs. */
  readonly queryTimeoutMs?: number;
}

/**
 * Opens one ticket server and checks it answers. Throws `RangeError` for an unknown scheme or
 * a malformed URL; rejects with `StoreUnavailableError` when the server cannot be reached.
 */
export async function openTicketServer(
  url: string,
  options: TicketServerOptions = {},
): Promise<PlannableTicketServer> {
  const scheme = storeScheme(url);
  if (scheme === 'mysql') {
    const { openMysqlTicketServer } = await import('./mysql/ticket-server.js');
    return openMysqlTicketServer(url, options);
  }
  if (scheme === 'postgres') {
    const { openPostgresTicketServer } = await import('./postgres/ticket-server.js');
    return openPostgresTicketServer(url, options);
  }
  throw new RangeError(
    `ticket server URL: expected mysql://... or postgres://..., got "${scheme}" in ${redactUrl(url)}`,
  );
}

/**
 * Opens every server of a list, in order. Rejects with the first failure after closing the
 * servers already opened; a list of several down servers names the first.
 */
export async function openTicketServers(
  urls: readonly string[],
  options: TicketServerOptions = {},
): Promise<PlannableTicketServer[]> {
  const opened: PlannableTicketServer[] = [];
  try {
    for (const url of urls) opened.push(await openTicketServer(url, options));
    return opened;
  } catch (e) {
    await Promise.all(opened.map((s) => s.close()));
    throw e;
  }
}

/**
 * A ticket server that connects at its first call instead of now, and again at the next call
 * after a failed connect: for a client that must start while one of its servers is down (the
 * client fails over; see TicketClient). Throws `RangeError` for a malformed URL at once.
 */
export function lazyTicketServer(url: string, options: TicketServerOptions = {}): TicketServer {
  const scheme = storeScheme(url);
  if (scheme !== 'mysql' && scheme !== 'postgres') {
    throw new RangeError(
      `ticket server URL: expected mysql://... or postgres://..., got "${scheme}" in ${redactUrl(url)}`,
    );
  }
  let opening: Promise<PlannableTicketServer> | null = null;
  const server = () => {
    if (opening === null) {
      opening = openTicketServer(url, options);
      opening.catch(() => {
        opening = null;
      });
    }
    return opening;
  };
  return {
    backend: scheme === 'postgres' ? 'postgres' : 'mysql',
    address: redactUrl(url),
    setup: async (name, increment, offset) => (await server()).setup(name, increment, offset),
    next: async (name) => (await server()).next(name),
    close: async () => {
      const s = opening;
      opening = null;
      if (s !== null) await (await s.catch(() => null))?.close();
    },
  };
}

/** Closes servers, never rejecting. */
export async function closeTicketServers(servers: readonly TicketServer[]): Promise<void> {
  await Promise.all(servers.map((s) => s.close().catch(() => {})));
}

/** Options of {@link openSequence}. */
export interface OpenSequenceOptions extends SegmentSequenceOptions {
  /**
   * Redis counters: where the durable marks live (sqlite: or postgres://). Default
   * sqlite:idforge.db, the embedded default; the library reads no environment variable (the
   * CLI passes $IDFORGE_STORE itself).
   */
  readonly marks?: string;
  /** Redis counters: the block size (INCRBY K). Default 1000. */
  readonly blockSize?: number;
  /** Redis counters: what to do when the counter moved backwards. Default 'reseed'. */
  readonly onRegression?: CounterBlockSourceOptions['onRegression'];
  readonly connectTimeoutMs?: number;
}

/** A sequence and what closes it with its stores. */
export interface OpenedSequence {
  readonly sequence: SegmentBuffer;
  close(): Promise<void>;
}

/**
 * The sequence of `tag` in the store `url`, with its first block loaded. Rejects with
 * `UnknownTagError` (segment tables: the tag was never created), `StoreUnavailableError`.
 */
export async function openSequence(
  url: string,
  tag: string,
  options: OpenSequenceOptions = {},
): Promise<OpenedSequence> {
  const { marks, blockSize, onRegression, connectTimeoutMs, ...buffer } = options;
  const open = connectTimeoutMs === undefined ? {} : { connectTimeoutMs };
  if (storeScheme(url) !== 'redis') {
    const store = await openSegmentStore(url, open);
    try {
      const sequence = await openSegmentSequence(store, tag, buffer);
      return {
        sequence,
        close: async () => {
          sequence.close();
          await store.close();
        },
      };
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  const counter = await openCounterStore(url, open);
  const markStore = await openMarkStore(marks ?? DEFAULT_STORE_URL, open).catch(
    async (error: unknown) => {
      await counter.close();
      throw error;
    },
  );
  const sequence = new SegmentBuffer({
    ...buffer,
    tag,
    minStep: blockSize ?? 1000,
    source: counterBlockSource(counter, markStore, tag, onRegression ? { onRegression } : {}),
    backend: counter.backend,
    address: counter.address,
  });
  const close = async () => {
    sequence.close();
    await counter.close();
    await markStore.close();
  };
  try {
    await sequence.warm();
  } catch (error) {
    await close();
    throw error;
  }
  return { sequence, close };
}
