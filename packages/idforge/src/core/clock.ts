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
  /**
   * Backward divergence that makes the clock follow the wall clock back (re-anchor, and read
   * less than before), for Snowflake nodes that switch worker ID on a large step back
   * (`onLargeRollback: 'switch-worker'`). Default Infinity: never; the clock keeps counting
   * forwards and reports the gap in `wallBehindMs`.
   */
  readonly followBackMs?: number;
}

/** What the algorithm of {@link MonotonicClock} reports, updated by its readings. */
interface AnchorStats {
  reanchors: number;
  wallBehindMs: number;
  stepsBack: number;
}

/**
 * The algorithm of {@link MonotonicClock} over trusted settings (no option is checked): a
 * reading function holding its state in a closure, reporting into `stats`. {@link defaultNow}
 * is the same algorithm with the defaults, written out over module variables.
 */
function anchored(
  wall: () => number,
  mono: () => number,
  checkEveryMs: number,
  resyncMs: number,
  stats: AnchorStats,
  followBackMs = Number.POSITIVE_INFINITY,
): () => number {
  const m0 = mono();
  let anchor = wall() - m0;
  let nextCheck = m0 + checkEveryMs;
  let last = anchor + m0;
  return () => {
    const m = mono();
    let t = anchor + m;
    if (m >= nextCheck) {
      nextCheck = m + checkEveryMs;
      const w = wall();
      if (w - t > resyncMs) {
        anchor = w - m;
        t = w;
        stats.reanchors++;
      } else if (t - w > followBackMs) {
        anchor = w - m;
        t = w;
        last = w;
        stats.stepsBack++;
      }
      stats.wallBehindMs = Math.max(t - w, 0);
    }
    if (t < last) t = last;
    last = t;
    return t;
  };
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
 * backwards, unless `followBackMs` is set and the wall clock is that far behind: then it
 * follows it back (counted in {@link MonotonicClock.stepsBack}). Holds state; one instance
 * may be shared by any number of generators.
 */
export class MonotonicClock implements Clock {
  readonly #stats: AnchorStats = { reanchors: 0, wallBehindMs: 0, stepsBack: 0 };
  readonly #read: () => number;

  /**
   * Throws `TypeError` when `options` is not an object, `wall` or `monotonic` is not a
   * function, or `checkEveryMs`/`resyncMs` is not a number; `RangeError` when
   * `checkEveryMs` is not finite and >= 0 or `resyncMs` is not finite and > 0.
   */
  constructor(options: MonotonicClockOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw typeError('MonotonicClock options', 'an object', options);
    }
    this.#read = anchored(
      clockFn('MonotonicClock options.wall', options.wall) ?? Date.now,
      clockFn('MonotonicClock options.monotonic', options.monotonic) ?? performanceNow,
      options.checkEveryMs === undefined
        ? 250
        : assertNumber('MonotonicClock options.checkEveryMs', options.checkEveryMs, 0),
      options.resyncMs === undefined
        ? 1000
        : assertNumber('MonotonicClock options.resyncMs', options.resyncMs, Number.MIN_VALUE),
      this.#stats,
      options.followBackMs === undefined
        ? Number.POSITIVE_INFINITY
        : assertNumber('MonotonicClock options.followBackMs', options.followBackMs, 0),
    );
  }

  /** How many times the clock re-anchored forwards to the wall clock. */
  get reanchors(): number {
    return this.#stats.reanchors;
  }

  /** At the last check, how far the wall clock was behind this clock (0 if not behind). */
  get wallBehindMs(): number {
    return this.#stats.wallBehindMs;
  }

  /** Times it followed the wall clock back (only with `followBackMs`). */
  get stepsBack(): number {
    return this.#stats.stepsBack;
  }

  nowPrecise(): number {
    return this.#read();
  }

  now(): number {
    return Math.floor(this.#read());
  }

  sleep(ms: number): void {
    blockingSleep(ms);
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

/** The state of the process-wide clock ({@link defaultNow}): `anchored()`'s, one of each. */
let sharedAnchor: number | undefined;
let sharedNextCheck = 0;
let sharedReanchors = 0;
let sharedWallBehindMs = 0;

/**
 * The time of the process-wide default clock, in unix ms with a fraction: what
 * `defaultClock().nowPrecise()` returns, from the same state. The one-call generators read it
 * directly, so that their bundle carries no clock object and no `sleep` (issue 20).
 *
 * The algorithm of {@link MonotonicClock} with its defaults (`Date.now`, `performance.now`,
 * checkEveryMs 250, resyncMs 1000, as literals: esbuild keeps a named constant as a
 * variable), written out over module variables rather than through `anchored()`: minified,
 * a variable is one letter where a closure factory, its parameters and the stats object's
 * property names are not (issue 20: 78 B of `uuidv7()`'s gzip bundle). It also leaves out
 * `anchored()`'s last guard (never return less than the last reading), which here cannot
 * act: `performance.now()` never decreases and the anchor only moves forwards.
 * test/core/default-clock.test.ts drives both over the same stubbed readings.
 */
export function defaultNow(): number {
  const m = performance.now();
  if (sharedAnchor === undefined) {
    sharedAnchor = Date.now() - m;
    sharedNextCheck = m + 250; // checkEveryMs
  }
  let t = sharedAnchor + m;
  if (m >= sharedNextCheck) {
    sharedNextCheck = m + 250; // checkEveryMs
    const w = Date.now();
    // resyncMs 1000
    if (w - t > 1000) {
      sharedAnchor = w - m;
      t = w;
      sharedReanchors++;
    }
    sharedWallBehindMs = Math.max(t - w, 0);
  }
  return t;
}

let sharedClock: Clock | undefined;

/**
 * The process-wide default clock: one lazily created monotonic, wall-anchored clock, what
 * `new MonotonicClock()` gives (the same algorithm and defaults, without the option checks),
 * with its `reanchors` and `wallBehindMs`. Every generator's default, {@link defaultNow}
 * included, reads this one clock.
 */
export function defaultClock(): Clock {
  if (sharedClock === undefined) {
    const clock: Clock & { readonly reanchors: number; readonly wallBehindMs: number } = {
      now: () => Math.floor(defaultNow()),
      nowPrecise: defaultNow,
      sleep: blockingSleep,
      get reanchors(): number {
        return sharedReanchors;
      },
      get wallBehindMs(): number {
        return sharedWallBehindMs;
      },
    };
    sharedClock = clock;
  }
  return sharedClock;
}
