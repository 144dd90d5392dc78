/**
 * Clocks. Every generator takes its time from a {@link Clock} so tests can inject one and
 * drive rollbacks, suspends and sequence exhaustion without sleeping.
 */
import { assertNumber, typeError } from './assert.js';

/** A source of time for generators. */
export interface Clock {
  /** Current time in whole unix milliseconds. */
  now(): number;
  /** Current time in unix milliseconds with a sub-millisecond fraction where available. */
  nowPrecise(): number;
  /**
   * Block the caller for about `ms` milliseconds (fractional allowed). Generators call it
   * only to wait for the next tick or to wait out a small backward step; test clocks
   * advance their time instead of blocking.
   */
  sleep(ms: number): void;
}

let waitCell: Int32Array | null | undefined;

/**
 * Blocks the thread for `ms` milliseconds without spinning the CPU where the runtime
 * allows it (`Atomics.wait` on Node.js, Deno, Bun and workers); on a browser's main thread,
 * where `Atomics.wait` is forbidden, it spins on the clock for at most `ms`.
 */
export function blockingSleep(ms: number): void {
  if (!(ms > 0)) return;
  if (waitCell === undefined) {
    try {
      const cell = new Int32Array(new SharedArrayBuffer(4));
      Atomics.wait(cell, 0, 0, 0);
      waitCell = cell;
    } catch {
      waitCell = null;
    }
  }
  if (waitCell !== null) {
    Atomics.wait(waitCell, 0, 0, ms);
    return;
  }
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Busy wait: only reached where blocking waits are forbidden.
  }
}

/** The raw wall clock (`Date.now()`): follows every NTP step, forwards and backwards. */
export const wallClock: Clock = /* @__PURE__ */ Object.freeze({
  now: () => Date.now(),
  nowPrecise: () => Date.now(),
  sleep: blockingSleep,
});

function clockFn(name: string, f: unknown): (() => number) | undefined {
  if (f === undefined || typeof f === 'function') return f as (() => number) | undefined;
  throw typeError(name, 'a function returning ms', f);
}

/** Options of {@link MonotonicClock}. */
export interface MonotonicClockOptions {
  /** Wall clock in unix ms. Default `Date.now`. */
  readonly wall?: () => number;
  /** Monotonic reading in ms from an arbitrary origin. Default `performance.now`. */
  readonly monotonic?: () => number;
  /** How often, in monotonic ms, the wall clock is compared with the reading. Default 250. */
  readonly checkEveryMs?: number;
  /** Forward divergence from the wall clock that causes a re-anchor. Default 1000 ms. */
  readonly resyncMs?: number;
}

/**
 * The algorithm of {@link MonotonicClock} over trusted settings: no option is checked. It is
 * apart from the class so that {@link defaultClock}, which needs only the defaults, does not
 * carry the option checks and their messages into a browser bundle (issue 20). Holds state.
 */
export class AnchoredClock implements Clock {
  readonly #wall: () => number;
  readonly #mono: () => number;
  readonly #checkEveryMs: number;
  readonly #resyncMs: number;
  #anchor: number;
  #nextCheck: number;
  #last: number;
  #reanchors: number;
  #wallBehindMs: number;

  constructor(wall: () => number, mono: () => number, checkEveryMs: number, resyncMs: number) {
    this.#wall = wall;
    this.#mono = mono;
    this.#checkEveryMs = checkEveryMs;
    this.#resyncMs = resyncMs;
    const m = mono();
    this.#anchor = wall() - m;
    this.#nextCheck = m + checkEveryMs;
    this.#last = this.#anchor + m;
    this.#reanchors = 0;
    this.#wallBehindMs = 0;
  }

  /** How many times the clock re-anchored forwards to the wall clock. */
  get reanchors(): number {
    return this.#reanchors;
  }

  /** At the last check, how far the wall clock was behind this clock (0 if not behind). */
  get wallBehindMs(): number {
    return this.#wallBehindMs;
  }

  nowPrecise(): number {
    const m = this.#mono();
    let t = this.#anchor + m;
    if (m >= this.#nextCheck) {
      this.#nextCheck = m + this.#checkEveryMs;
      const w = this.#wall();
      if (w - t > this.#resyncMs) {
        this.#anchor = w - m;
        t = w;
        this.#reanchors++;
      }
      this.#wallBehindMs = Math.max(t - w, 0);
    }
    if (t < this.#last) t = this.#last;
    this.#last = t;
    return t;
  }

  now(): number {
    return Math.floor(this.nowPrecise());
  }

  sleep(ms: number): void {
    blockingSleep(ms);
  }
}

const performanceNow = (): number => performance.now();

/**
 * A monotonic reading anchored to the wall clock: `anchor + performance.now()`, so an NTP
 * step backwards does not look like a rollback on every call, and the time never decreases.
 *
 * Every `checkEveryMs` it compares itself with the wall clock. When the wall clock is ahead
 * by more than `resyncMs` (the monotonic clock stops during a suspend, the wall clock does
 * not) it re-anchors forwards. When the wall clock is behind (an NTP step back) it keeps
 * counting forwards and reports the gap in {@link MonotonicClock.wallBehindMs}: it never goes
 * backwards. Holds state; one instance may be shared by any number of generators.
 */
export class MonotonicClock extends AnchoredClock {
  /**
   * Throws `TypeError` when `options` is not an object, `wall` or `monotonic` is not a
   * function, or `checkEveryMs`/`resyncMs` is not a number; `RangeError` when
   * `checkEveryMs` is not finite and >= 0 or `resyncMs` is not finite and > 0.
   */
  constructor(options: MonotonicClockOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw typeError('MonotonicClock options', 'an object', options);
    }
    super(
      clockFn('MonotonicClock options.wall', options.wall) ?? Date.now,
      clockFn('MonotonicClock options.monotonic', options.monotonic) ?? performanceNow,
      options.checkEveryMs === undefined
        ? 250
        : assertNumber('MonotonicClock options.checkEveryMs', options.checkEveryMs, 0),
      options.resyncMs === undefined
        ? 1000
        : assertNumber('MonotonicClock options.resyncMs', options.resyncMs, Number.MIN_VALUE),
    );
  }
}

/**
 * A clock under the caller's control, for tests and simulations. `sleep` advances the time
 * instead of blocking, so a generator waiting for the next tick reaches it at once.
 */
export class ManualClock implements Clock {
  #ms: number;
  /** Total time slept through this clock, in ms. */
  slept: number;

  /** Throws `TypeError`/`RangeError` unless `startMs` is a finite number. */
  constructor(startMs = 0) {
    this.#ms = assertNumber('ManualClock startMs', startMs, Number.NEGATIVE_INFINITY);
    this.slept = 0;
  }

  now(): number {
    return Math.floor(this.#ms);
  }

  nowPrecise(): number {
    return this.#ms;
  }

  /** Set the time (may go backwards). */
  set(ms: number): void {
    this.#ms = ms;
  }

  /** Move the time by `ms` (negative steps back). */
  advance(ms: number): void {
    this.#ms += ms;
  }

  sleep(ms: number): void {
    this.slept += ms;
    this.#ms += ms;
  }
}

let shared: AnchoredClock | undefined;

/**
 * The process-wide default clock: one lazily created monotonic, wall-anchored clock, what
 * `new MonotonicClock()` gives (the same algorithm and defaults, without the option checks).
 */
export function defaultClock(): Clock {
  if (shared === undefined) shared = new AnchoredClock(Date.now, performanceNow, 250, 1000);
  return shared;
}
