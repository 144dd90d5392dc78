/**
 * The IDs issued since start, by scheme: counted once per answer, here, for both places that
 * show them (`/v1/status`'s `issued` and Prometheus' `idforge_ids_issued_total`).
 */
import type { ServiceMetrics } from './metrics.js';

/** IDs issued per scheme by one app. Holds state; one per app. */
export class IssuedIds {
  readonly #metrics: ServiceMetrics;
  readonly #counts: Record<string, number> = {};

  constructor(metrics: ServiceMetrics) {
    this.#metrics = metrics;
  }

  /** `n` IDs of `scheme` were handed out. */
  add(scheme: string, n: number): void {
    this.#counts[scheme] = (this.#counts[scheme] ?? 0) + n;
    this.#metrics.issued(scheme, n);
  }

  /** A copy of the counts: scheme to IDs issued. */
  counts(): Record<string, number> {
    return { ...this.#counts };
  }
}
