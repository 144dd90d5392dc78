/**
 * The event-loop guard: how late a periodic timer fires, in milliseconds. A node whose loop
 * lags more than its limit answers 503 IDF_OVERLOADED so that clients go to another node
 * rather than queue behind it.
 *
 * Measured directly rather than as a histogram's mean over a window (as
 * `@fastify/under-pressure` does): a window in which the loop never turned has no samples,
 * and the plugin reads that as an infinite lag, so with a short window any stall longer than
 * the window (a GC pause, a loaded machine, a synchronous SQLite call) refused requests
 * whatever the configured limit. Here a stall of 300 ms reads as about 300 ms.
 */
import { performance } from 'node:perf_hooks';

/** How often the guard's timer is due. */
export const LAG_SAMPLE_MS = 100;

export class LoopLag {
  readonly limitMs: number;
  readonly #sampleMs: number;
  #timer: NodeJS.Timeout | undefined;
  #last = performance.now();
  #lagMs = 0;

  /** `limitMs`: the largest lag still served; `sampleMs`: the timer's period. */
  constructor(limitMs: number, sampleMs = LAG_SAMPLE_MS) {
    if (!(limitMs > 0)) throw new RangeError(`limitMs must be > 0, got ${limitMs}`);
    this.limitMs = limitMs;
    this.#sampleMs = sampleMs;
  }

  /** Starts the timer (unref'd: it never keeps the process alive). Idempotent. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#last = performance.now();
    this.#lagMs = 0;
    this.#timer = setInterval(() => {
      const now = performance.now();
      this.#lagMs = Math.max(0, now - this.#last - this.#sampleMs);
      this.#last = now;
    }, this.#sampleMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * The lag: how late the timer's last turn came, or how overdue its next one is now,
   * whichever is more. The second term matters right after a stall: requests queued during
   * it are read in the same loop turn, before the timer runs.
   */
  get lagMs(): number {
    return this.lagAt(performance.now());
  }

  /** {@link lagMs} at `now` (a `performance.now()` the caller has just read). */
  lagAt(now: number): number {
    if (this.#timer === undefined) return 0;
    return Math.max(this.#lagMs, now - this.#last - this.#sampleMs);
  }

  /** Whether the lag is above the limit. */
  get overloaded(): boolean {
    return this.lagMs > this.limitMs;
  }
}
