/**
 * A buffered sequence over a {@link BlockSource}: two segments in memory ("double buffering",
 * as in Meituan Leaf), a synchronous fast path, and a step that adapts to consumption.
 *
 *   current [first ........ trigger ............ last]   next [first ... last] (or loading)
 *            ^ served from here, one increment per ID
 *   when the current segment is `prefetchAt` used (default 10%), the next one is fetched in
 *   the background; when the current one runs out, the next becomes current.
 *
 * Dynamic step: each fetch compares how long the previous segment lasted with `targetMs`:
 * shorter → the step doubles (up to `maxStep`); more than twice as long → it halves (down to
 * `minStep`, the stored step). A burst therefore grows the segments within a few fetches.
 *
 * Failure: while buffers last, a store outage is invisible. When both are empty a request
 * waits for the fetch in flight, at most `fetchTimeoutMs`, then rejects with the source's
 * typed error (`StoreUnavailableError` naming the store). After a failed fetch the next one
 * waits for a bounded, jittered exponential back-off (default 25-50 ms, growing to 0.5-1 s), whoever
 * asks for it: waiting requests sleep on a timer meanwhile and never start fetches of their own,
 * so a store that fails at once (a refused connection, a synchronous driver) costs a few
 * attempts per second and never starves the event loop; the buffer refills by itself within
 * about a second of the store's return.
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
import { Backoff, RunningDeadline, StoreUnavailableError } from '../core/internal.js';
import { SequenceExhaustedError } from './errors.js';
import type { BlockSource, NumberRange } from './ports.js';
import type {
  SegmentBufferOptions,
  SegmentBufferSnapshot,
  SegmentBufferStats,
  SegmentFetchEvent,
} from './segment-buffer-types.js';

const EMPTY = -1n;

export class SegmentBuffer {
  readonly tag: string;
  readonly #source: BlockSource;
  #minStep: number;
  #maxStep: number;
  readonly #dynamic: boolean;
  readonly #targetMs: number;
  readonly #prefetchAt: number;
  readonly #timeoutMs: number;
  readonly #backend: string;
  readonly #address: string;
  readonly #now: () => number;
  readonly #onFetch: ((event: SegmentFetchEvent) => void) | undefined;
  // The current segment [#first, #last]: #cur is the next number; #trigger starts the fetch.
  #cur = 0n;
  #first = 0n;
  #last = EMPTY;
  #trigger = EMPTY;
  #next: NumberRange | null = null;
  #loading: Promise<void> | null = null;
  #lastError: unknown = null;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #backoff: Backoff;
  // After a failure no fetch starts until the back-off timer fires, whoever asks.
  #coolingDown = false;
  // The source said the sequence is exhausted: nothing is fetched until a request asks.
  #exhausted = false;
  // Resolved (and replaced) whenever a fetch settles or the buffer closes: what waiters await.
  #changed!: Promise<void>;
  #notify!: () => void;
  #step: number;
  #lastFetchAt = Number.NaN;
  #servedBase = 0n;
  #fetches = 0;
  #fetchFailures = 0;
  #waits = 0;
  #closed = false;

  constructor(options: SegmentBufferOptions) {
    this.tag = options.tag;
    this.#source = options.source;
    this.#minStep = positive('minStep', options.minStep);
    this.#maxStep = positive('maxStep', options.maxStep ?? Math.max(this.#minStep, 1_000_000));
    if (this.#maxStep < this.#minStep) throw new RangeError('SegmentBuffer: maxStep < minStep');
    this.#dynamic = options.dynamicStep ?? true;
    this.#targetMs = positive('targetMs', options.targetMs ?? 60_000);
    this.#prefetchAt = options.prefetchAt ?? 0.1;
    if (!(this.#prefetchAt >= 0 && this.#prefetchAt < 1)) {
      throw new RangeError(`SegmentBuffer prefetchAt: expected [0, 1), got ${this.#prefetchAt}`);
    }
    this.#timeoutMs = positive('fetchTimeoutMs', options.fetchTimeoutMs ?? 3000);
    this.#backend = options.backend ?? 'sequence';
    this.#address = options.address ?? options.tag;
    this.#now = options.now ?? (() => performance.now());
    this.#onFetch = options.onFetch;
    this.#step = this.#minStep;
    this.#backoff = new Backoff(options.backoff ?? { initialMs: 50, maxMs: 1000 });
    this.#renewSignal();
  }

  #renewSignal(): void {
    this.#changed = new Promise((resolve) => {
      this.#notify = resolve;
    });
  }

  #signal(): void {
    const notify = this.#notify;
    this.#renewSignal();
    notify();
  }

  /**
   * The next number if one is buffered, else undefined (then use {@link next}). Synchronous,
   * no promise: the hot path is a compare and an increment.
   */
  tryNext(): bigint | undefined {
    const c = this.#cur;
    if (c <= this.#last) {
      this.#cur = c + 1n;
      // REF: bench/sequences (warm segment): one compare against a precomputed trigger.
      if (c === this.#trigger) this.#prefetch();
      return c;
    }
    return this.#swap();
  }

  /** The next number; waits on the store only when both buffers are empty. */
  next(): Promise<bigint> {
    const v = this.tryNext();
    if (v !== undefined) return Promise.resolve(v);
    return this.#waitAndTake();
  }

  /** `count` numbers, increasing; waits on the store as often as needed. */
  async nextBatch(count: number): Promise<bigint[]> {
    if (!Number.isInteger(count) || count < 0 || count > 2 ** 24) {
      throw new RangeError(`nextBatch count: expected an integer in [0, 2^24], got ${count}`);
    }
    const out: bigint[] = [];
    while (out.length < count) {
      const v = this.tryNext();
      if (v !== undefined) out.push(v);
      else out.push(await this.#waitAndTake());
    }
    return out;
  }

  /** Loads the first segment (and starts the second) so the first request does not wait. */
  async warm(): Promise<void> {
    if (this.#cur <= this.#last) return;
    if (this.#next === null) await this.#fetch(new RunningDeadline(this.#timeoutMs, this.#now));
    if (!this.#install()) throw this.#failure();
  }

  get stats(): SegmentBufferStats {
    return {
      tag: this.tag,
      served: this.#servedBase + this.#servedInCurrent(),
      fetches: this.#fetches,
      fetchFailures: this.#fetchFailures,
      failingStreak: this.#backoff.attempts,
      waits: this.#waits,
      step: this.#step,
    };
  }

  #servedInCurrent(): bigint {
    return this.#last === EMPTY ? 0n : this.#cur - this.#first;
  }

  /**
   * What the buffer holds now: the current segment and its next number, the second buffer,
   * whether a fetch is in flight, the step. A copy, taken without I/O; cheap enough per scrape.
   */
  snapshot(): SegmentBufferSnapshot {
    const n = this.#next;
    return {
      tag: this.tag,
      current:
        this.#cur <= this.#last ? { first: this.#first, last: this.#last, next: this.#cur } : null,
      next: n === null ? null : { first: n.first, last: n.last },
      loading: this.#loading !== null,
      step: this.#step,
    };
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

  /** Stops background retries. Buffered numbers are dropped (wasted, never reissued). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#retryTimer);
    this.#signal();
  }

  /** The current segment is used up: move to the next one if it is there. */
  #swap(): bigint | undefined {
    if (!this.#install()) {
      if (this.#loading === null && !this.#closed) this.#prefetch();
      return undefined;
    }
    return this.tryNext();
  }

  /** Makes the next segment current; false when there is none. */
  #install(): boolean {
    const n = this.#next;
    if (n === null) return false;
    this.#servedBase += this.#servedInCurrent();
    this.#next = null;
    this.#cur = n.first;
    this.#first = n.first;
    this.#last = n.last;
    const size = n.last - n.first + 1n;
    this.#trigger = n.first + (size * BigInt(Math.round(this.#prefetchAt * 1000))) / 1000n;
    if (this.#trigger > n.last) this.#trigger = n.last;
    if (this.#prefetchAt === 0) this.#prefetch();
    return true;
  }

  async #waitAndTake(): Promise<bigint> {
    this.#waits++;
    // Counted in time this process ran: a pause (SIGSTOP, a VM stall) is not the store's fault.
    const deadline = new RunningDeadline(this.#timeoutMs, this.#now);
    let asked = false;
    for (;;) {
      const v = this.tryNext();
      if (v !== undefined) return v;
      if (this.#exhausted) {
        // Exhausted: this request asks the source once more, and only once.
        if (asked) throw this.#failure();
        asked = true;
        this.#exhausted = false;
      }
      if (deadline.left() <= 0 || this.#closed) throw this.#failure();
      await this.#fetch(deadline);
    }
  }

  #failure(): unknown {
    if (this.#closed) return new Error(`sequence "${this.tag}" is closed`);
    return (
      this.#lastError ??
      new StoreUnavailableError(
        this.#backend,
        this.#address,
        `fetching a block for "${this.tag}" (no answer within ${this.#timeoutMs} ms)`,
      )
    );
  }

  /**
   * Waits, until `deadline`, for the fetch in flight to settle: one started now, or, during a
   * back-off, the one its timer starts (a timer, so the event loop runs meanwhile). The wait
   * ends after the event loop has read its sockets (see RunningDeadline), so after a pause an
   * answer already received does not lose to its own deadline.
   */
  async #fetch(deadline: RunningDeadline): Promise<void> {
    if (this.#loading === null) this.#prefetch();
    await deadline.race(this.#changed);
  }

  /** Starts fetching the next block in the background, unless one is loaded or loading. */
  #prefetch(): void {
    if (
      this.#next !== null ||
      this.#loading !== null ||
      this.#closed ||
      this.#coolingDown ||
      this.#exhausted
    ) {
      return;
    }
    const started = this.#now();
    const size = this.#nextStep(started);
    this.#loading = this.#source(size).then(
      (block) => {
        this.#fetches++;
        this.#next = { first: block.first, last: block.last };
        this.#lastError = null;
        this.#backoff.reset();
        this.#loading = null;
        this.#signal();
        this.#report(started, size, false, undefined);
      },
      (error: unknown) => {
        this.#fetchFailures++;
        this.#lastError = error;
        this.#loading = null;
        if (error instanceof SequenceExhaustedError) this.#exhausted = true;
        else this.#scheduleRetry();
        this.#signal();
        this.#report(started, size, true, error);
      },
    );
  }

  /** Tells `onFetch`, if any, how a fetch went; whatever the callback does stays with it. */
  #report(started: number, size: number, failed: boolean, error: unknown): void {
    const onFetch = this.#onFetch;
    if (onFetch === undefined) return;
    const ms = this.#now() - started;
    try {
      const r: unknown = onFetch(
        failed ? { tag: this.tag, ms, size, error } : { tag: this.tag, ms, size },
      );
      if (r instanceof Promise) r.catch(() => undefined);
    } catch {
      // Ignored: a metrics callback must never break the sequence.
    }
  }

  /** The next fetch after a failure, and only it, starts when the back-off timer fires. */
  #scheduleRetry(): void {
    if (this.#closed) return;
    this.#coolingDown = true;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      this.#coolingDown = false;
      this.#prefetch();
    }, this.#backoff.next());
    // Waiting requests hold their own timers; an idle buffer must not keep the process alive.
    this.#retryTimer.unref?.();
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
