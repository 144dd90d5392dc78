/**
 * Prometheus metrics (prom-client, one registry per service, names prefixed `idforge_`, plus
 * the default process metrics). Per-request series are counted in the hot path through cached
 * label children; node and buffer state is read when /metrics is scraped (no timers).
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { NodeMetrics, NodeReadiness } from '../coord/index.js';

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
    this.#nodeSeries(sources);
    this.#bufferSeries(sources);
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

  #bufferSeries(s: MetricsSources): void {
    new Gauge({
      name: 'idforge_segment_buffer_fill_ratio',
      help: 'Share of each segment buffer not yet served (current, next), by tag',
      labelNames: ['tag', 'buffer'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const b of s.buffers()) {
          this.set({ tag: b.tag, buffer: 'current' }, b.current ?? 0);
          this.set({ tag: b.tag, buffer: 'next' }, b.next ?? 0);
        }
      },
    });
    new Gauge({
      name: 'idforge_segment_buffer_remaining',
      help: 'Numbers left in both segment buffers, by tag',
      labelNames: ['tag'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const b of s.buffers()) this.set({ tag: b.tag }, b.remaining);
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

  served(tag: string, n: number): void {
    this.#child(`seq ${tag}`, () => this.#numbers.labels(tag)).inc(n);
  }

  handedOut(tag: string, n: number): void {
    this.#child(`seg ${tag}`, () => this.#segments.labels(tag)).inc(n);
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

  segmentFetch(tag: string, seconds: number, failed: boolean, store: string): void {
    this.#fetch.labels(tag).observe(seconds);
    if (failed) this.storeError(store, 'take-segment');
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
