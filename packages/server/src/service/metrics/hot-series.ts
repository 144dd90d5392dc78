/**
 * The metric series moved on every request (requests by route, method and status, their
 * latency by route, IDs issued by scheme), kept as plain numbers a request adds to and read
 * by prom-client only when /metrics is scraped. A prom-client child's `inc()` or `observe()`
 * hashes its label values into a key on every call; under load that was a microsecond and a
 * half per call, three calls per request, more than minting the ID. The exposition is the one
 * prom-client writes for a counter and a histogram of these names and labels.
 * REF: bench/service (count=1 through the fast lane, prom-client children against these).
 */
import type { Counter, Registry } from 'prom-client';

/** One labelled series of a counter: add to `n`; the scrape moves it into prom-client. */
export interface CountSlot {
  n: number;
}

/**
 * A prom-client counter's hot series: each a slot a caller keeps and adds to, moved into the
 * counter (`inc` by what was added since) when the counter is collected.
 */
export class HotCounter<L extends string> {
  readonly #counter: Counter<L>;
  readonly #slots = new Map<string, { labels: Record<L, string>; slot: CountSlot; seen: number }>();

  constructor(counter: Counter<L>) {
    this.#counter = counter;
  }

  /** The slot of the series with `labels` (made on first use: a series exists once counted). */
  slot(key: string, labels: Record<L, string>): CountSlot {
    let s = this.#slots.get(key);
    if (s === undefined) {
      s = { labels, slot: { n: 0 }, seen: 0 };
      this.#slots.set(key, s);
    }
    return s.slot;
  }

  /** Moves what the slots gained into the counter (its `collect`). */
  flush(): void {
    for (const s of this.#slots.values()) {
      const d = s.slot.n - s.seen;
      if (d > 0 || s.seen === 0) this.#counter.inc(s.labels as never, d);
      s.seen = s.slot.n;
    }
  }
}

/** One series of the latency histogram: bucket counts (not cumulative), sum and count. */
export interface LatencySlot {
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/** Adds one observation of `seconds` to `slot`, whose buckets are `bounds`. */
export function observe(slot: LatencySlot, bounds: readonly number[], seconds: number): void {
  let i = 0;
  while (i < bounds.length && seconds > (bounds[i] as number)) i++;
  if (i < bounds.length) (slot.buckets[i] as number)++;
  slot.sum += seconds;
  slot.count++;
}

/**
 * A histogram with one label, `label`, as a metric of the registry: the same exposition as a
 * prom-client Histogram (cumulative `_bucket` series with `le` first, `+Inf`, `_sum`,
 * `_count`), and aggregated across processes by sum, as prom-client's are.
 */
export class HotHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #label: string;
  readonly #bounds: readonly number[];
  readonly #slots = new Map<string, LatencySlot>();

  constructor(
    registry: Registry,
    options: { name: string; help: string; label: string; bounds: readonly number[] },
  ) {
    this.name = options.name;
    this.help = options.help;
    this.#label = options.label;
    this.#bounds = options.bounds;
    registry.registerMetric(this as never);
  }

  get bounds(): readonly number[] {
    return this.#bounds;
  }

  /** The series of `value` (made on first use). */
  slot(value: string): LatencySlot {
    let s = this.#slots.get(value);
    if (s === undefined) {
      s = { buckets: new Float64Array(this.#bounds.length), sum: 0, count: 0 };
      this.#slots.set(value, s);
    }
    return s;
  }

  /** prom-client's metric interface: the series, as a Histogram's get() gives them. */
  async get() {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] =
      [];
    const bucket = `${this.name}_bucket`;
    for (const [v, s] of this.#slots) {
      let acc = 0;
      for (let i = 0; i < this.#bounds.length; i++) {
        acc += s.buckets[i] as number;
        values.push({
          labels: { le: this.#bounds[i] as number, [this.#label]: v },
          value: acc,
          metricName: bucket,
        });
      }
      values.push({ labels: { le: '+Inf', [this.#label]: v }, value: s.count, metricName: bucket });
      values.push({ labels: { [this.#label]: v }, value: s.sum, metricName: `${this.name}_sum` });
      values.push({
        labels: { [this.#label]: v },
        value: s.count,
        metricName: `${this.name}_count`,
      });
    }
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values,
      aggregator: this.aggregator,
    };
  }

  /** Forgets every series (prom-client's Registry.resetMetrics). */
  reset(): void {
    this.#slots.clear();
  }
}
