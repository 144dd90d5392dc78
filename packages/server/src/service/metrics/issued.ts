/**
 * The IDs issued since start, by scheme: counted once per answer, here, for both places that
 * show them (`/v1/status`'s `issued` and Prometheus' `idforge_ids_issued_total`).
 */
import type { CountSlot } from './hot-series.js';
import type { ServiceMetrics } from './metrics.js';

/** IDs issued per scheme by one app. Holds state; one per app. */
export class IssuedIds {
  readonly #metrics: ServiceMetrics;
  /** Each scheme's count and its metric series, found once (add runs on every answer). */
  readonly #counts = new Map<string, { n: number; series: CountSlot }>();

  constructor(metrics: ServiceMetrics) {
    this.#metrics = metrics;
  }

  /** `n` IDs of `scheme` were handed out. */
  add(scheme: string, n: number): void {
    let c = this.#counts.get(scheme);
    if (c === undefined) {
      c = { n: 0, series: this.#metrics.issuedSeries(scheme) };
      this.#counts.set(scheme, c);
    }
    c.n += n;
    c.series.n += n;
  }

  /** A copy of the counts: scheme to IDs issued. */
  counts(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [scheme, c] of this.#counts) out[scheme] = c.n;
    return out;
  }
}
