/**
 * UUID version 7 (RFC 9562 §5.7): a 48-bit unix millisecond timestamp, then 74 bits that
 * make IDs unique and, within one generator, strictly increasing (§6.2).
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                           unix_ts_ms                          |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |          unix_ts_ms           |  0111 |  rand_a = randA (12)  |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |10 |       rand_b high = randBHi (30)                          |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                rand_b low = randBLo (32)                      |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Methods (RFC 9562 §6.2), each a pure step `(state, now, random) → state`:
 * - `counter` (Method 1, default): randA:randBHi is a 42-bit counter (the RFC's maximum),
 *   seeded at each new millisecond with 41 random bits, its top bit 0 as rollover guard;
 *   randBLo is fresh random for every ID. At least 2^41 IDs per millisecond.
 * - `fraction` (Method 3): randA is the sub-millisecond fraction × 4096 (`clock.nowPrecise()`),
 *   randBHi a 30-bit counter seeded with 29 random bits, randBLo fresh random.
 * - `random` (Method 2): randA:randBHi:randBLo is one 74-bit value seeded with 73 random bits
 *   (top bit 0) and, within a tick, incremented by a random amount in [1, 2^32].
 *
 * Rules shared by the steps (a tick is a millisecond, or a 1/4096 ms step for `fraction`):
 * 1. Later tick than the last ID: take it and re-seed.
 * 2. Same tick, or the clock went back by at most {@link UUIDV7_ROLLBACK_ALLOWANCE_MS}: keep
 *    the last timestamp and increment. If the increment overflows, the timestamp moves one
 *    tick ahead of the clock and the counter re-seeds (RFC 9562 §6.2, "Counter Rollover
 *    Handling"; uuidjs and the `uuidv7` package do the same).
 * 3. The clock went back further: re-seed from the clock's time. Later IDs sort before the
 *    earlier ones (order is given up, as the RFC allows; uniqueness rests on the fresh seed).
 * A timestamp outside [0, 2^48 - 1] throws {@link HorizonExceededError}; a clock reading that
 * is not a finite number throws `RangeError`. A step that throws leaves the state unchanged.
 */
import { assertOneOf, assertOutput, typeError } from '../assert.js';
import { type Clock, defaultClock, defaultNow } from '../clock.js';
import { HorizonExceededError } from '../errors.js';
import { defaultPool, RandomPool, type RandomSource } from '../random.js';
import { MAX_UNIX_TS_MS, requireVersion, uuidInputBytes, uuidTextTime48 } from './constants.js';
import type { UuidV7State } from './v7-state.js';
import { formatUuidV7 } from './v7-text.js';

/** How the bits after the timestamp keep IDs increasing; see the module comment. */
export type UuidV7Method = 'counter' | 'fraction' | 'random';

/** How far back, in ms, the clock may step before a generator re-seeds from it (rule 3). */
export const UUIDV7_ROLLBACK_ALLOWANCE_MS = 10_000;

/**
 * One step of a method: writes the next ID's fields into `state` and returns it (no
 * allocation). Deterministic: depends only on its arguments; takes bytes from `random`.
 * `now` is unix ms from `clock.nowPrecise()`; `counter` and `random` use its floor.
 */
export type UuidV7Step = (state: UuidV7State, now: number, random: RandomPool) => UuidV7State;

/** A fresh state: the first step always seeds from the clock. */
export function createUuidV7State(): UuidV7State {
  return { ms: -Infinity, randA: 0, randBHi: 0, randBLo: 0 };
}

/** 2 ** 32, as a literal: esbuild drops an unused literal, not an unused `**`. */
const TWO_32 = 4294967296;
const MAX_30 = 0x3fffffff;
const MAX_12 = 0xfff;
/** The largest time a `Date` holds (ECMA-262 §21.4.1.22). */
const MAX_DATE_MS = 8.64e15;

function u32(random: RandomPool): number {
  const o = random.take(4);
  const b = random.bytes;
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}

/**
 * `now` if a `Date` can hold it; else `RangeError` (NaN, ±Infinity: a broken clock, misuse).
 * Each exported step checks its reading first; `uuidv7()`, whose clock is the process-wide
 * one, steps through {@link unsafeStepV7Counter}, without the check or its text (issue 20).
 * Such a reading is never within rule 2 of a state, so the same readings throw as when the
 * check was made at re-seeding.
 */
function checkReading(now: number): number {
  if (Math.abs(now) <= MAX_DATE_MS) return now;
  // The text that `rangeError()` gives for a number, without carrying `describe()` along.
  throw new RangeError(
    `uuidv7 clock reading: expected a finite number of unix ms, got number ${now}`,
  );
}

/** `ms` if it is a valid unix_ts_ms; {@link HorizonExceededError} otherwise. */
function checkMs(ms: number): number {
  if (ms >= 0 && ms <= MAX_UNIX_TS_MS) return ms;
  throw new HorizonExceededError('uuidv7', ms, 0, MAX_UNIX_TS_MS + 1);
}

/** Rule 2 applies: `ms` is at most the last ms and not more than the allowance behind it. */
function withinLast(state: UuidV7State, ms: number): boolean {
  return ms <= state.ms && ms >= state.ms - UUIDV7_ROLLBACK_ALLOWANCE_MS;
}

/** Seeds 11 + 30 + 32 random bits: rand_a's top bit stays 0 as the rollover guard. */
function seed(state: UuidV7State, ms: number, random: RandomPool): UuidV7State {
  state.ms = ms;
  state.randA = u32(random) >>> 21;
  state.randBHi = u32(random) >>> 2;
  state.randBLo = u32(random);
  return state;
}

/** {@link stepV7Counter} without {@link checkReading}, for a reading known to be finite. */
const unsafeStepV7Counter: UuidV7Step = (state, now, random) => {
  const ms = Math.floor(now);
  if (!withinLast(state, ms)) return seed(state, checkMs(ms), random);
  if (state.randBHi < MAX_30) state.randBHi++;
  else if (state.randA < MAX_12) {
    state.randBHi = 0;
    state.randA++;
  } else return seed(state, checkMs(state.ms + 1), random);
  state.randBLo = u32(random);
  return state;
};

/** RFC 9562 §6.2 Method 1 with a 42-bit counter in rand_a and the top of rand_b. */
export const stepV7Counter: UuidV7Step = (state, now, random) =>
  unsafeStepV7Counter(state, checkReading(now), random);

function seedFraction(s: UuidV7State, ms: number, frac: number, r: RandomPool): UuidV7State {
  s.ms = ms;
  s.randA = frac;
  s.randBHi = u32(r) >>> 3;
  s.randBLo = u32(r);
  return s;
}

/** RFC 9562 §6.2 Method 3 (12 bits of sub-ms time), then a 30-bit counter (Method 1). */
export const stepV7Fraction: UuidV7Step = (state, now, random) => {
  const ms = Math.floor(checkReading(now));
  const frac = Math.floor((now - ms) * 4096);
  const notLater = ms < state.ms || (ms === state.ms && frac <= state.randA);
  if (!(notLater && withinLast(state, ms))) return seedFraction(state, checkMs(ms), frac, random);
  if (state.randBHi < MAX_30) {
    state.randBHi++;
    state.randBLo = u32(random);
    return state;
  }
  if (state.randA < MAX_12) return seedFraction(state, state.ms, state.randA + 1, random);
  return seedFraction(state, checkMs(state.ms + 1), 0, random);
};

/** RFC 9562 §6.2 Method 2: the 74 bits after the version are a randomly stepped counter. */
export const stepV7Random: UuidV7Step = (state, now, random) => {
  const ms = Math.floor(checkReading(now));
  if (!withinLast(state, ms)) return seed(state, checkMs(ms), random);
  const lo = state.randBLo + 1 + u32(random);
  if (lo < TWO_32) state.randBLo = lo;
  else if (state.randBHi < MAX_30) {
    state.randBHi++;
    state.randBLo = lo - TWO_32;
  } else if (state.randA < MAX_12) {
    state.randA++;
    state.randBHi = 0;
    state.randBLo = lo - TWO_32;
  } else return seed(state, checkMs(state.ms + 1), random);
  return state;
};

const STEPS: Readonly<Record<UuidV7Method, UuidV7Step>> = {
  counter: stepV7Counter,
  fraction: stepV7Fraction,
  random: stepV7Random,
};

/** Writes the UUIDv7 with the fields of `s` into `out` at `o`. Trusts its arguments. */
export function unsafeV7Into(s: UuidV7State, out: Uint8Array, o: number): Uint8Array {
  const hi = Math.floor(s.ms / TWO_32);
  const lo = s.ms >>> 0;
  const a = s.randA;
  const b = s.randBHi;
  const c = s.randBLo;
  out[o] = hi >>> 8;
  out[o + 1] = hi;
  out[o + 2] = lo >>> 24;
  out[o + 3] = lo >>> 16;
  out[o + 4] = lo >>> 8;
  out[o + 5] = lo;
  out[o + 6] = 0x70 | (a >>> 8);
  out[o + 7] = a;
  out[o + 8] = 0x80 | (b >>> 24);
  out[o + 9] = b >>> 16;
  out[o + 10] = b >>> 8;
  out[o + 11] = b;
  out[o + 12] = c >>> 24;
  out[o + 13] = c >>> 16;
  out[o + 14] = c >>> 8;
  out[o + 15] = c;
  return out;
}

/** Options of {@link UuidV7Generator}. */
export interface UuidV7Options {
  /** Default `'counter'`. */
  readonly method?: UuidV7Method;
  /** Default: the process-wide {@link defaultClock} (monotonic, wall-anchored). */
  readonly clock?: Clock;
  /** Default: the process-wide random pool over Web Crypto. */
  readonly random?: RandomSource;
}

const METHODS: readonly UuidV7Method[] = ['counter', 'fraction', 'random'];

/**
 * A UUIDv7 generator: every ID it returns is strictly greater (as text and as bytes) than
 * the one before, unless its clock steps back by more than
 * {@link UUIDV7_ROLLBACK_ALLOWANCE_MS} (see the module comment for every rule). Holds state;
 * share one instance rather than creating one per ID. Not for concurrent use across
 * workers (each worker needs its own; IDs stay unique through their random bits).
 *
 * The constructor throws `TypeError`/`RangeError` for an unknown method or a clock/random
 * that lacks its methods. `next`/`nextBytes` throw {@link HorizonExceededError} when the
 * time is outside 0 .. 2^48 - 1 ms and `RangeError` when the clock returns NaN or ±Infinity.
 */
export class UuidV7Generator {
  readonly method: UuidV7Method;
  readonly #clock: Clock;
  readonly #random: RandomPool;
  readonly #step: UuidV7Step;
  readonly #state: UuidV7State;

  constructor(options: UuidV7Options = {}) {
    if (typeof options !== 'object' || options === null) {
      throw typeError('UuidV7Generator options', 'an object', options);
    }
    const { method = 'counter', clock, random } = options;
    this.method = assertOneOf('UuidV7Generator options.method', method, METHODS);
    if (clock !== undefined && typeof clock?.nowPrecise !== 'function') {
      throw typeError('UuidV7Generator options.clock', 'a Clock (with nowPrecise())', clock);
    }
    if (random !== undefined && typeof random?.fill !== 'function') {
      throw typeError('UuidV7Generator options.random', 'a RandomSource (with fill())', random);
    }
    this.#clock = clock ?? defaultClock();
    this.#random = random === undefined ? defaultPool() : new RandomPool(random);
    this.#step = STEPS[this.method];
    this.#state = createUuidV7State();
  }

  /** The next UUIDv7 in canonical lower-case text. */
  next(): string {
    return formatUuidV7(this.#step(this.#state, this.#clock.nowPrecise(), this.#random));
  }

  /**
   * The next UUIDv7 as 16 bytes written into `out` at `offset` (a new array by default);
   * returns `out`. Throws `TypeError`/`RangeError` when `out` has no room for 16 bytes.
   */
  nextBytes(out?: Uint8Array, offset = 0): Uint8Array {
    if (out === undefined) out = new Uint8Array(16);
    else assertOutput('UuidV7Generator.nextBytes out', out, offset, 16);
    return unsafeV7Into(
      this.#step(this.#state, this.#clock.nowPrecise(), this.#random),
      out,
      offset,
    );
  }
}

/**
 * The state of {@link uuidv7} and {@link uuidv7Bytes}: what `new UuidV7Generator()` holds
 * (method `counter`, the default clock and pool), kept without a generator so that a bundle
 * of `uuidv7()` carries neither the option checks nor the other two methods (issue 20).
 * A plain object made at load (pure: a bundle that does not call `uuidv7()` drops it).
 */
const shared: UuidV7State = /* @__PURE__ */ createUuidV7State();

/**
 * A new UUIDv7 (method `counter`) from the one process-wide sequence, so strictly
 * increasing across all callers. Throws only {@link HorizonExceededError} (after the year
 * 10889).
 */
export function uuidv7(): string {
  return formatUuidV7(unsafeStepV7Counter(shared, defaultNow(), defaultPool()));
}

/** Like {@link uuidv7}, as 16 bytes written into `out` at `offset` (new array by default). */
export function uuidv7Bytes(out?: Uint8Array, offset = 0): Uint8Array {
  if (out === undefined) out = new Uint8Array(16);
  else assertOutput('UuidV7Generator.nextBytes out', out, offset, 16);
  return unsafeV7Into(unsafeStepV7Counter(shared, defaultNow(), defaultPool()), out, offset);
}

/**
 * The unix millisecond timestamp of a UUIDv7 given as text or 16 bytes. Throws
 * {@link InvalidIdError} on malformed input, another version (reason `version`) or another
 * variant (reason `variant`); `TypeError` when `input` is neither a string nor a Uint8Array.
 */
export function uuidv7Timestamp(input: string | Uint8Array): number {
  if (typeof input === 'string') {
    const ms = uuidTextTime48(input, 7);
    if (ms >= 0) return ms;
  }
  const b = uuidInputBytes('uuidv7Timestamp input', input);
  requireVersion(b, input, 7);
  const lo = ((b[2]! << 24) | (b[3]! << 16) | (b[4]! << 8) | b[5]!) >>> 0;
  return ((b[0]! << 8) | b[1]!) * TWO_32 + lo;
}
