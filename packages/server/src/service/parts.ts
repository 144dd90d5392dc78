/**
 * What openService (server.ts) opens for one service, kept as it is opened, so that a failure
 * at any step, or close(), closes exactly what was opened: the nodes (each lease released with
 * its mark), the sequences and the lease store; and the clock watch and metrics over them.
 * The stores themselves are opened by server.ts, the only module of the service that imports
 * them.
 */
import { randomUUID } from 'node:crypto';
import { type Clock, getLayout, MonotonicClock } from 'idforge';
import {
  createSnowflakeNode,
  type LeaseStore,
  type SnowflakeNode,
  type SnowflakeNodeOptions,
} from 'idforge/coord';
import { HLC_LAYOUT } from 'idforge/hlc';
import type { NumberRange } from 'idforge/wire';
import type { Logger } from 'pino';
import type { ServiceConfig } from './config/config.js';
import type { ServiceDeps, ServiceIdentity } from './deps.js';
import { ClockWatch } from './domain/clock-watch.js';
import { ServiceHlc } from './domain/hlc.js';
import type { SequenceRegistry } from './domain/sequences.js';
import type { EventLog } from './metrics/events.js';
import { ServiceMetrics } from './metrics/metrics.js';

/** What the parts are built from besides the configuration (openService's options). */
export interface PartsOptions {
  readonly clock?: Clock;
  readonly wall?: () => number;
  readonly signal?: AbortSignal;
}

/** The options of a node that differ per node: its layout, fields, generator. */
type NodeOptions = Omit<
  SnowflakeNodeOptions,
  | 'store'
  | 'ttlMs'
  | 'markToleranceMs'
  | 'acquireTimeoutMs'
  | 'onLargeRollback'
  | 'logger'
  | 'signal'
  | 'clock'
  | 'workerIds'
  | 'owner'
>;

/** The parts of one service, opened in order; {@link close} closes what was opened. */
export class ServiceParts {
  readonly config: ServiceConfig;
  readonly events: EventLog;
  readonly identity: ServiceIdentity;
  /** One clock for every node of this service and for the watch that compares it with the wall. */
  readonly clock: Clock;
  readonly clockWatch: ClockWatch;
  readonly metrics: ServiceMetrics;
  readonly nodes = new Map<string, SnowflakeNode>();
  /**
   * Aborts the waits of start only: once open, the nodes keep issuing until close(), so that
   * requests in flight at a shutdown still get their IDs. The caller's signal aborts it until
   * {@link endStart}.
   */
  readonly starting = new AbortController();
  leaseStore: LeaseStore | null = null;
  sequences: SequenceRegistry | null = null;
  hlc: ServiceHlc | undefined;
  readonly #signal: AbortSignal | undefined;
  readonly #stopStart = () => this.starting.abort(this.#signal?.reason);

  constructor(
    config: ServiceConfig,
    events: EventLog,
    identity: ServiceIdentity,
    options: PartsOptions,
  ) {
    this.config = config;
    this.events = events;
    this.identity = identity;
    // Nodes that switch worker ID on a large step back must see the step: their clock follows
    // the wall clock (an injected one too) back when it is more than half a second behind.
    const follow =
      config.onLargeRollback === 'switch-worker'
        ? { followBackMs: 500, ...(options.wall === undefined ? {} : { wall: options.wall }) }
        : {};
    this.clock = options.clock ?? new MonotonicClock(follow);
    this.clockWatch = new ClockWatch({
      clock: this.clock,
      warnMs: config.wallDivergenceWarnMs,
      log: (level, message) => events.record(level, 'clock', message),
      ...(options.wall === undefined ? {} : { wall: options.wall }),
    });
    this.metrics = serviceMetrics(this);
    this.#signal = options.signal;
    this.#signal?.addEventListener('abort', this.#stopStart, { once: true });
    if (this.#signal?.aborted) this.#stopStart();
  }

  /** Throws the abort's reason once start was aborted. */
  check(): void {
    this.starting.signal.throwIfAborted();
  }

  /** Start is over: the caller's signal no longer aborts it. */
  endStart(): void {
    this.#signal?.removeEventListener('abort', this.#stopStart);
  }

  /**
   * A node for each served layout (the own one first), then the HLC node with `config.hlc`,
   * each ready. Rejects as `createSnowflakeNode` and `whenReady` do; what was leased stays in
   * {@link nodes} for {@link close}.
   */
  async leaseNodes(): Promise<void> {
    const { config } = this;
    for (const layout of [config.layout, ...config.layouts]) {
      const fields = fieldsOf(layout, config.fields);
      // The own layout's lease carries this process's instance ID (shown in /v1/status).
      const own = layout === config.layout ? this.identity.instanceId : undefined;
      await this.#lease(layout, `layout ${layout}`, { layout, fields }, own);
    }
    if (!config.hlc) return;
    this.hlc = new ServiceHlc(config.hlcMaxDriftMs);
    await this.#lease('hlc', 'HLC IDs', { layout: HLC_LAYOUT, generator: this.hlc.factory });
  }

  /**
   * Leases the node `key` with what every node of this service shares (its store, lease
   * settings, clock and start signal) and waits until it is ready.
   */
  async #lease(
    key: string,
    label: string,
    options: NodeOptions,
    instanceId: string = randomUUID(),
  ): Promise<void> {
    const { config } = this;
    const node = await createSnowflakeNode({
      store: this.leaseStore as LeaseStore,
      ttlMs: config.ttlMs,
      markToleranceMs: config.markToleranceMs,
      acquireTimeoutMs: config.acquireTimeoutMs,
      onLargeRollback: config.onLargeRollback,
      logger: this.events.nodeLogger(),
      signal: this.starting.signal,
      clock: this.clock,
      ...(config.workers === null ? {} : { workerIds: config.workers }),
      owner: { instanceId },
      ...options,
    });
    this.nodes.set(key, node);
    await node.whenReady(config.acquireTimeoutMs + config.ttlMs);
    this.check();
    this.events.record('info', 'lease', `${label}: worker ID ${node.workerId} leased; ready`);
  }

  /**
   * Records the marks, releases the leases, closes the sequences and the lease store; logs
   * each lease it could not release. Never rejects: resolves whether every lease was released
   * with its mark.
   */
  async close(): Promise<boolean> {
    this.clockWatch.stop();
    const released = await Promise.all(
      [...this.nodes].map(([layout, node]) => this.#release(layout, node)),
    );
    await this.sequences?.close().catch(() => undefined);
    await this.leaseStore?.close().catch(() => undefined);
    return released.every(Boolean);
  }

  async #release(layout: string, node: SnowflakeNode): Promise<boolean> {
    const workerId = node.readiness.workerId;
    try {
      await node.close();
      return true;
    } catch (error) {
      this.events.record(
        'error',
        'lease',
        `layout ${layout}: the lease of worker ID ${workerId} was not released and its ` +
          `mark not recorded: ${(error as Error).message}. The lease expires by itself ` +
          `within ${this.config.ttlMs} ms; a restart on this worker ID waits for the reservation`,
      );
      return false;
    }
  }

  /**
   * The service is open, its sequences last (close() closes them too): what the routes are
   * given. Called once the lease store is open and the nodes are leased.
   */
  opened(logger: Logger, sequences: SequenceRegistry): ServiceDeps {
    this.sequences = sequences;
    const { config, nodes, events, metrics, identity, clockWatch, hlc } = this;
    const leaseStore = this.leaseStore as LeaseStore;
    return {
      ...{ config, nodes, leaseStore, sequences, events, metrics, identity, logger, clockWatch },
      ...(hlc === undefined ? {} : { hlc }),
    };
  }
}

/** The service's metrics over its parts, read at each scrape. */
function serviceMetrics(parts: ServiceParts): ServiceMetrics {
  return new ServiceMetrics({
    nodes: () =>
      [...parts.nodes].map(([layout, n]) => ({
        layout,
        metrics: n.metrics,
        readiness: n.readiness,
      })),
    buffers: () =>
      (parts.sequences?.snapshots() ?? []).map((b) => ({
        tag: b.tag,
        current: b.current === null ? null : share(b.current.next, b.current.first, b.current.last),
        next: b.next === null ? null : 1,
        remaining: remaining(b),
      })),
    now: Date.now,
    wallDivergenceMs: () => parts.clockWatch.check().divergenceMs,
  });
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
  next: NumberRange | null;
}): number {
  let n = 0n;
  if (b.current !== null) n += b.current.last - b.current.next + 1n;
  if (b.next !== null) n += b.next.last - b.next.first + 1n;
  return Number(n);
}
