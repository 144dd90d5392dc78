/**
 * Opens stores, ticket servers, bench engines and backfill targets from a URL, through the
 * backend registry (backends.ts): the scheme names a backend's descriptor, whose opener
 * imports the adapter and its driver only then, so `import 'idforge'` never loads a driver.
 * The composition roots (CLI, service) and tests are the only importers of this file. Which
 * URLs exist is the registry's: `sqlite:PATH` (the embedded default), `file:PATH`,
 * `postgres://` (also postgresql://), `mysql://` (also mariadb://), `redis://`, `etcd://`,
 * `leveldb:DIR` (bench only), each store URL with ?namespace=NAME (a schema, table prefix or
 * key prefix; default idforge). Sequences by URL (a segment table, or counters guarded by
 * durable marks) are opened over these openers in open-sequence.ts.
 */

import type { BenchEngine } from 'idforge/bench';
import type { LeaseStore } from 'idforge/coord';
import type { BackfillTarget } from 'idforge/public';
import type {
  CounterStore,
  DurableMarkStore,
  PlannableTicketServer,
  SegmentStore,
  TicketServer,
} from 'idforge/sequences';
import type { SqlFunctionsTarget } from 'idforge/sql';
import {
  type Backend,
  type BackendOpeners,
  type BackendPort,
  MIGRATED_PORTS,
  type Migratable,
  type OpenStoreOptions,
  type TicketServerOptions,
} from './backend.js';
import { backendOf, backendsWith, formsOf } from './backends.js';
import { knownSchemes, schemePrefix, wrongSchemeMessage } from './roles.js';
import { redactUrl, storeScheme } from './url.js';

export type { OpenStoreOptions, TicketServerOptions } from './backend.js';

/** The registered backend whose name `scheme` is (as `storeScheme` returns it), if any. */
function backendNamed(scheme: string): Backend | undefined {
  const backend = backendOf(scheme);
  return backend?.name === scheme ? backend : undefined;
}

/**
 * The opener of `port` for `url`'s backend; throws `RangeError` with `refusal(scheme)` when
 * the URL's backend does not open that port (or is unknown), and for a malformed URL.
 */
function opener<P extends BackendPort>(
  port: P,
  url: string,
  refusal: (scheme: string) => string,
): NonNullable<BackendOpeners[P]> {
  const scheme = storeScheme(url);
  const open = backendNamed(scheme)?.open[port];
  if (open === undefined) throw new RangeError(refusal(scheme));
  return open as NonNullable<BackendOpeners[P]>;
}

/**
 * Opens the lease store a URL names and checks it answers. Rejects with `RangeError` for an
 * unknown scheme or malformed URL, `StoreUnavailableError` when the server cannot be reached.
 */
export function openLeaseStore(url: string, options: OpenStoreOptions = {}): Promise<LeaseStore> {
  return opener(
    'leases',
    url,
    (scheme) => `store URL ${redactUrl(url)}: ${wrongSchemeMessage('store', scheme)}`,
  )(url, options);
}

/**
 * Opens the segment store a URL names (sqlite:, postgres://, mysql:// for MariaDB or MySQL).
 * The SQLite store creates its table on open (unless autoMigrate is false); servers need
 * `migrate()` (`idforge migrate --store URL`). Rejects as {@link openLeaseStore}.
 */
export function openSegmentStore(
  url: string,
  options: OpenStoreOptions = {},
): Promise<SegmentStore> {
  return opener(
    'segments',
    url,
    (scheme) => `segment store URL ${redactUrl(url)}: ${wrongSchemeMessage('sequences', scheme)}`,
  )(url, options);
}

/** Opens a counter store (redis://). */
export function openCounterStore(
  url: string,
  options: OpenStoreOptions = {},
): Promise<CounterStore> {
  return opener('counters', url, (scheme) => {
    const allowed = backendsWith('counters').map((b) => b.name);
    return `counter store: expected a store URL of ${allowed.join(' or ')}, got "${scheme}" in ${redactUrl(url)}`;
  })(url, options);
}

/** Opens a durable mark store (sqlite: or postgres://), for Redis counters' high-water marks. */
export function openMarkStore(
  url: string,
  options: OpenStoreOptions = {},
): Promise<DurableMarkStore> {
  return opener(
    'marks',
    url,
    (scheme) => `mark store URL ${redactUrl(url)}: ${wrongSchemeMessage('marks', scheme)}`,
  )(url, options);
}

/**
 * Opens a bench engine (`idforge bench db`: it creates, fills and drops tables of its own).
 * Throws `RangeError` for a malformed URL or one of another scheme; rejects with
 * `DriverMissingError` when the engine's driver is not installed, `StoreUnavailableError` /
 * `StoreAuthError` when the server cannot be used.
 */
export function openBenchEngine(url: string): Promise<BenchEngine> {
  return opener('bench', url, (scheme) => refusedFor('bench', scheme, url))(url);
}

/**
 * Opens a backfill target (`idforge backfill`: it changes one of the application's tables).
 * Throws as {@link openBenchEngine}; also `StorePathError` for a sqlite: path that cannot be
 * used.
 */
export function openBackfillTarget(url: string): Promise<BackfillTarget> {
  return opener('backfill', url, (scheme) => refusedFor('backfill', scheme, url))(url);
}

/**
 * Opens a database to install, upgrade or remove idforge's SQL functions (`idforge sql
 * --apply/--remove`). Throws `RangeError` for a malformed URL or a backend that cannot hold
 * them (with its reason: SQLite points to registerIdforgeFunctions); rejects as the backend's
 * opener does (`StoreUnavailableError`, MariaDB's version check).
 */
export function openSqlFunctions(url: string): Promise<SqlFunctionsTarget> {
  return opener('sql', url, (scheme) => {
    const why = backendNamed(scheme)?.refusals?.sql;
    return refusedFor('sql', scheme, url) + (why === undefined ? '' : `: ${why}`);
  })(url);
}

/** "--store: expected sqlite:PATH, postgres://... or mysql://..., got "redis" in URL". */
function refusedFor(port: BackendPort, scheme: string, url: string): string {
  return `--store: expected ${formsOf(backendsWith(port))}, got "${scheme}" in ${redactUrl(url)}`;
}

/**
 * The URL forms a port accepts, for a command's own check of its `--store`: throws
 * `RangeError` "--store: expected sqlite:PATH, postgres://... or mysql://..., got a redis URL"
 * when `url`'s backend does not open `port` (and as `storeScheme` for a malformed URL);
 * returns the scheme.
 */
export function checkPortUrl(port: BackendPort, url: string): string {
  const scheme = storeScheme(url);
  if (backendNamed(scheme)?.open[port] === undefined) {
    throw new RangeError(`--store: expected ${formsOf(backendsWith(port))}, got a ${scheme} URL`);
  }
  return scheme;
}

/**
 * `idforge migrate`: creates everything idforge keeps in the store a URL names, idempotently,
 * and says what, for each port its backend opens (MIGRATED_PORTS: leases with their marks and
 * claims, segments, counter marks).
 */
export async function migrateStore(url: string, options: OpenStoreOptions = {}): Promise<string[]> {
  const scheme = storeScheme(url);
  const backend = backendNamed(scheme);
  const opts = { ...options, autoMigrate: false };
  const done: string[] = [];
  for (const { port, what } of MIGRATED_PORTS) {
    const open = backend?.open[port] as
      | ((url: string, options: OpenStoreOptions) => Promise<Migratable>)
      | undefined;
    if (open === undefined) continue;
    const store = await open(url, opts);
    try {
      await store.migrate();
      done.push(what);
    } finally {
      await store.close();
    }
  }
  if (done.length === 0) {
    throw new RangeError(
      `store URL ${redactUrl(url)}: unknown store scheme "${scheme}:"; known: ${knownSchemes().map(schemePrefix).join(', ')}`,
    );
  }
  return done;
}

/**
 * Opens one ticket server and checks it answers. Throws `RangeError` for an unknown scheme or
 * a malformed URL; rejects with `StoreUnavailableError` when the server cannot be reached.
 */
export function openTicketServer(
  url: string,
  options: TicketServerOptions = {},
): Promise<PlannableTicketServer> {
  return ticketOpener(url)(url, options);
}

function ticketOpener(url: string): NonNullable<BackendOpeners['tickets']> {
  return opener(
    'tickets',
    url,
    (scheme) =>
      `ticket server URL: expected ${formsOf(backendsWith('tickets'))}, got "${scheme}" in ${redactUrl(url)}`,
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
  const open = ticketOpener(url);
  let opening: Promise<PlannableTicketServer> | null = null;
  const server = () => {
    if (opening === null) {
      opening = open(url, options);
      opening.catch(() => {
        opening = null;
      });
    }
    return opening;
  };
  return {
    backend: storeScheme(url),
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
