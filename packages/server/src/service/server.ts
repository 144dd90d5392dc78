/**
 * The composition root of `idforge serve`: opens the stores the configuration names, leases a
 * worker ID per layout, waits out the mark, builds the app and listens; on close (SIGTERM,
 * SIGINT or `close()`) it stops accepting, finishes requests in flight, records the marks,
 * releases the leases and closes the stores, all within `shutdownTimeoutMs`.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { DEFAULT_STORE_URL, openLeaseStore, openSequenceSource, redactUrl } from '@idforge/stores';
import type { FastifyInstance } from 'fastify';
import type { Clock } from 'idforge';
import type { SequenceSource } from 'idforge/sequences';
import { type Logger, pino } from 'pino';
import type { ClusterView } from './cluster/cluster-view.js';
import type { ServiceConfig } from './config/config.js';
import type { ServiceDeps, ServiceIdentity } from './deps.js';
import { SequenceRegistry } from './domain/sequences.js';
import { buildApp } from './http/app.js';
import { loopLagOf } from './http/plugins/load-guard.js';
import { probeListen } from './http/port-probe.js';
import { EventLog } from './metrics/events.js';
import { MAX_TRACKED_TAGS } from './metrics/metrics.js';
import { ServiceParts } from './parts.js';
import { gracefulStop, type StopReport } from './stop.js';

/** Options of {@link openService} and {@link startService}. */
export interface StartOptions {
  /** Where logs go (a pino logger). Default: JSON lines at config.logLevel to `write`. */
  readonly logger?: Logger;
  /** Where the default logger writes each JSON line. Default: standard output. */
  readonly write?: (line: string) => void;
  /** Closes the service when aborted. */
  readonly signal?: AbortSignal;
  /** The nodes' clock (tests inject a ManualClock). Default the wall-anchored monotonic clock. */
  readonly clock?: Clock;
  /** The wall clock the nodes' clock is watched against (tests step it). Default Date.now. */
  readonly wall?: () => number;
  /** This process is one of `--processes N` (cluster-view.ts). Default none. */
  readonly cluster?: ClusterView;
}

/** Opened dependencies and what closes them. */
export interface OpenedService {
  readonly deps: ServiceDeps;
  /**
   * Records the marks, releases the leases, closes the stores; logs each lease it could not
   * release. Never rejects: resolves whether every lease was released with its mark.
   */
  close(): Promise<boolean>;
}

/** JSON lines, tokens redacted should a request ever be logged. */
function defaultLogger(config: ServiceConfig, write: ((line: string) => void) | undefined): Logger {
  const settings = { level: config.logLevel, redact: ['req.headers.authorization'] };
  return write === undefined ? pino(settings) : pino(settings, { write });
}

function packageVersion(): string {
  try {
    const url = new URL('../../package.json', import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** Who this process is: a new instance ID, its host, pid and version, the stores it uses. */
function serviceIdentity(config: ServiceConfig): ServiceIdentity {
  return {
    instanceId: randomUUID(),
    host: hostname(),
    pid: process.pid,
    startedAtMs: Date.now(),
    version: packageVersion(),
    store: redactUrl(config.store),
    sequences: config.sequences === null ? null : redactUrl(config.sequences),
  };
}

/** Opens the lease store `config.store` names (migrated with `config.migrate`) into `parts`. */
async function openLeases(parts: ServiceParts, onCreate: (path: string) => void): Promise<void> {
  const { config } = parts;
  parts.check();
  const leaseStore = await openLeaseStore(config.store, { onCreate });
  parts.leaseStore = leaseStore;
  parts.check();
  if (config.migrate) await leaseStore.migrate();
  const backend = leaseStore.backend;
  parts.events.record('info', 'store', `lease store ${redactUrl(config.store)} (${backend})`);
}

/**
 * Opens everything the routes need. Rejects as the stores and `createSnowflakeNode` do
 * (`StoreUnavailableError`, `NoFreeWorkerError`, `BehindMarkError`, ...), after closing
 * whatever it had opened. When `options.signal` aborts during the opening (a SIGTERM at
 * start), the wait in progress ends (a worker ID, a mark, the readiness), what was leased is
 * released with its mark as it was, and it rejects with the signal's reason.
 */
export async function openService(
  config: ServiceConfig,
  options: StartOptions = {},
): Promise<OpenedService> {
  const logger = options.logger ?? defaultLogger(config, options.write);
  const events = new EventLog(logger);
  const parts = new ServiceParts(config, events, serviceIdentity(config), options);
  const { starting, metrics } = parts;
  const check = () => parts.check();
  let sequences: SequenceRegistry;
  try {
    const onCreate = (path: string) =>
      events.record('info', 'store', `created a new store at ${path}`);
    await openLeases(parts, onCreate);
    await parts.leaseNodes();
    let source: SequenceSource | null = null;
    if (config.sequences !== null) {
      source = await openSequenceSource(config.sequences, {
        marks: config.marks ?? DEFAULT_STORE_URL,
        onCreate,
        migrate: config.migrate,
        maxTags: MAX_TRACKED_TAGS,
      });
      if (starting.signal.aborted) await source.close().catch(() => undefined);
      check();
      events.record(
        'info',
        'store',
        `sequences on ${redactUrl(config.sequences)} (${source.backend})`,
      );
    }
    const store = source?.backend ?? 'none';
    sequences = new SequenceRegistry(source, (tag, seconds, error) => {
      metrics.segmentFetch(tag, seconds, error, store);
      if (error !== undefined) {
        events.record('warn', 'store', `block of "${tag}" not taken: ${(error as Error).message}`);
      }
    });
  } catch (error) {
    await parts.close();
    // A wait ended by the abort rejects with its own reason (NotReadyError "closed"): the
    // abort is the cause.
    throw starting.signal.aborted ? starting.signal.reason : error;
  } finally {
    parts.endStart();
  }
  const opened = parts.opened(logger, sequences);
  const deps = options.cluster === undefined ? opened : { ...opened, cluster: options.cluster };
  parts.clockWatch.start();
  return { deps, close: () => parts.close() };
}

/** How long start waits for the event-loop guard to clear before listening anyway. */
const SETTLE_MS = 5000;

/**
 * Waits until the event-loop guard no longer reports the lag of start itself (loading and
 * compiling modules blocks the loop for a while), so the first requests are not refused as
 * overloaded. Polls the guard's own flag; bounded by SETTLE_MS, ended by `signal`.
 */
async function settle(app: FastifyInstance, signal: AbortSignal | undefined): Promise<void> {
  const guard = loopLagOf(app);
  if (guard === undefined) return;
  await app.ready();
  const until = Date.now() + SETTLE_MS;
  while (guard.overloaded && Date.now() < until && signal?.aborted !== true) {
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A listening service. */
export interface RunningService {
  readonly app: FastifyInstance;
  /** http://host:port of the listening socket. */
  readonly url: string;
  readonly deps: ServiceDeps;
  /** Graceful stop (idempotent); resolves when the leases are released (or could not be). */
  close(): Promise<StopReport>;
  /** Resolves when the service has stopped (by close(), a signal or the abort signal). */
  readonly closed: Promise<StopReport>;
}

/**
 * The app over `opened`, listening on config.host:config.port once the start's own lag has
 * passed. Rejects with the listen error, or the signal's reason when it aborts meanwhile,
 * after closing the app and `opened`.
 */
async function listen(
  config: ServiceConfig,
  opened: OpenedService,
  signal: AbortSignal | undefined,
): Promise<FastifyInstance> {
  try {
    signal?.throwIfAborted();
    const app = await buildApp(opened.deps);
    await settle(app, signal);
    signal?.throwIfAborted();
    await app.listen({ host: config.host, port: config.port });
    if (signal?.aborted) {
      await app.close();
      throw signal.reason;
    }
    return app;
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/** http://host:port of the app's listening socket (an IPv6 host in brackets). */
function listeningUrl(app: FastifyInstance, config: ServiceConfig): string {
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${port}`;
}

/**
 * Opens the service and listens on config.host:config.port. Rejects with the listen error
 * (EADDRINUSE, EACCES, EADDRNOTAVAIL) before opening any store when the address cannot be
 * bound; else as {@link openService}, or with the listen error after releasing what it opened. `options.signal`
 * works from the first step: aborted during start, it releases what was opened and rejects
 * with the signal's reason; aborted later, it stops the service as close() does.
 */
export async function startService(
  config: ServiceConfig,
  options: StartOptions = {},
): Promise<RunningService> {
  const { signal } = options;
  // The port first: a port in use must not leave a new store (file, tables) or a lease behind.
  // One of several processes shares the port its primary checked (node:cluster).
  if (options.cluster === undefined) await probeListen(config.host, config.port);
  const opened = await openService(config, options);
  const { deps } = opened;
  const app = await listen(config, opened, signal);
  const url = listeningUrl(app, config);
  deps.events.record('info', 'service', `listening on ${url}`);
  options.cluster?.listening(url);
  const { close, closed } = gracefulStop(app, () => opened.close(), config, deps.events);
  signal?.addEventListener('abort', () => void close(), { once: true });
  return { app, url, deps, close, closed };
}
