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
import { type Clock, getLayout, MonotonicClock } from 'idforge';
import {
  createSnowflakeNode,
  type LeaseStore,
  type SnowflakeNode,
  type SnowflakeNodeOptions,
} from 'idforge/coord';
import { HLC_LAYOUT } from 'idforge/hlc';
import type { SequenceSource } from 'idforge/sequences';
import { type Logger, pino } from 'pino';
import { buildApp } from './app.js';
import { ClockWatch } from './clock-watch.js';
import type { ServiceConfig } from './config.js';
import type { ServiceDeps, ServiceIdentity } from './deps.js';
import { drainOf } from './drain.js';
import { EventLog } from './events.js';
import { ServiceHlc } from './hlc.js';
import { MAX_TRACKED_TAGS, ServiceMetrics } from './metrics.js';
import { loopLagOf } from './plugins/load-guard.js';
import { probeListen } from './port-probe.js';
import { SequenceRegistry } from './sequences.js';

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
  const identity: ServiceIdentity = {
    instanceId: randomUUID(),
    host: hostname(),
    pid: process.pid,
    startedAtMs: Date.now(),
    version: packageVersion(),
    store: redactUrl(config.store),
    sequences: config.sequences === null ? null : redactUrl(config.sequences),
  };
  const nodes = new Map<string, SnowflakeNode>();
  let sequences: SequenceRegistry | null = null;
  let leaseStore: LeaseStore | null = null;
  let hlc: ServiceHlc | undefined;
  // One clock for every node of this service and for the watch that compares it with the wall.
  const clock = options.clock ?? new MonotonicClock();
  const clockWatch = new ClockWatch({
    clock,
    warnMs: config.wallDivergenceWarnMs,
    log: (level, message) => events.record(level, 'clock', message),
    ...(options.wall === undefined ? {} : { wall: options.wall }),
  });
  const closeAll = async (): Promise<boolean> => {
    clockWatch.stop();
    const released = await Promise.all(
      [...nodes].map(async ([layout, n]) => {
        const workerId = n.readiness.workerId;
        try {
          await n.close();
          return true;
        } catch (error) {
          events.record(
            'error',
            'lease',
            `layout ${layout}: the lease of worker ID ${workerId} was not released and its ` +
              `mark not recorded: ${(error as Error).message}. The lease expires by itself ` +
              `within ${config.ttlMs} ms; a restart on this worker ID waits for the reservation`,
          );
          return false;
        }
      }),
    );
    await sequences?.close().catch(() => undefined);
    await leaseStore?.close().catch(() => undefined);
    return released.every(Boolean);
  };
  // Aborts the waits of start only: once open, the nodes keep issuing until close(), so that
  // requests in flight at a shutdown still get their IDs.
  const starting = new AbortController();
  const stopStart = () => starting.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', stopStart, { once: true });
  if (options.signal?.aborted) stopStart();
  const check = () => {
    starting.signal.throwIfAborted();
  };
  const metrics = new ServiceMetrics({
    nodes: () =>
      [...nodes].map(([layout, n]) => ({ layout, metrics: n.metrics, readiness: n.readiness })),
    buffers: () =>
      (sequences?.snapshots() ?? []).map((b) => ({
        tag: b.tag,
        current: b.current === null ? null : share(b.current.next, b.current.first, b.current.last),
        next: b.next === null ? null : 1,
        remaining: remaining(b),
      })),
    now: Date.now,
    wallDivergenceMs: () => clockWatch.check().divergenceMs,
  });
  try {
    const onCreate = (path: string) =>
      events.record('info', 'store', `created a new store at ${path}`);
    check();
    leaseStore = await openLeaseStore(config.store, { onCreate });
    check();
    if (config.migrate) await leaseStore.migrate();
    events.record(
      'info',
      'store',
      `lease store ${redactUrl(config.store)} (${leaseStore.backend})`,
    );
    // What every node of this service shares: its store, lease settings, clock and start signal.
    const shared = {
      store: leaseStore,
      ttlMs: config.ttlMs,
      markToleranceMs: config.markToleranceMs,
      acquireTimeoutMs: config.acquireTimeoutMs,
      logger: events.nodeLogger(),
      signal: starting.signal,
      clock,
      ...(config.workers === null ? {} : { workerIds: config.workers }),
    };
    const lease = async (key: string, options: Omit<SnowflakeNodeOptions, keyof typeof shared>) => {
      const node = await createSnowflakeNode({ ...shared, ...options });
      nodes.set(key, node);
      await node.whenReady(config.acquireTimeoutMs + config.ttlMs);
      check();
      return node;
    };
    for (const layout of [config.layout, ...config.layouts]) {
      const node = await lease(layout, {
        layout,
        fields: fieldsOf(layout, config.fields),
        // The own layout's lease carries this process's instance ID (shown in /v1/status).
        owner: { instanceId: layout === config.layout ? identity.instanceId : randomUUID() },
      });
      events.record('info', 'lease', `layout ${layout}: worker ID ${node.workerId} leased; ready`);
    }
    if (config.hlc) {
      hlc = new ServiceHlc(config.hlcMaxDriftMs);
      const node = await lease('hlc', {
        layout: HLC_LAYOUT,
        owner: { instanceId: randomUUID() },
        generator: hlc.factory,
      });
      events.record('info', 'lease', `HLC IDs: worker ID ${node.workerId} leased; ready`);
    }
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
    await closeAll();
    // A wait ended by the abort rejects with its own reason (NotReadyError "closed"): the
    // abort is the cause.
    throw starting.signal.aborted ? starting.signal.reason : error;
  } finally {
    options.signal?.removeEventListener('abort', stopStart);
  }
  const deps: ServiceDeps = {
    config,
    nodes,
    leaseStore,
    sequences,
    events,
    metrics,
    identity,
    logger,
    clockWatch,
    ...(hlc === undefined ? {} : { hlc }),
  };
  clockWatch.start();
  return { deps, close: closeAll };
}

/** The fixed field values that `layout` has (each layout takes its own). */
function fieldsOf(
  layout: string,
  fields: Readonly<Record<string, number>>,
): Record<string, number> {
  const names = new Set(getLayout(layout).fields.map((f) => f.name));
  return Object.fromEntries(Object.entries(fields).filter(([k]) => names.has(k)));
}

function share(next: bigint, first: bigint, last: bigint): number {
  const size = last - first + 1n;
  return size <= 0n ? 0 : Number(last - next + 1n) / Number(size);
}

function remaining(b: {
  current: { next: bigint; last: bigint } | null;
  next: { first: bigint; last: bigint } | null;
}): number {
  let n = 0n;
  if (b.current !== null) n += b.current.last - b.current.next + 1n;
  if (b.next !== null) n += b.next.last - b.next.first + 1n;
  return Number(n);
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

/** How a stop went. */
export interface StopReport {
  /** Every lease released with its exact mark, within the shutdown bound. */
  readonly clean: boolean;
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

/** `p`, or `fallback` once `ms` have passed (the timer never keeps the process alive). */
function within<T>(p: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((r) => {
    timer = setTimeout(() => r(fallback), Math.max(0, ms));
    timer.unref();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
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
  await probeListen(config.host, config.port);
  const opened = await openService(config, options);
  const { deps } = opened;
  let app: FastifyInstance;
  try {
    signal?.throwIfAborted();
    app = await buildApp(deps);
    await settle(app, signal);
    signal?.throwIfAborted();
    await app.listen({ host: config.host, port: config.port });
    if (signal?.aborted) {
      await app.close();
      throw signal.reason;
    }
  } catch (error) {
    await opened.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  deps.events.record('info', 'service', `listening on ${url}`);
  let closing: Promise<StopReport> | null = null;
  let resolveClosed!: (report: StopReport) => void;
  const closed = new Promise<StopReport>((r) => {
    resolveClosed = r;
  });
  const drain = drainOf(app)!;
  const close = () => {
    closing ??= (async () => {
      const started = performance.now();
      const bound = config.shutdownTimeoutMs;
      deps.events.record(
        'info',
        'service',
        'shutting down: finishing requests in flight; new requests get 503',
      );
      const report = await drain.drain(app, config.drainGraceMs, bound);
      if (report.forced > 0) {
        deps.events.record(
          'warn',
          'service',
          `shutdown took over ${bound} ms; closed ${report.forced} connection(s) with requests in flight`,
        );
      }
      // The stores get what is left of the bound, and at least a second to release.
      const left = Math.max(1000, bound - (performance.now() - started));
      const released = await within(opened.close(), left, null);
      let clean = released === true;
      if (released === null) {
        clean = false;
        deps.events.record(
          'error',
          'service',
          `stopped without recording the marks: the stores did not answer within ${Math.round(left)} ms; ` +
            `the leases expire by themselves within ${config.ttlMs} ms`,
        );
      } else if (released) {
        deps.events.record('info', 'service', 'stopped: marks recorded, leases released');
      } else {
        deps.events.record(
          'error',
          'service',
          'stopped, but not every lease was released (see above): they expire by themselves',
        );
      }
      const result = { clean };
      resolveClosed(result);
      return result;
    })();
    return closing;
  };
  signal?.addEventListener('abort', () => void close(), { once: true });
  return { app, url, deps, close, closed };
}
