/**
 * Operational errors of `idforge/hlc` (hybrid logical clocks and the IDs built on them). Part
 * of the one catalogue: codes in the core's `errors.ts`, each documented with its fix in
 * `docs/errors.md` (a test keeps the two in step). A file of their own, so the service can map
 * them to a status without loading the clock.
 */
import { IdforgeError } from '../core/index.js';

/**
 * A remote HLC timestamp is further ahead of the local physical clock than `maxDriftMs`.
 * The clock's state is left UNCHANGED: accepting it would drag this node's clock (and every
 * node it talks to) forward by the peer's error, and a peer far in the future would pin the
 * logical clock there. Check that peer's clock (NTP), or raise `maxDriftMs` if such offsets
 * are expected and acceptable.
 */
export class HlcDriftError extends IdforgeError {
  /** The remote timestamp's physical part `l`, in unix ms. */
  readonly remoteMs: number;
  /** The local physical clock when the timestamp was refused, in unix ms. */
  readonly localMs: number;
  /** `remoteMs - localMs`. */
  readonly aheadMs: number;
  /** The largest lead accepted. */
  readonly maxDriftMs: number;

  constructor(remoteMs: number, localMs: number, maxDriftMs: number) {
    const aheadMs = remoteMs - localMs;
    super(
      'IDF_HLC_DRIFT',
      `a remote HLC timestamp (${new Date(remoteMs).toISOString()}) is ${aheadMs} ms ahead of ` +
        `this clock (${new Date(localMs).toISOString()}), more than maxDriftMs ${maxDriftMs}; ` +
        "it was refused and this clock is unchanged. Check the sending peer's clock (NTP), or " +
        'raise maxDriftMs if offsets this large are expected.',
    );
    this.remoteMs = remoteMs;
    this.localMs = localMs;
    this.aheadMs = aheadMs;
    this.maxDriftMs = maxDriftMs;
  }
}

/**
 * The HLC counter is full at `lMs` (every one of its 2^counterBits values was used within
 * that logical millisecond) and the physical clock did not pass `lMs` within `maxWaitMs`.
 * Nothing was issued and the state is unchanged; a later call after the physical clock
 * passes `lMs` continues without a duplicate.
 */
export class HlcCounterOverflowError extends IdforgeError {
  /** The logical millisecond whose counter is full, in unix ms. */
  readonly lMs: number;
  /** The counter's largest value, 2^counterBits - 1. */
  readonly maxCounter: number;
  /** How long this call waited for the physical clock, in ms (the sum of its sleeps). */
  readonly waitedMs: number;
  readonly maxWaitMs: number;
  /** The physical clock when the call gave up, in unix ms. */
  readonly clockMs: number;

  constructor(
    lMs: number,
    maxCounter: number,
    waitedMs: number,
    maxWaitMs: number,
    clockMs: number,
  ) {
    super(
      'IDF_HLC_COUNTER_OVERFLOW',
      `the HLC counter is full at ${new Date(lMs).toISOString()} (${maxCounter + 1} values) and ` +
        `the physical clock (${new Date(clockMs).toISOString()}) did not pass it within ` +
        `${Math.round(waitedMs)} ms (maxWaitMs ${maxWaitMs}); nothing was issued. Either the ` +
        'logical clock is far ahead of this clock (a peer ahead by up to maxDriftMs, a clock ' +
        'stepped back) or the clock is stalled: retry later, or raise maxWaitMs above maxDriftMs.',
    );
    this.lMs = lMs;
    this.maxCounter = maxCounter;
    this.waitedMs = waitedMs;
    this.maxWaitMs = maxWaitMs;
    this.clockMs = clockMs;
  }
}
