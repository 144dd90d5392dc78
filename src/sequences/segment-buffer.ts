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
 * Numbers are unique across every process sharing the store (the store hands out disjoint
 * blocks) and increasing within one buffer. A restart wastes the rest of the segments it
 * held: by design, the price of never asking the store per ID.
 */
import { StoreUnavailableError } from '../core/index.js';
import { Backoff, type BackoffOptions } from '../core/internal.js';
import type { BlockSource } from './ports.js';

/** Options of {@link SegmentBuffer}. Times in ms. */
export interface SegmentBufferOptions {
  /** Name for errors and metrics (the business tag). */
  readonly tag: string;
  readonly source: BlockSource;
  /** The smallest and first step (the stored step of a segment tag). */
  readonly minStep: number;
  /** Largest dynamic step. Default max(minStep, 1,000,000). */
  readonly maxStep?: number;
  /** Adapt the step to consumption. Default true. */
  readonly dynamicStep?: boolean;
  /** How long a segment should last. Default 60,000 (1 min). */
  readonly targetMs?: number;
  /** Share of the current segment used that starts the background fetch. Default 0.1. */
  readonly prefetchAt?: number;
  /** A request waiting on an empty buffer gives up after this. Default 3000. */
  readonly fetchTimeoutMs?: number;
  /** Store named in a timeout error. */
  readonly backend?: string;
  readonly address?: string;
  /** Monotonic milliseconds, for segment durations. Default performance.now. */
  readonly now?: () => number;
  /** Delays between failed fetches. Default { initialMs: 50, maxMs: 1000 } (jittered). */
  readonly backoff?: BackoffOptions;
}

/** Counters of a {@link SegmentBuffer}. */
export interface SegmentBufferStats {
  readonly tag: string;
  /** Numbers handed out. */
  readonly served: bigint;
  /** Blocks taken from the store (each one round trip). */
  readonly fetches: number;
  readonly fetchFailures: number;
  /** Failed fetches since the last success (0 while the store answers). */
  readonly failingStreak: number;
  /** Requests that found both buffers empty and had to wait on the store. */
  readonly waits: number;
  /** The step the next fetch asks for. */
  readonly step: number;
}

interface Block {
  first: bigint;
  last: bigint;
}

const EMPTY = -1n;

export class SegmentBuffer {
  readonly tag: string;
  readonly #source: BlockSource;
  readonly #minStep: number;
  readonly #maxStep: number;
  readonly #dynamic: boolean;
  readonly #targetMs: number;
  readonly #prefetchAt: number;
  readonly #timeoutMs: number;
  readonly #backend: string;
  readonly #address: string;
  readonly #now: () => number;
  // The current segment: #cur is the next number, #last the last; #trigger starts the fetch.
  #cur = 0n;
  #last = EMPTY;
  #trigger = EMPTY;
  #next: Block | null = null;
  #loading: Promise<void> | null = null;
  #lastError: unknown = null;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #backoff: Backoff;
  // After a failure no fetch starts until the back-off timer fires, whoever asks.
  #coolingDown = false;
  // Resolved (and replaced) whenever a fetch settles or the buffer closes: what waiters await.
  #changed!: Promise<void>;
  #notify!: () => void;
  #step: number;
  #lastFetchAt = Number.NaN;
  #served = 0n;
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
    if (this.#next === null) await this.#fetch(this.#timeoutMs);
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
    return this.#last === EMPTY ? 0n : this.#cur - this.#served;
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
    this.#served = n.first;
    this.#last = n.last;
    const size = n.last - n.first + 1n;
    this.#trigger = n.first + (size * BigInt(Math.round(this.#prefetchAt * 1000))) / 1000n;
    if (this.#trigger > n.last) this.#trigger = n.last;
    if (this.#prefetchAt === 0) this.#prefetch();
    return true;
  }

  async #waitAndTake(): Promise<bigint> {
    this.#waits++;
    const deadline = this.#now() + this.#timeoutMs;
    for (;;) {
      const v = this.tryNext();
      if (v !== undefined) return v;
      const left = deadline - this.#now();
      if (left <= 0 || this.#closed) throw this.#failure();
      await this.#fetch(left);
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
   * Waits, at most `waitMs`, for the fetch in flight to settle: one started now, or, during a
   * back-off, the one its timer starts (a timer, so the event loop runs meanwhile).
   */
  async #fetch(waitMs: number): Promise<void> {
    if (this.#loading === null) this.#prefetch();
    const changed = this.#changed;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
    });
    try {
      await Promise.race([changed, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Starts fetching the next block in the background, unless one is loaded or loading. */
  #prefetch(): void {
    if (this.#next !== null || this.#loading !== null || this.#closed || this.#coolingDown) return;
    const size = this.#nextStep();
    this.#loading = this.#source(size).then(
      (block) => {
        this.#fetches++;
        this.#next = { first: block.first, last: block.last };
        this.#lastError = null;
        this.#backoff.reset();
        this.#loading = null;
        this.#signal();
      },
      (error: unknown) => {
        this.#fetchFailures++;
        this.#lastError = error;
        this.#loading = null;
        this.#scheduleRetry();
        this.#signal();
      },
    );
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
  #nextStep(): number {
    const now = this.#now();
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
