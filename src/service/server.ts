/**
 * The composition root of `idforge serve`: opens the stores the configuration names, leases a
 * worker ID per layout, waits out the mark, builds the app and listens; on close (SIGTERM,
 * SIGINT or `close()`) it stops accepting, finishes requests in flight, records the marks,
 * releases the leases and closes the stores, all within `shutdownTimeoutMs`.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import { type Logger, pino } from 'pino';
import { createSnowflakeNode, type LeaseStore, type SnowflakeNode } from '../coord/index.js';
import { type Clock, getLayout } from '../core/index.js';
import { defaultClock } from '../core/internal.js';
import { HLC_LAYOUT } from '../hlc/index.js';
import {
  openCounterStore,
  openLeaseStore,
  openMarkStore,
  openSegmentStore,
  redactUrl,
  storeScheme,
} from '../stores/index.js';
import { buildApp, loopLagOf } from './app.js';
import { ClockWatch } from './clock-watch.js';
import type { ServiceConfig } from './config.js';
import type { ServiceDeps, ServiceIdentity } from './deps.js';
import { EventLog } from './events.js';
import { ServiceHlc } from './hlc.js';
import { ServiceMetrics } from './metrics.js';
import {
  counterSource,
  SequenceRegistry,
  type SequenceSource,
  segmentSource,
} from './sequences.js';

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
  /** Records the marks, releases the leases, closes the stores. Never rejects. */
  close(): Promise<void>;
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
 * whatever it had opened.
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
  const clockWatch = new ClockWatch({
    clock: options.clock ?? defaultClock(),
    warnMs: config.wallDivergenceWarnMs,
    log: (level, message) => events.record(level, 'clock', message),
    ...(options.wall === undefined ? {} : { wall: options.wall }),
  });
  const closeAll = async () => {
    clockWatch.stop();
    await Promise.all([...nodes.values()].map((n) => n.close().catch(() => undefined)));
    await sequences?.close().catch(() => undefined);
    await leaseStore?.close().catch(() => undefined);
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
    leaseStore = await openLeaseStore(config.store, { onCreate });
    if (config.migrate) await leaseStore.migrate();
    events.record(
      'info',
      'store',
      `lease store ${redactUrl(config.store)} (${leaseStore.backend})`,
    );
    for (const layout of [config.layout, ...config.layouts]) {
      const node = await createSnowflakeNode({
        store: leaseStore,
        layout,
        ttlMs: config.ttlMs,
        acquireTimeoutMs: config.acquireTimeoutMs,
        logger: events.nodeLogger(),
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        ...(config.workers === null ? {} : { workerIds: config.workers }),
        fields: fieldsOf(layout, config.fields),
        // The own layout's lease carries this process's instance ID (shown in /v1/status).
        owner: { instanceId: layout === config.layout ? identity.instanceId : randomUUID() },
      });
      nodes.set(layout, node);
      await node.whenReady(config.acquireTimeoutMs + config.ttlMs);
      events.record('info', 'lease', `layout ${layout}: worker ID ${node.workerId} leased; ready`);
    }
    if (config.hlc) {
      hlc = new ServiceHlc(config.hlcMaxDriftMs);
      const node = await createSnowflakeNode({
        store: leaseStore,
        layout: HLC_LAYOUT,
        ttlMs: config.ttlMs,
        acquireTimeoutMs: config.acquireTimeoutMs,
        logger: events.nodeLogger(),
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        ...(config.workers === null ? {} : { workerIds: config.workers }),
        owner: { instanceId: randomUUID() },
        generator: hlc.factory,
      });
      nodes.set('hlc', node);
      await node.whenReady(config.acquireTimeoutMs + config.ttlMs);
      events.record('info', 'lease', `HLC IDs: worker ID ${node.workerId} leased; ready`);
    }
    let source: SequenceSource | null = null;
    if (config.sequences !== null) {
      source = await openSequenceSource(config, onCreate);
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
    throw error;
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

/** The sequence source `config.sequences` names: a segment store, or Redis counters and marks. */
async function openSequenceSource(
  config: ServiceConfig,
  onCreate: (path: string) => void,
): Promise<SequenceSource> {
  const url = config.sequences as string;
  if (storeScheme(url) !== 'redis') {
    const store = await openSegmentStore(url, { onCreate });
    if (config.migrate) await store.migrate();
    return segmentSource(store);
  }
  const counter = await openCounterStore(url);
  try {
    const marks = await openMarkStore(config.marks ?? 'sqlite:idforge.db', { onCreate });
    if (config.migrate) await marks.migrate();
    return counterSource(counter, marks);
  } catch (error) {
    await counter.close();
    throw error;
  }
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
 * overloaded. Polls the guard's own flag; bounded by SETTLE_MS.
 */
async function settle(app: FastifyInstance): Promise<void> {
  const guard = loopLagOf(app);
  if (guard === undefined) return;
  await app.ready();
  const until = Date.now() + SETTLE_MS;
  while (guard.overloaded && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A listening service. */
export interface RunningService {
  readonly app: FastifyInstance;
  /** http://host:port of the listening socket. */
  readonly url: string;
  readonly deps: ServiceDeps;
  /** Graceful stop (idempotent); resolves when the leases are released. */
  close(): Promise<void>;
  /** Resolves when the service has stopped (by close(), a signal or the abort signal). */
  readonly closed: Promise<void>;
}

/**
 * Opens the service and listens on config.host:config.port. Rejects as {@link openService},
 * or with the listen error (EADDRINUSE...) after releasing what it opened.
 */
export async function startService(
  config: ServiceConfig,
  options: StartOptions = {},
): Promise<RunningService> {
  const opened = await openService(config, options);
  const { deps } = opened;
  let app: FastifyInstance;
  try {
    app = await buildApp(deps);
    await settle(app);
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await opened.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  deps.events.record('info', 'service', `listening on ${url}`);
  let closing: Promise<void> | null = null;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => {
    resolveClosed = r;
  });
  const close = () => {
    closing ??= (async () => {
      deps.events.record('info', 'service', 'shutting down: finishing requests in flight');
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((r) => {
        timer = setTimeout(() => {
          deps.events.record(
            'warn',
            'service',
            `shutdown took over ${config.shutdownTimeoutMs} ms; closing connections`,
          );
          app.server.closeAllConnections();
          r();
        }, config.shutdownTimeoutMs);
        timer.unref();
      });
      await Promise.race([app.close(), limit]);
      clearTimeout(timer);
      await opened.close();
      deps.events.record('info', 'service', 'stopped: marks recorded, leases released');
      resolveClosed();
    })();
    return closing;
  };
  options.signal?.addEventListener('abort', () => void close(), { once: true });
  return { app, url, deps, close, closed };
}
