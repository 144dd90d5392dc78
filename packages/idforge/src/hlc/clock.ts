/**
 * The hybrid logical clock of one node (Kulkarni, Demirbas et al., "Logical Physical Clocks",
 * OPODIS 2014, Fig. 5).
 */
import type { Clock } from '../core/index.js';
import { rangeError, typeError } from '../core/internal.js';
import { HlcState, type HlcStats } from './state.js';
import { hlcSettings } from './step.js';
import { HLC_MAX_L, type HlcTimestamp } from './timestamp.js';

export type { HlcStats } from './state.js';

/** Options of {@link HybridLogicalClock}. Validated at construction, never after. */
export interface HybridLogicalClockOptions {
  /** The physical clock `pt`. Default the core's shared monotonic clock (wall-anchored). */
  readonly clock?: Clock;
  /**
   * A remote timestamp whose `l` is more than this many ms ahead of the physical clock is
   * refused ({@link HlcDriftError}, state unchanged). Default 500, CockroachDB's default
   * maximum clock offset: NTP keeps servers within a few ms of each other, so a larger lead
   * means a broken clock, and every ms accepted is a ms this node's `l` (and its IDs' time)
   * may run ahead of real time, and up to a ms of waiting when its counter fills before the
   * physical clock catches up. Raise it for peers with poorly synchronised clocks.
   */
  readonly maxDriftMs?: number;
  /**
   * Bits of the counter `c`, an integer in [1, 16]: `c` stays below 2^counterBits. Default
   * 16 (the text and packed forms). An ID layout with a 12-bit counter passes 12.
   */
  readonly counterBits?: number;
  /**
   * When the counter is full at `l`, the longest one call sleeps (`clock.sleep`) for the
   * physical clock to pass `l`; then it throws {@link HlcCounterOverflowError} (state
   * unchanged). Default 1000: above the default `maxDriftMs`, so a full counter after
   * accepting a remote lead resolves by waiting.
   */
  readonly maxWaitMs?: number;
  /**
   * The state to start from, e.g. a high-water mark restored after a restart so the clock
   * never issues a timestamp it issued before. Default `{ l: 0, c: 0 }`.
   */
  readonly initial?: HlcTimestamp;
}

const OPTIONS = new Set('clock maxDriftMs counterBits maxWaitMs initial'.split(' '));

/**
 * One node's hybrid logical clock: timestamps `(l, c)` that never decrease, that follow
 * the physical clock (`l` is the largest physical time this node has seen, its own or a
 * peer's), and that respect happened-before: an event that causally follows another (a
 * later event on the same node, or the receipt of a message) gets a larger timestamp.
 * Concurrent events get an arbitrary but consistent order. It orders events; it does not
 * replace consensus or version checks.
 *
 * Stamp every local or send event with {@link now}, send {@link last} with each message,
 * and give every received timestamp to {@link receive}.
 *
 * Construction throws `TypeError`/`RangeError` on a bad option (unknown ones included).
 * Holds state; one instance per node. Synchronous, so safe within one JavaScript thread.
 */
export class HybridLogicalClock {
  readonly #h: HlcState;

  constructor(options: HybridLogicalClockOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw typeError('HybridLogicalClock options', 'an object', options);
    }
    for (const key of Object.keys(options)) {
      if (!OPTIONS.has(key)) {
        throw rangeError('HybridLogicalClock options', `only ${[...OPTIONS].join(', ')}`, key);
      }
    }
    this.#h = new HlcState(hlcSettings('HybridLogicalClock', options, options.counterBits ?? 16));
  }

  /**
   * The timestamp of a local or send event, greater than every timestamp this clock issued
   * before. Throws {@link HlcCounterOverflowError} when the counter is full and the physical
   * clock does not pass `l` within `maxWaitMs`, or `HorizonExceededError` past 2^48 - 1 ms;
   * the state is then unchanged.
   */
  now(): HlcTimestamp {
    // The send step (hlcSendStep) inline for the two cases that need no wait: the physical
    // clock ahead of l (a fresh (pt, 0)), or a counter with room. Everything else (a full
    // counter, the 2^48 horizon) goes through advanceHlc.
    // REF: npm run bench (HLC send event): one object per call instead of two.
    const h = this.#h;
    const pt = h.s.clock.now();
    if (pt > h.l) {
      if (pt <= HLC_MAX_L) {
        h.l = pt;
        h.c = 0;
        h.issued++;
        return { l: pt, c: 0 };
      }
    } else if (h.c < h.s.maxCounter) {
      h.issued++;
      return { l: h.l, c: ++h.c };
    }
    const next = h.advance();
    h.commit(next);
    h.issued++;
    return next;
  }

  /**
   * Merges the timestamp of a received message and returns the receipt event's timestamp,
   * greater than both `remote` and every timestamp this clock issued before. Throws
   * `TypeError`/`RangeError` when `remote` is not an HLC timestamp; {@link HlcDriftError}
   * when `remote.l` is more than `maxDriftMs` ahead of the physical clock, and as
   * {@link now}. On any throw the state is unchanged.
   */
  receive(remote: HlcTimestamp): HlcTimestamp {
    return this.#h.receive('HybridLogicalClock', remote);
  }

  /** The latest timestamp issued (the initial state before any): what to send with a message. */
  get last(): HlcTimestamp {
    return this.#h.last;
  }

  /** A snapshot of the counters. */
  get stats(): HlcStats {
    return this.#h.stats;
  }
}
