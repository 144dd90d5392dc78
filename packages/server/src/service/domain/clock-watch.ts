/**
 * Watches the wall clock against the nodes' clock. Snowflake nodes issue on a monotonic clock
 * anchored to the wall clock at start (core MonotonicClock), so a wall clock stepped back (NTP,
 * an operator, a VM restore) neither repeats nor reorders IDs; it leaves the two clocks apart,
 * the IDs' timestamps ahead of the wall clock by the step, until the wall clock catches up. This
 * module makes that visible: a reading for /readyz (a warning check) and /metrics, and one log
 * line per crossing of the threshold (warn when the divergence exceeds it, info when it is back
 * under half of it: the hysteresis keeps a divergence near the threshold from logging on every
 * read). Holds state; one per service. Time sources are injected so tests step them.
 */
import type { Clock } from 'idforge';

/** How often the background check runs, so a step is logged without a scrape or probe. */
const CHECK_EVERY_MS = 1000;

/** Options of {@link ClockWatch}. */
export interface ClockWatchOptions {
  /** The wall clock, unix ms. Default `Date.now`. */
  readonly wall?: () => number;
  /** The nodes' clock (the one IDs, lease deadlines and marks are on). */
  readonly clock: Clock;
  /** A divergence above this (ms, either way) is a warning; back under half of it, cleared. */
  readonly warnMs: number;
  /** Where a crossing is logged. */
  readonly log: (level: 'info' | 'warn', message: string) => void;
}

/** One reading of both clocks. */
export interface ClockReading {
  /** The nodes' clock, unix ms. */
  readonly nodeMs: number;
  /** The wall clock, unix ms. */
  readonly wallMs: number;
  /** wallMs - nodeMs: negative when the wall clock is behind. */
  readonly divergenceMs: number;
  /** True while the divergence is past the threshold (see the hysteresis above). */
  readonly warn: boolean;
  /** Why it warns, or '' when it does not. */
  readonly reason: string;
}

function describe(divergenceMs: number): string {
  const ms = Math.abs(Math.round(divergenceMs));
  return divergenceMs < 0
    ? `the wall clock is ${ms} ms behind this node's clock (the monotonic clock IDs are issued ` +
        'on, anchored to the wall clock at start): IDs stay unique and increasing, their ' +
        `timestamps ${ms} ms ahead of the wall clock; the wall clock was stepped back (NTP, an ` +
        'operator, a VM). Fix the host clock; a restart before it catches up waits for (or ' +
        "refuses at) the worker ID's high-water mark"
    : `the wall clock is ${ms} ms ahead of this node's clock (the monotonic clock IDs are ` +
        `issued on): IDs' timestamps are ${ms} ms behind the wall clock; the wall clock was ` +
        'stepped forwards by less than the clock follows (1 s), or the node clock is injected';
}

/** See the module comment. */
export class ClockWatch {
  readonly #wall: () => number;
  readonly #clock: Clock;
  readonly #warnMs: number;
  readonly #log: ClockWatchOptions['log'];
  #warning = false;
  #timer: NodeJS.Timeout | null = null;

  /** Throws `RangeError` unless `warnMs` is a positive finite number. */
  constructor(options: ClockWatchOptions) {
    if (!(options.warnMs > 0 && Number.isFinite(options.warnMs))) {
      throw new RangeError(`warnMs: expected a positive number of ms, got ${options.warnMs}`);
    }
    this.#wall = options.wall ?? Date.now;
    this.#clock = options.clock;
    this.#warnMs = options.warnMs;
    this.#log = options.log;
  }

  /** Reads both clocks, logs a crossing (once per crossing) and returns the reading. */
  check(): ClockReading {
    const nodeMs = this.#clock.nowPrecise();
    const wallMs = this.#wall();
    const divergenceMs = wallMs - nodeMs;
    const size = Math.abs(divergenceMs);
    if (!this.#warning && size > this.#warnMs) {
      this.#warning = true;
      this.#log('warn', `${describe(divergenceMs)} (wallDivergenceWarnMs ${this.#warnMs})`);
    } else if (this.#warning && size <= this.#warnMs / 2) {
      this.#warning = false;
      const ms = Math.round(divergenceMs);
      this.#log(
        'info',
        `the wall clock is back within ${this.#warnMs / 2} ms of this node's clock (${ms} ms)`,
      );
    }
    return {
      nodeMs,
      wallMs,
      divergenceMs,
      warn: this.#warning,
      reason: this.#warning ? describe(divergenceMs) : '',
    };
  }

  /** Checks every second in the background (an unref'd timer) until {@link stop}. */
  start(): void {
    if (this.#timer !== null) return;
    this.check();
    this.#timer = setInterval(() => this.check(), CHECK_EVERY_MS);
    this.#timer.unref();
  }

  /** Stops the background check. Idempotent. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}
