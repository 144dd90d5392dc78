/**
 * The HLC algorithm as pure state transitions (Kulkarni et al. 2014, Fig. 5), and the one
 * place that reads the clock, refuses drift and waits out a full counter. Shared by
 * {@link HybridLogicalClock} and the HLC ID generator; not exported by the package.
 */
import { type Clock, HorizonExceededError } from '../core/index.js';
import { assertInteger, assertNumber, defaultClock, typeError } from '../core/internal.js';
import { HlcCounterOverflowError, HlcDriftError } from './errors.js';
import { assertHlc, HLC_MAX_L, type HlcTimestamp } from './timestamp.js';

/**
 * Send or local event at physical time `pt` (Fig. 5):
 * `l := max(l', pt)`; `c := l = l' ? c' + 1 : 0`. The result may exceed the counter's
 * capacity: the caller checks. Pure.
 */
export function hlcSendStep(state: HlcTimestamp, pt: number): HlcTimestamp {
  const l = Math.max(state.l, pt);
  return { l, c: l === state.l ? state.c + 1 : 0 };
}

/**
 * Receipt of a message stamped `m` at physical time `pt` (Fig. 5):
 * `l := max(l', l_m, pt)`; then `c := max(c', c_m) + 1` when `l = l' = l_m`, `c' + 1` when
 * only `l = l'`, `c_m + 1` when only `l = l_m`, else 0. The result may exceed the counter's
 * capacity: the caller checks. Pure.
 */
export function hlcReceiveStep(state: HlcTimestamp, m: HlcTimestamp, pt: number): HlcTimestamp {
  const l = Math.max(state.l, m.l, pt);
  let c: number;
  if (l === state.l && l === m.l) c = Math.max(state.c, m.c) + 1;
  else if (l === state.l) c = state.c + 1;
  else if (l === m.l) c = m.c + 1;
  else c = 0;
  return { l, c };
}

/** Default `maxDriftMs`: CockroachDB's default maximum clock offset (`--max-offset`). */
export const DEFAULT_MAX_DRIFT_MS = 500;
/** Default `maxWaitMs`: above the default drift, so a full counter after an accepted lead resolves. */
export const DEFAULT_MAX_WAIT_MS = 1000;

/** Validated settings of a clock. */
export interface HlcSettings {
  readonly clock: Clock;
  readonly maxDriftMs: number;
  readonly maxCounter: number;
  readonly maxWaitMs: number;
  readonly initial: HlcTimestamp;
}

/** What {@link hlcSettings} reads (a subset of each class's options). */
interface SettingsInput {
  readonly clock?: Clock;
  readonly maxDriftMs?: number;
  readonly maxWaitMs?: number;
  readonly initial?: HlcTimestamp;
}

/**
 * The settings of `options`, every one validated and named in the message: `TypeError`
 * (wrong type) or `RangeError` (`maxDriftMs`, `maxWaitMs` not finite and >= 0).
 */
export function hlcSettings(
  owner: string,
  options: SettingsInput,
  counterBits: number,
): HlcSettings {
  const clock = options.clock ?? defaultClock();
  if (!['now', 'nowPrecise', 'sleep'].every((m) => typeof (clock as never)?.[m] === 'function')) {
    throw typeError(`${owner} clock`, 'a Clock', clock);
  }
  const initial = options.initial ?? { l: 0, c: 0 };
  assertHlc(`${owner} initial`, initial);
  return {
    clock,
    maxDriftMs: assertNumber(`${owner} maxDriftMs`, options.maxDriftMs ?? DEFAULT_MAX_DRIFT_MS, 0),
    maxWaitMs: assertNumber(`${owner} maxWaitMs`, options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS, 0),
    maxCounter: 2 ** assertInteger(`${owner} counterBits`, counterBits, 1, 16) - 1,
    initial: { l: initial.l, c: initial.c },
  };
}

/**
 * The timestamp of the next event after `state`: a send/local event when `remote` is
 * undefined, else the receipt of a message stamped `remote`. Reads the clock; never changes
 * `state` (the caller commits the result).
 *
 * Throws {@link HlcDriftError} when `remote.l` is more than `maxDriftMs` ahead of the
 * physical clock; {@link HlcCounterOverflowError} when the counter would pass `maxCounter`
 * and the physical clock cannot pass `l` within `maxWaitMs` (it sleeps on the clock until it
 * does; a wait longer than what is left of `maxWaitMs` fails at once);
 * {@link HorizonExceededError} (layout 'hlc') when the physical clock is past 2^48 - 1 ms.
 * `onWait` is called once per call that waits.
 */
export function advanceHlc(
  state: HlcTimestamp,
  remote: HlcTimestamp | undefined,
  s: HlcSettings,
  onWait: () => void,
): HlcTimestamp {
  let pt = s.clock.now();
  if (remote !== undefined && remote.l - pt > s.maxDriftMs) {
    throw new HlcDriftError(remote.l, pt, s.maxDriftMs);
  }
  let waitedMs = 0;
  for (;;) {
    if (pt > HLC_MAX_L) throw new HorizonExceededError('hlc', pt, 0, HLC_MAX_L + 1);
    const next = remote === undefined ? hlcSendStep(state, pt) : hlcReceiveStep(state, remote, pt);
    if (next.c <= s.maxCounter) return next;
    // Full at next.l: only a physical clock past next.l gives a fresh (pt, 0).
    const pause = Math.max(next.l + 1 - s.clock.nowPrecise(), 0.05);
    if (waitedMs + pause > s.maxWaitMs) {
      throw new HlcCounterOverflowError(next.l, s.maxCounter, waitedMs, s.maxWaitMs, pt);
    }
    if (waitedMs === 0) onWait();
    s.clock.sleep(pause);
    waitedMs += pause;
    pt = s.clock.now();
  }
}
