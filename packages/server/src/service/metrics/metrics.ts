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
import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type MetricObjectWithValues,
  type MetricValue,
  Registry,
} from 'prom-client';
import { isCallerError } from '../http/errors.js';
import {
  type CountSlot,
  HotCounter,
  HotHistogram,
  type LatencySlot,
  observe,
} from './hot-series.js';
import { bufferSeries, divergenceGauge, type MetricsSources, nodeSeries } from './scrape-series.js';

/**
 * The most tags with series of their own per process (each costs about 20 series: the fetch
 * histogram's 15, two fill ratios, remaining, two counters): 256 tags, about 5,000 lines.
 * With Redis counters, where any tag is a counter, it also bounds the buffers a node keeps
 * (src/service/domain/sequences.ts).
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

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** A counter registered in `r`, with its labels (and what to do before each scrape). */
function counter<L extends string>(
  r: Registry,
  name: string,
  help: string,
  labelNames: L[],
  collect?: () => void,
) {
  return new Counter<L>({
    name,
    help,
    labelNames,
    registers: [r],
    ...(collect ? { collect } : {}),
  });
}

/** A counter registered in `r`, its series kept as plain numbers until a scrape (hot-series.ts). */
function hotCounter<L extends string>(r: Registry, name: string, help: string, labelNames: L[]) {
  const hot: HotCounter<L> = new HotCounter(counter(r, name, help, labelNames, () => hot.flush()));
  return hot;
}

/** A latency histogram registered in `r`, with its labels. */
function histogram<L extends string>(r: Registry, name: string, help: string, labelNames: L[]) {
  return new Histogram<L>({ name, help, labelNames, buckets: LATENCY_BUCKETS, registers: [r] });
}

/** How many tags have series of their own, read at scrape time. */
function trackedTagsGauge(r: Registry, tracked: ReadonlySet<string>): void {
  new Gauge({
    name: 'idforge_metric_tags',
    help: `Tags with series of their own (at most ${MAX_TRACKED_TAGS}; later ones are tag="${OTHER_TAG}")`,
    registers: [r],
    collect() {
      this.set(tracked.size);
    },
  });
}

/** Holds the registry and every metric. One per service. */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #ids: HotCounter<'scheme'>;
  readonly #numbers: HotCounter<'tag'>;
  readonly #segments: Counter<'tag'>;
  readonly #requests: HotCounter<'route' | 'method' | 'status'>;
  readonly #latency: HotHistogram;
  readonly #fetch: Histogram<'tag'>;
  readonly #storeErrors: Counter<'store' | 'operation'>;
  readonly #refused: Counter<never>;
  readonly #children = new Map<string, { inc(n?: number): void }>();
  readonly #fetchChildren = new Map<string, { observe(v: number): void }>();
  // The tags with series of their own (at most MAX_TRACKED_TAGS), never removed.
  readonly #tracked = new Set<string>();

  constructor(sources: MetricsSources) {
    const r = this.registry;
    collectDefaultMetrics({ register: r });
    this.#ids = hotCounter(r, 'idforge_ids_issued_total', 'IDs issued, by scheme', ['scheme']);
    // Leaf's segment route moves it on every request, as the requests move #requests.
    this.#numbers = hotCounter(
      r,
      'idforge_sequence_numbers_issued_total',
      'Sequence numbers served one by one, by tag',
      ['tag'],
    );
    this.#segments = counter(
      r,
      'idforge_segment_numbers_handed_out_total',
      'Numbers handed to clients in whole segments, by tag',
      ['tag'],
    );
    this.#requests = hotCounter(
      r,
      'idforge_http_requests_total',
      'HTTP requests, by route, method and status',
      ['route', 'method', 'status'],
    );
    this.#latency = new HotHistogram(r, {
      name: 'idforge_http_request_duration_seconds',
      help: 'Time from request to response, by route',
      label: 'route',
      bounds: LATENCY_BUCKETS,
    });
    this.#fetch = histogram(
      r,
      'idforge_segment_fetch_duration_seconds',
      'Time to take a segment from the store, by tag',
      ['tag'],
    );
    this.#storeErrors = counter(
      r,
      'idforge_store_errors_total',
      'Failed store operations, by store and operation',
      ['store', 'operation'],
    );
    this.#refused = counter(
      r,
      'idforge_clock_rollbacks_refused_total',
      'Requests refused because the clock stepped back beyond the tolerance',
      [],
    );
    trackedTagsGauge(r, this.#tracked);
    nodeSeries(r, sources);
    bufferSeries(r, sources, (tag) => this.tagLabel(tag));
    divergenceGauge(r, sources);
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

  #child(key: string, make: () => { inc(n?: number): void }): { inc(n?: number): void } {
    let c = this.#children.get(key);
    if (c === undefined) {
      c = make();
      this.#children.set(key, c);
    }
    return c;
  }

  /** The series of `idforge_ids_issued_total` for `scheme`, to add to (made on first use). */
  issuedSeries(scheme: string): CountSlot {
    return this.#ids.slot(scheme, { scheme });
  }

  /** Numbers of `tag` served one by one (after they were: the tag exists). */
  served(tag: string, n: number): void {
    const l = this.tagLabel(tag);
    this.#numbers.slot(l, { tag: l }).n += n;
  }

  /** Numbers of `tag` handed out in a segment (after it was: the tag exists). */
  handedOut(tag: string, n: number): void {
    const l = this.tagLabel(tag);
    this.#child(`seg ${l}`, () => this.#segments.labels(l)).inc(n);
  }

  request(route: string, method: string, status: number, seconds: number): void {
    this.#requestCount(route, method, status).n++;
    observe(this.#latency.slot(route), this.#latency.bounds, seconds);
  }

  /** {@link request} for one route, method and status, its series found once (on the first call). */
  recorder(route: string, method: string, status: number): (seconds: number) => void {
    let count: CountSlot | undefined;
    let latency: LatencySlot | undefined;
    return (seconds) => {
      count ??= this.#requestCount(route, method, status);
      latency ??= this.#latency.slot(route);
      count.n++;
      observe(latency, this.#latency.bounds, seconds);
    };
  }

  #requestCount(route: string, method: string, status: number): CountSlot {
    return this.#requests.slot(`${route} ${method} ${status}`, {
      route,
      method,
      status: String(status),
    });
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

  /**
   * Every metric as prom-client's JSON, for one process of `--processes N`: its gauges (a
   * figure of that process: a worker ID, a deadline, a heap size) get the label
   * `process="INDEX"`, so the node's /metrics keeps them apart, while counters and histograms
   * are summed across processes ({@link aggregateMetrics}).
   */
  async json(processIndex: number): Promise<MetricObjectWithValues<MetricValue<string>>[]> {
    const process = String(processIndex);
    // Copies: the JSON shares its label objects with the live metrics.
    return (await this.registry.getMetricsAsJSON()).map((m) =>
      String(m.type) !== 'gauge'
        ? m
        : { ...m, values: m.values.map((v) => ({ ...v, labels: { ...v.labels, process } })) },
    );
  }
}

/**
 * The exposition text of a whole `--processes N` node from each process's {@link
 * ServiceMetrics.json}: series with the same name and labels summed (prom-client's
 * aggregation), the per-process gauges kept apart by their `process` label.
 */
export async function aggregateMetrics(
  parts: readonly MetricObjectWithValues<MetricValue<string>>[][],
): Promise<{ body: string; contentType: string }> {
  const r = AggregatorRegistry.aggregate(parts as never);
  return { body: await r.metrics(), contentType: r.contentType };
}
