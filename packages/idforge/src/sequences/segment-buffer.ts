/**
 * A buffered sequence over a {@link BlockSource}: two segments in memory ("double buffering",
 * as in Meituan Leaf), a synchronous fast path, and a step that adapts to consumption.
 *
 *   current [first ........ trigger ............ last]   next [first ... last] (or loading)
 *            ^ served from here, one increment per ID
 *   when number `first + floor(size x prefetchAt)` is handed out (default 10% of the
 *   segment), the next one is fetched in the background; when the current one runs out, the
 *   next becomes current.
 *
 * Dynamic step: each fetch compares how long the previous segment lasted with `targetMs`:
 * shorter → the step doubles (up to `maxStep`); more than twice as long → it halves (down to
 * `minStep`, the stored step). A burst therefore grows the segments within a few fetches.
 *
 * The two buffers, the prefetch trigger, the back-off after a failed fetch and close are the
 * double buffer's (./double-buffer.ts), shared with the service client's sequences; this class
 * adds the dynamic step, the fetch events and the store's errors.
 *
 * Failure: while buffers last, a store outage is invisible. When both are empty a request
 * waits for the fetch in flight, at most `fetchTimeoutMs` (through failed fetches), then
 * rejects with the source's typed error (`StoreUnavailableError` naming the store). After a
 * failed fetch the next one waits for a bounded, jittered exponential back-off (default
 * 25-50 ms, growing to 0.5-1 s), whoever asks for it: waiting requests sleep on a timer
 * meanwhile and never start fetches of their own, so a store that fails at once (a refused
 * connection, a synchronous driver) costs a few attempts per second and never starves the
 * event loop; the buffer refills by itself within about a second of the store's return.
 *
 * Exhaustion is not an outage: once the source rejects with `SequenceExhaustedError` (the tag
 * has no room left below 2^63 - 1) the buffer fetches nothing by itself, no back-off and no
 * background retry. What is buffered is still served; then each request that finds both
 * buffers empty asks the source once more (concurrent ones share that call) and, if it is
 * still exhausted, rejects with the error at once.
 *
 * Observing: `stats` (counters), `snapshot()` (the two buffers, for a dashboard) and the
 * `onFetch` option (each fetch's duration and error, for metrics); none does I/O. When the
 * stored step changes, `setMinStep` makes later fetches follow.
 *
 * Numbers are unique across every process sharing the store (the store hands out disjoint
 * blocks) and increasing within one buffer. A restart wastes the rest of the segments it
 * held: by design, the price of never asking the store per ID.
 */
import { StoreUnavailableError } from '../core/internal.js';
import { DoubleBuffer } from './double-buffer.js';
import { SequenceExhaustedError } from './errors.js';
import type { BlockSource, NumberRange } from './ports.js';
import type {
  SegmentBufferOptions,
  SegmentBufferSnapshot,
  SegmentBufferStats,
} from './segment-buffer-types.js';

export class SegmentBuffer {
  readonly tag: string;
  readonly #source: BlockSource;
  readonly #buffer: DoubleBuffer;
  #minStep: number;
  #maxStep: number;
  readonly #dynamic: boolean;
  readonly #targetMs: number;
  readonly #now: () => number;
  readonly #onFetch: SegmentBufferOptions['onFetch'];
  #step: number;
  #lastFetchAt = Number.NaN;
  // The fetch in flight (one at a time): when it started and the size it asked for.
  #fetchStarted = 0;
  #fetchSize = 0;

  constructor(options: SegmentBufferOptions) {
    this.tag = options.tag;
    this.#source = options.source;
    this.#minStep = positive('minStep', options.minStep);
    this.#maxStep = positive('maxStep', options.maxStep ?? Math.max(this.#minStep, 1_000_000));
    if (this.#maxStep < this.#minStep) throw new RangeError('SegmentBuffer: maxStep < minStep');
    this.#dynamic = options.dynamicStep ?? true;
    this.#targetMs = positive('targetMs', options.targetMs ?? 60_000);
    const prefetchAt = options.prefetchAt ?? 0.1;
    if (!(prefetchAt >= 0 && prefetchAt < 1)) {
      throw new RangeError(`SegmentBuffer prefetchAt: expected [0, 1), got ${prefetchAt}`);
    }
    const timeoutMs = positive('fetchTimeoutMs', options.fetchTimeoutMs ?? 3000);
    this.#now = options.now ?? (() => performance.now());
    this.#onFetch = options.onFetch;
    this.#step = this.#minStep;
    const backend = options.backend ?? 'sequence';
    const address = options.address ?? options.tag;
    const reason = `fetching a block for "${this.tag}" (no answer within ${timeoutMs} ms)`;
    this.#buffer = new DoubleBuffer({
      fetch: () => this.#fetch(),
      prefetchAt,
      backoff: options.backoff ?? { initialMs: 50, maxMs: 1000 },
      // Exhaustion is no outage: asking in the background would only be refused again.
      isFinal: (error) => error instanceof SequenceExhaustedError,
      waitThroughFailures: true,
      bound: {
        ms: timeoutMs,
        now: this.#now,
        error: () => new StoreUnavailableError(backend, address, reason),
      },
      closedError: () => new Error(`sequence "${this.tag}" is closed`),
      settled: (failed, error) => this.#report(failed, error),
    });
  }

  /**
   * The next number if one is buffered, else undefined (then use {@link next}). Synchronous,
   * no promise: the hot path is a compare and an increment.
   */
  tryNext(): bigint | undefined {
    return this.#buffer.tryNext();
  }

  /** The next number; waits on the store only when both buffers are empty. */
  next(): Promise<bigint> {
    return this.#buffer.next();
  }

  /** `count` numbers, increasing; waits on the store as often as needed. */
  async nextBatch(count: number): Promise<bigint[]> {
    if (!Number.isInteger(count) || count < 0 || count > 2 ** 24) {
      throw new RangeError(`nextBatch count: expected an integer in [0, 2^24], got ${count}`);
    }
    return this.#buffer.batch(count);
  }

  /**
   * Loads the first segment so the first request does not wait (and, with prefetchAt 0,
   * starts the second).
   */
  warm(): Promise<void> {
    return this.#buffer.warm();
  }

  get stats(): SegmentBufferStats {
    const c = this.#buffer.counts;
    return {
      tag: this.tag,
      served: c.served,
      fetches: c.received,
      fetchFailures: c.failures,
      failingStreak: c.failingStreak,
      waits: c.waits,
      step: this.#step,
    };
  }

  /**
   * What the buffer holds now: the current segment and its next number, the second buffer,
   * whether a fetch is in flight, the step. A copy, taken without I/O; cheap enough per scrape.
   */
  snapshot(): SegmentBufferSnapshot {
    return { tag: this.tag, ...this.#buffer.view(), step: this.#step };
  }

  /**
   * The stored step changed (`SegmentStore.setStep`): later fetches ask for at least `step`,
   * and the dynamic step never goes below it. maxStep is raised to `step` if below it (never
   * lowered). A lower minimum lets the dynamic step halve down to it (without the dynamic step,
   * the step becomes `step` at once). Segments held or in flight are kept as they are. Throws
   * `RangeError` when `step` is not a positive number, as the constructor's `minStep`.
   */
  setMinStep(step: number): void {
    this.#minStep = positive('minStep', step);
    if (this.#maxStep < step) this.#maxStep = step;
    if (this.#step < step || !this.#dynamic) this.#step = step;
  }

  /**
   * Stops background retries and ends waiting requests. Buffered numbers are dropped (wasted,
   * never reissued).
   */
  close(): void {
    this.#buffer.close();
  }

  /** One fetch from the store, of the step (the double buffer starts one at a time). */
  #fetch(): Promise<NumberRange> {
    this.#fetchStarted = this.#now();
    this.#fetchSize = this.#nextStep(this.#fetchStarted);
    return this.#source(this.#fetchSize);
  }

  /** Tells `onFetch`, if any, how a fetch went; whatever the callback does stays with it. */
  #report(failed: boolean, error: unknown): void {
    const onFetch = this.#onFetch;
    if (onFetch === undefined) return;
    const ms = this.#now() - this.#fetchStarted;
    const size = this.#fetchSize;
    try {
      const r: unknown = onFetch(
        failed ? { tag: this.tag, ms, size, error } : { tag: this.tag, ms, size },
      );
      if (r instanceof Promise) r.catch(() => undefined);
    } catch {
      // Ignored: a metrics callback must never break the sequence.
    }
  }

  /** Leaf's rule: compare the previous segment's lifetime with the target. */
  #nextStep(now: number): number {
    const lasted = now - this.#lastFetchAt;
    this.#lastFetchAt = now;
    if (!this.#dynamic || Number.isNaN(lasted)) return this.#step;
    if (lasted < this.#targetMs) this.#step = Math.min(this.#step * 2, this.#maxStep);
    else if (lasted > 2 * this.#targetMs) this.#step = Math.max(this.#step / 2, this.#minStep);
    this.#step = Math.floor(this.#step);
    return this.#step;
  }
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`SegmentBuffer ${name}: expected a positive number, got ${value}`);
  }
  return value;
}
