/**
 * The double buffer of a buffered sequence: two blocks of numbers in memory, when the next one
 * is fetched, what a failed fetch does, how long a call waits, and close. One state machine
 * behind both buffered sequences: `SegmentBuffer` (./segment-buffer.ts, over a store) and the
 * service client's `ClientSequence` (../client/sequence.ts, over HTTP). Each adds only what is
 * its own: the dynamic step and fetch events; the segment size and the wire's checks.
 *
 *   current [first ...... trigger .................. last]   next [first ... last] | loading
 *            ^ served from here: a compare and an increment per number
 *
 * Prefetch: handing out number `first + floor(size x prefetchAt)` of the current block starts
 * the fetch of the next one in the background; prefetchAt 0 starts it as the block becomes
 * current. The share is kept in millionths, floored: exact bigint arithmetic for any block,
 * and no share is rounded up to a later trigger. (The two buffers had drifted: thousandths
 * rounded in one, so 0.9996 meant "at the last number" and 0.0004 "at once".)
 *
 * One fetch at a time. A failed fetch is retried in the background after a bounded, jittered
 * exponential back-off (core/backoff.ts; by default 25-50 ms growing to 0.5-1 s), and no fetch
 * starts meanwhile, whoever asks: a source that fails at once costs a few attempts a second,
 * never a busy loop, and the buffer refills by itself within about a second of the source's
 * return, even while idle. (The client used to retry halfway through what was left of its
 * segment instead: never while idle or empty, and at once on every call while empty, so a
 * caller retrying in a loop sent a request per turn to a service that was down.) A final
 * error, one that asking again in the background would only repeat (an exhausted tag, a
 * refused request), stops background fetches: a call that finds both buffers empty then asks
 * the source once more itself, and calls doing so at the same time share that one fetch.
 *
 * A call on an empty buffer waits for the fetch in flight, or the one the back-off timer
 * starts: within `bound.ms` of running time (RunningDeadline) when bounded, through failed
 * fetches when `waitThroughFailures`, else until the first failure it waited for, which it
 * rejects with. `close()` drops the buffered numbers (never handed out again), stops the timer
 * and ends every waiting call at once.
 *
 * Numbers are handed out in increasing order within a block and from block to block when the
 * source's blocks increase (the owner's source checks its own contract: the client refuses a
 * block not above `after`, the stores hand out increasing blocks by construction).
 *
 * Browser-safe like the client that imports it: the core's barrels only, and one timer. Holds
 * state; not exported by the package.
 */

import { Backoff, type BackoffOptions, RunningDeadline } from '../core/internal.js';
import type { NumberRange } from '../wire/index.js';

/** The back-off timer of a {@link DoubleBuffer}, as a {@link Schedule} returns it. */
export interface RetryTimer {
  /** Clears the timer: its callback never runs. */
  cancel(): void;
  /** Keeps the process alive until it fires (a call waits on it with no bound of its own). */
  hold(): void;
}

/** Runs `run` once after `ms`. The default: an unref'd `setTimeout`. Tests inject their own. */
export type Schedule = (run: () => void, ms: number) => RetryTimer;

/** How long a waiting call waits at most, in running time, and what it rejects with then. */
export interface WaitBound {
  readonly ms: number;
  /** Monotonic milliseconds. */
  readonly now: () => number;
  /** The rejection when the bound passes and no fetch failed meanwhile. */
  readonly error: () => unknown;
}

/** Options of {@link DoubleBuffer}. The owner validates them (its own names in the errors). */
export interface DoubleBufferOptions {
  /**
   * Fetches the next block: `need` is what a waiting call still misses (1 for a prefetch; the
   * owner picks the size), `after` the last number of the last block received (-1 before any).
   * Called synchronously from `tryNext`; a throw counts as a failed fetch.
   */
  readonly fetch: (need: number, after: bigint) => Promise<NumberRange>;
  /** Share of a block handed out when the next is fetched, in [0, 1). */
  readonly prefetchAt: number;
  readonly backoff: BackoffOptions;
  /** Whether `error` is final: no background retry; the next call that finds no number asks. */
  readonly isFinal: (error: unknown) => boolean;
  /** Whether a waiting call outlives a failed fetch that is not final (and waits for the retry). */
  readonly waitThroughFailures: boolean;
  /** The bound of a wait; none: a call waits for the fetch's own outcome. */
  readonly bound?: WaitBound;
  /** What a call on a closed buffer rejects with. */
  readonly closedError: () => unknown;
  /** Told after every fetch settles, once the state reflects it. Must not throw. */
  readonly settled?: (failed: boolean, error: unknown) => void;
  readonly schedule?: Schedule;
}

/** Counters of a {@link DoubleBuffer}. */
export interface DoubleBufferCounts {
  /** Numbers handed out. */
  readonly served: bigint;
  /** Numbers buffered and not handed out yet (current and next block). */
  readonly buffered: bigint;
  /** Fetches started, counted as they start. */
  readonly started: number;
  /** Blocks received. */
  readonly received: number;
  /** Fetches that failed. */
  readonly failures: number;
  /** Failed fetches since the last success. */
  readonly failingStreak: number;
  /** Calls that found both buffers empty and waited. */
  readonly waits: number;
}

/** What a {@link DoubleBuffer} holds now: a copy, taken without I/O. */
export interface DoubleBufferView {
  /** The block being served and its next number; null when none or used up. */
  readonly current: (NumberRange & { readonly next: bigint }) | null;
  readonly next: NumberRange | null;
  readonly loading: boolean;
}

const EMPTY = -1n;
const PPM = 1_000_000n;

const unrefTimer: Schedule = (run, ms) => {
  const t = setTimeout(run, ms);
  // An idle buffer must not keep the process alive; a call waiting on the timer holds it.
  t.unref?.();
  return { cancel: () => clearTimeout(t), hold: () => t.ref?.() };
};

export class DoubleBuffer {
  readonly #o: DoubleBufferOptions;
  readonly #ppm: bigint;
  readonly #backoff: Backoff;
  readonly #schedule: Schedule;
  // The current block: #cur is the next number, #last the last; handing out #trigger starts
  // the fetch. Every field is set here so the object keeps one shape.
  #cur = 0n;
  #first = 0n;
  #last = EMPTY;
  #trigger = EMPTY;
  #next: NumberRange | null = null;
  #loading = false;
  /** The last number of the last block received: the `after` of the next fetch. */
  #after = EMPTY;
  /** The last fetch failed, with #error (cleared by a success). */
  #failed = false;
  #error: unknown = undefined;
  /** The last failure was final: nothing is fetched until a call asks. */
  #final = false;
  /** The fetch in flight is a call's ask of a source that failed finally: waiting calls share it. */
  #asking = false;
  /** A back-off timer is pending: no fetch starts until it fires. */
  #retry: RetryTimer | null = null;
  /** The largest need of calls that waited during a back-off: the size of the timer's fetch. */
  #wanted = 1;
  // Resolved (and replaced) whenever a fetch settles or the buffer closes: what calls await.
  #changed!: Promise<void>;
  #notify!: () => void;
  #servedBefore = 0n;
  #started = 0;
  #received = 0;
  #failures = 0;
  #waits = 0;
  #closed = false;

  constructor(options: DoubleBufferOptions) {
    this.#o = options;
    this.#ppm = BigInt(Math.floor(options.prefetchAt * 1_000_000));
    this.#backoff = new Backoff(options.backoff);
    this.#schedule = options.schedule ?? unrefTimer;
    this.#renewSignal();
  }

  /**
   * The next number if one is buffered, else undefined (and a fetch starts in the background
   * unless one is in flight, backing off or stopped by a final error). Synchronous: a compare
   * and an increment when a number is buffered.
   */
  tryNext(): bigint | undefined {
    const c = this.#cur;
    if (c <= this.#last) {
      this.#cur = c + 1n;
      // REF: docs/client.md, sequence.tryNext (warm segment, over 10 M/s): one compare against
      // a precomputed trigger, nothing else on this path.
      if (c === this.#trigger) this.#start(1);
      return c;
    }
    if (this.#install()) return this.tryNext();
    this.#start(1);
    return undefined;
  }

  /** The next number: at once when one is buffered, else after waiting (see the file comment). */
  next(): Promise<bigint> {
    const v = this.tryNext();
    return v !== undefined ? Promise.resolve(v) : this.#take(1);
  }

  /**
   * `count` numbers (validated by the owner), increasing: buffered ones first; when nothing is
   * buffered, it waits for a block of what is still missing. A rejection loses the numbers
   * already taken (a gap, never a duplicate).
   */
  async batch(count: number): Promise<bigint[]> {
    const out: bigint[] = [];
    while (out.length < count) {
      const v = this.#buffered() ? this.tryNext() : undefined;
      out.push(v !== undefined ? v : await this.#take(count - out.length));
    }
    return out;
  }

  /**
   * Loads the first block (waiting as a call does, for one fetch) so the first call does not
   * wait; rejects as a call does.
   */
  async warm(): Promise<void> {
    if (this.#closed) throw this.#o.closedError();
    if (this.#cur <= this.#last) return;
    if (this.#next === null) {
      // Asking is what a final error leaves to calls; calls waiting meanwhile share this ask.
      this.#asking = this.#final;
      this.#final = false;
      this.#start(1);
      await this.#wait(this.#deadline());
    }
    if (!this.#install()) throw this.#failure();
  }

  get counts(): DoubleBufferCounts {
    const left = this.#cur <= this.#last ? this.#last - this.#cur + 1n : 0n;
    const n = this.#next;
    return {
      served: this.#servedBefore + this.#servedInCurrent(),
      buffered: left + (n === null ? 0n : n.last - n.first + 1n),
      started: this.#started,
      received: this.#received,
      failures: this.#failures,
      failingStreak: this.#backoff.attempts,
      waits: this.#waits,
    };
  }

  view(): DoubleBufferView {
    const n = this.#next;
    return {
      current:
        this.#cur <= this.#last ? { first: this.#first, last: this.#last, next: this.#cur } : null,
      next: n === null ? null : { first: n.first, last: n.last },
      loading: this.#loading,
    };
  }

  /** Drops the buffered numbers, stops the back-off timer and ends waiting calls. Idempotent. */
  close(): void {
    this.#servedBefore += this.#servedInCurrent();
    this.#closed = true;
    this.#next = null;
    // An EMPTY last drops the current block (#cur is then above it) and is never set again:
    // #install refuses on a closed buffer.
    this.#last = EMPTY;
    // Cancelled, not cleared: a closed buffer starts no fetch, whatever #retry holds.
    this.#retry?.cancel();
    this.#signal();
  }

  #buffered(): boolean {
    return this.#cur <= this.#last || this.#next !== null;
  }

  #servedInCurrent(): bigint {
    return this.#last === EMPTY ? 0n : this.#cur - this.#first;
  }

  /** Makes the next block current; false when there is none. */
  #install(): boolean {
    const n = this.#next;
    if (n === null || this.#closed) return false;
    this.#servedBefore += this.#servedInCurrent();
    this.#next = null;
    this.#first = n.first;
    this.#cur = n.first;
    this.#last = n.last;
    const trigger = n.first + ((n.last - n.first + 1n) * this.#ppm) / PPM;
    this.#trigger = trigger > n.last ? n.last : trigger;
    if (this.#ppm === 0n) this.#start(1);
    return true;
  }

  /**
   * Waits for a number (see the file comment): the one loop of every waiting call. `asked`:
   * this call waits on an ask of a source that failed finally (its own or one it shares);
   * `waited`: a fetch settled while it waited.
   */
  async #take(need: number): Promise<bigint> {
    this.#waits++;
    const deadline = this.#deadline();
    let waited = false;
    let asked = false;
    for (;;) {
      if (this.#closed) throw this.#o.closedError();
      if (this.#buffered()) {
        const v = this.tryNext();
        if (v !== undefined) return v;
      }
      if (waited && this.#failed && !this.#o.waitThroughFailures) throw this.#error;
      if (deadline !== null && deadline.left() <= 0) throw this.#failure();
      if (this.#final) {
        if (asked) throw this.#error;
        this.#final = false;
        this.#asking = true;
      }
      this.#start(need);
      if (this.#asking) asked = true;
      // Unbounded, this call has only the timer to wake it: it must keep the process alive.
      if (deadline === null) this.#retry?.hold();
      await this.#wait(deadline);
      waited = true;
    }
  }

  #deadline(): RunningDeadline | null {
    const b = this.#o.bound;
    return b === undefined ? null : new RunningDeadline(b.ms, b.now);
  }

  /** Until the next fetch settles or the buffer closes, or `deadline` passes. */
  async #wait(deadline: RunningDeadline | null): Promise<void> {
    if (deadline === null) await this.#changed;
    else await deadline.race(this.#changed);
  }

  #failure(): unknown {
    if (this.#closed) return this.#o.closedError();
    if (this.#failed) return this.#error;
    // Unbounded waits end only when a fetch settles or the buffer closes: never reached then.
    return this.#o.bound?.error() ?? new Error('no block was fetched');
  }

  /** Starts fetching the next block, unless one is buffered or loading, or none may start. */
  #start(need: number): void {
    if (this.#retry !== null && need > this.#wanted) this.#wanted = need;
    if (this.#loading || this.#next !== null || this.#closed || this.#retry !== null) return;
    if (this.#final) return;
    const size = Math.max(need, this.#wanted);
    this.#wanted = 1;
    this.#loading = true;
    this.#started++;
    let p: Promise<NumberRange>;
    try {
      p = this.#o.fetch(size, this.#after);
    } catch (error) {
      p = Promise.reject(error);
    }
    p.then(
      (block) => this.#settle(block),
      (error: unknown) => this.#fail(error),
    );
  }

  #settle(block: NumberRange): void {
    this.#loading = false;
    this.#asking = false;
    this.#received++;
    this.#after = block.last;
    this.#failed = false;
    this.#error = undefined;
    this.#backoff.reset();
    if (!this.#closed) this.#next = { first: block.first, last: block.last };
    this.#signal();
    this.#o.settled?.(false, undefined);
  }

  #fail(error: unknown): void {
    this.#loading = false;
    this.#asking = false;
    this.#failures++;
    this.#failed = true;
    this.#error = error;
    if (this.#o.isFinal(error)) this.#final = true;
    else if (!this.#closed) this.#backOff();
    this.#signal();
    this.#o.settled?.(true, error);
  }

  /** The next fetch, and only it, starts when the back-off timer fires. */
  #backOff(): void {
    this.#retry = this.#schedule(() => {
      this.#retry = null;
      this.#start(1);
    }, this.#backoff.next());
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
}
