/**
 * Prometheus metrics (prom-client, one registry per service, names prefixed `idforge_`, plus
 * the default process metrics). Per-request series are counted in the hot path through cached
 * label children; node and buffer state is read when /metrics is scraped (no timers).
 *
 * Cardinality is bounded: a `tag` label is given only to a tag known to exist (a block was
 * taken for it, or its buffer is open), and only to the first {@link MAX_TRACKED_TAGS} such
 * tags of the process (kept for its life, so a counter never vanishes); later tags share
 * `tag="_other"`. A caller's error (an unknown tag: 404) adds no series and no store error.
 */

import { ErrorCode, IdforgeError } from 'idforge';
import type { NodeMetrics, NodeReadiness } from 'idforge/coord';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { isCallerError } from './errors.js';

/**
 * The most tags with series of their own per process (each costs about 20 series: the fetch
 * histogram's 15, two fill ratios, remaining, two counters): 256 tags, about 5,000 lines.
 * With Redis counters, where any tag is a counter, it also bounds the buffers a node keeps
 * (src/service/sequences.ts).
 */
export const MAX_TRACKED_TAGS = 256;

/** The `tag` label of every tag past {@link MAX_TRACKED_TAGS}. */
export const OTHER_TAG = '_other';

const STORE_CODES: ReadonlySet<string> = new Set([
  ErrorCode.STORE_UNAVAILABLE,
  ErrorCode.STORE_NOT_MIGRATED,
  ErrorCode.STORE_AUTH,
  ErrorCode.STORE_PATH,
  ErrorCode.DRIVER_MISSING,
  ErrorCode.COUNTER_REGRESSED,
]);

/**
 * Whether `error` is a store's failure, what `idforge_store_errors_total` counts: a store
 * unreachable, not migrated, refusing credentials, a driver missing, a counter that moved
 * backwards, or an unexpected error from a store call. Not: the caller's errors (an unknown
 * tag, a bad size: `HttpError`, `RangeError`, `TypeError`) nor a sequence at its end
 * (`IDF_SEQUENCE_EXHAUSTED`), which the store reported correctly.
 */
export function isStoreFailure(error: unknown): boolean {
  if (error === undefined) return false;
  if (error instanceof IdforgeError) return STORE_CODES.has(error.code);
  return !isCallerError(error);
}

/** What a scrape reads from the running service. */
export interface MetricsSources {
  nodes(): readonly { layout: string; metrics: NodeMetrics; readiness: NodeReadiness }[];
  buffers(): readonly {
    tag: string;
    current: number | null;
    next: number | null;
    remaining: number;
  }[];
  now(): number;
  /** The wall clock minus the nodes' clock, ms (src/service/clock-watch.ts); absent: no gauge. */
  wallDivergenceMs?(): number;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** Holds the registry and every metric. One per service. */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #ids: Counter<'scheme'>;
  readonly #numbers: Counter<'tag'>;
  readonly #segments: Counter<'tag'>;
  readonly #requests: Counter<'route' | 'method' | 'status'>;
  readonly #latency: Histogram<'route'>;
  readonly #fetch: Histogram<'tag'>;
  readonly #storeErrors: Counter<'store' | 'operation'>;
  readonly #refused: Counter;
  readonly #children = new Map<string, { inc(n?: number): void }>();
  readonly #latencyChildren = new Map<string, { observe(v: number): void }>();
  readonly #fetchChildren = new Map<string, { observe(v: number): void }>();
  // The tags with series of their own (at most MAX_TRACKED_TAGS), never removed.
  readonly #tracked = new Set<string>();

  constructor(sources: MetricsSources) {
    const r = this.registry;
    collectDefaultMetrics({ register: r });
    this.#ids = new Counter({
      name: 'idforge_ids_issued_total',
      help: 'IDs issued, by scheme',
      labelNames: ['scheme'],
      registers: [r],
    });
    this.#numbers = new Counter({
      name: 'idforge_sequence_numbers_issued_total',
      help: 'Sequence numbers served one by one, by tag',
      labelNames: ['tag'],
      registers: [r],
    });
    this.#segments = new Counter({
      name: 'idforge_segment_numbers_handed_out_total',
      help: 'Numbers handed to clients in whole segments, by tag',
      labelNames: ['tag'],
      registers: [r],
    });
    this.#requests = new Counter({
      name: 'idforge_http_requests_total',
      help: 'HTTP requests, by route, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [r],
    });
    this.#latency = new Histogram({
      name: 'idforge_http_request_duration_seconds',
      help: 'Time from request to response, by route',
      labelNames: ['route'],
      buckets: LATENCY_BUCKETS,
      registers: [r],
    });
    this.#fetch = new Histogram({
      name: 'idforge_segment_fetch_duration_seconds',
      help: 'Time to take a segment from the store, by tag',
      labelNames: ['tag'],
      buckets: LATENCY_BUCKETS,
      registers: [r],
    });
    this.#storeErrors = new Counter({
      name: 'idforge_store_errors_total',
      help: 'Failed store operations, by store and operation',
      labelNames: ['store', 'operation'],
      registers: [r],
    });
    this.#refused = new Counter({
      name: 'idforge_clock_rollbacks_refused_total',
      help: 'Requests refused because the clock stepped back beyond the tolerance',
      registers: [r],
    });
    const tracked = this.#tracked;
    new Gauge({
      name: 'idforge_metric_tags',
      help: `Tags with series of their own (at most ${MAX_TRACKED_TAGS}; later ones are tag="${OTHER_TAG}")`,
      registers: [r],
      collect() {
        this.set(tracked.size);
      },
    });
    this.#nodeSeries(sources);
    this.#bufferSeries(sources);
    const divergence = sources.wallDivergenceMs;
    if (divergence !== undefined) {
      new Gauge({
        name: 'idforge_clock_wall_divergence_seconds',
        help: "The wall clock minus the nodes' monotonic clock (negative: the wall clock is behind)",
        registers: [r],
        collect() {
          this.set(divergence() / 1000);
        },
      });
    }
  }

  /**
   * The `tag` label of a tag known to exist: its own name while fewer than MAX_TRACKED_TAGS
   * tags have one (then for the life of the process), else `_other`.
   */
  tagLabel(tag: string): string {
    if (this.#tracked.has(tag)) return tag;
    if (this.#tracked.size >= MAX_TRACKED_TAGS) return OTHER_TAG;
    this.#tracked.add(tag);
    return tag;
  }

  /** Counters that mirror the nodes' own counters, read at scrape time. */
  #nodeSeries(s: MetricsSources): void {
    const r = this.registry;
    // The nodes count for themselves; a scrape adds what they counted since the last one, so
    // these stay true Prometheus counters (never set, never lowered).
    const mirror = (name: string, help: string, pick: (m: NodeMetrics) => number) => {
      const seen = new Map<string, number>();
      new Counter({
        name: `${name}_total`,
        help,
        labelNames: ['layout'],
        registers: [r],
        collect() {
          for (const n of s.nodes()) {
            const v = pick(n.metrics);
            const d = v - (seen.get(n.layout) ?? 0);
            seen.set(n.layout, v);
            this.inc({ layout: n.layout }, Math.max(d, 0));
          }
        },
      });
    };
    mirror(
      'idforge_snowflake_exhaustion_waits',
      'Times a node waited for the next tick (sequence exhausted)',
      (m) => m.exhaustionWaits,
    );
    mirror(
      'idforge_clock_rollbacks_absorbed',
      'Backward clock steps a node waited out',
      (m) => m.rollbackWaits,
    );
    mirror('idforge_lease_renewals', 'Lease renewals', (m) => m.renewals);
    mirror('idforge_lease_renewal_failures', 'Failed lease renewals', (m) => m.renewalFailures);
    mirror('idforge_lease_losses', 'Leases lost (fenced)', (m) => m.leasesLost);
    mirror('idforge_leases_acquired', 'Leases acquired', (m) => m.leasesAcquired);
    mirror(
      'idforge_snowflake_fenced_refusals',
      'New ticks refused while fenced or not ready',
      (m) => m.fencedRefusals,
    );
    new Gauge({
      name: 'idforge_worker_id',
      help: 'The leased worker ID (-1 while none is held)',
      labelNames: ['layout'],
      registers: [r],
      collect() {
        for (const n of s.nodes()) this.set({ layout: n.layout }, n.metrics.workerId ?? -1);
      },
    });
    new Gauge({
      name: 'idforge_lease_seconds_to_expiry',
      help: 'Seconds until the lease deadline (0 without a lease)',
      labelNames: ['layout'],
      registers: [r],
      collect() {
        const now = s.now();
        for (const n of s.nodes()) {
          const d = n.readiness.deadlineMs;
          this.set({ layout: n.layout }, d === null ? 0 : Math.max(0, (d - now) / 1000));
        }
      },
    });
    new Gauge({
      name: 'idforge_node_ready',
      help: '1 when the node can issue Snowflake IDs',
      labelNames: ['layout'],
      registers: [r],
      collect() {
        for (const n of s.nodes()) this.set({ layout: n.layout }, n.readiness.ready ? 1 : 0);
      },
    });
  }

  /** Buffer gauges; `_other` holds the lowest value of the untracked tags (what alerts need). */
  #bufferSeries(s: MetricsSources): void {
    const label = (tag: string) => this.tagLabel(tag);
    const lowest = (pick: (b: ReturnType<MetricsSources['buffers']>[number]) => number) => {
      const byLabel = new Map<string, number>();
      for (const b of s.buffers()) {
        const l = label(b.tag);
        const v = pick(b);
        byLabel.set(l, Math.min(v, byLabel.get(l) ?? v));
      }
      return byLabel;
    };
    new Gauge({
      name: 'idforge_segment_buffer_fill_ratio',
      help: 'Share of each segment buffer not yet served (current, next), by tag',
      labelNames: ['tag', 'buffer'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [tag, v] of lowest((b) => b.current ?? 0))
          this.set({ tag, buffer: 'current' }, v);
        for (const [tag, v] of lowest((b) => b.next ?? 0)) this.set({ tag, buffer: 'next' }, v);
      },
    });
    new Gauge({
      name: 'idforge_segment_buffer_remaining',
      help: 'Numbers left in both segment buffers, by tag',
      labelNames: ['tag'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [tag, v] of lowest((b) => b.remaining)) this.set({ tag }, v);
      },
    });
  }

  #child(key: string, make: () => { inc(n?: number): void }): { inc(n?: number): void } {
    let c = this.#children.get(key);
    if (c === undefined) {
      c = make();
      this.#children.set(key, c);
    }
    return c;
  }

  issued(scheme: string, n: number): void {
    this.#child(`ids ${scheme}`, () => this.#ids.labels(scheme)).inc(n);
  }

  /** Numbers of `tag` served one by one (after they were: the tag exists). */
  served(tag: string, n: number): void {
    const l = this.tagLabel(tag);
    this.#child(`seq ${l}`, () => this.#numbers.labels(l)).inc(n);
  }

  /** Numbers of `tag` handed out in a segment (after it was: the tag exists). */
  handedOut(tag: string, n: number): void {
    const l = this.tagLabel(tag);
    this.#child(`seg ${l}`, () => this.#segments.labels(l)).inc(n);
  }

  request(route: string, method: string, status: number, seconds: number): void {
    this.#child(`req ${route} ${method} ${status}`, () =>
      this.#requests.labels(route, method, String(status)),
    ).inc();
    let h = this.#latencyChildren.get(route);
    if (h === undefined) {
      h = this.#latency.labels(route);
      this.#latencyChildren.set(route, h);
    }
    h.observe(seconds);
  }

  /**
   * A store call for a block of `tag` settled after `seconds`, failing with `error` (undefined:
   * it succeeded). A success is observed under the tag's label; a store failure under the
   * tag's label if it has one (else `_other`) and counted in `idforge_store_errors_total`; any
   * other error (an unknown tag, an exhausted sequence) touches no metric.
   */
  segmentFetch(tag: string, seconds: number, error: unknown, store: string): void {
    let l: string;
    if (error === undefined) l = this.tagLabel(tag);
    else if (isStoreFailure(error)) {
      this.storeError(store, 'take-segment');
      l = this.#tracked.has(tag) ? tag : OTHER_TAG;
    } else return;
    let h = this.#fetchChildren.get(l);
    if (h === undefined) {
      h = this.#fetch.labels(l);
      this.#fetchChildren.set(l, h);
    }
    h.observe(seconds);
  }

  storeError(store: string, operation: string): void {
    this.#child(`err ${store} ${operation}`, () =>
      this.#storeErrors.labels(store, operation),
    ).inc();
  }

  rollbackRefused(): void {
    this.#refused.inc();
  }

  /** The exposition text and its content type. */
  async render(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
