/**
 * ULID (https://github.com/ulid/spec): a 48-bit unix-millisecond timestamp and 80 bits of
 * randomness, written as 26 Crockford base32 digits that sort in time order.
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                      32_bit_uint_time_high                    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |     16_bit_uint_time_low      |       16_bit_uint_random      |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                       32_bit_uint_random                      |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                       32_bit_uint_random                      |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 *   01AN4Z07BY      79KA1307SR9X4MV3      text: 10 time digits, 16 random digits;
 *  |----------|    |----------------|     the first digit is at most '7' (2 spare bits)
 */
import { assertBytes, assertOutput, assertString, typeError } from './assert.js';
import { type Clock, defaultClock, defaultNow } from './clock.js';
import {
  type CrockfordDecodeOptions,
  crockfordError,
  crockfordHigh20,
  crockfordLow20,
  crockfordTable,
  crockfordUlidTime,
  decodeCrockford128Into,
  scanCrockford128,
  unsafeEncodeCrockford128,
  unsafeUlidText,
} from './encoding/base32-crockford.js';
import { HorizonExceededError, InvalidIdError, MonotonicOverflowError } from './errors.js';
import { defaultPool, RandomPool, type RandomSource } from './random.js';
import { parseUuidBytes, unsafeFormatUuid } from './uuid/format.js';

/** The largest ULID timestamp: 2^48 - 1 ms (year 10889). */
export const ULID_MAX_TIME = 281474976710655;
/** The largest ULID, `7ZZZZZZZZZZZZZZZZZZZZZZZZZ`. */
export const ULID_MAX = '7ZZZZZZZZZZZZZZZZZZZZZZZZZ';

/** Decoding options: strict by default; `lenient: true` reads I, L as 1 and O as 0. */
export type UlidDecodeOptions = CrockfordDecodeOptions;

/** Options of {@link UlidGenerator}; all validated at construction. */
export interface UlidGeneratorOptions {
  /** Add 1 to the last randomness within a millisecond (see the class). Default false. */
  readonly monotonic?: boolean;
  /** Time source. Default {@link defaultClock}. */
  readonly clock?: Clock;
  /** Randomness, drawn through a private {@link RandomPool}. Default the shared pool. */
  readonly random?: RandomSource;
}

const MAX20 = 0xfffff;

/** What a clock reading is checked as, in the messages. */
const TIME_NAME = 'ULID clock time (unix ms)';
const TIME_EXPECTED = 'an integer in [-9007199254740992, 9007199254740992]';

/**
 * `ms`, a clock reading, when a ULID can hold it. Throws `RangeError` when it is not an
 * integer in [-2^53, 2^53], {@link HorizonExceededError} when it is outside [0, 2^48 - 1]:
 * an operational failure (a broken clock, or the year 10889), not a wrong argument.
 */
function ulidTime(ms: number): number {
  if (ms >= 0 && ms <= ULID_MAX_TIME && Number.isInteger(ms)) return ms;
  if (!(Number.isInteger(ms) && Math.abs(ms) <= 2 ** 53)) {
    // `ms` is a number here, so this is the text that `rangeError()` gives, without
    // carrying `describe()` into ulid()'s bundle.
    throw new RangeError(`${TIME_NAME}: expected ${TIME_EXPECTED}, got number ${ms}`);
  }
  throw new HorizonExceededError('ulid', ms, 0, ULID_MAX_TIME + 1);
}

/** A non-monotonic ULID at the (checked) time `ms`: 80 fresh bits from `pool`. */
function randomUlid(ms: number, pool: RandomPool): string {
  const b = pool.bytes;
  const o = pool.take(10);
  // REF: bench/peers (ulid: pooled bytes, one fromCharCode).
  return unsafeUlidText(
    ms,
    crockfordHigh20(b, o),
    crockfordLow20(b, o),
    crockfordHigh20(b, o + 5),
    crockfordLow20(b, o + 5),
  );
}

/** Writes a non-monotonic ULID at the (checked) time `ms` into `out` at `offset`. */
function randomUlidBytes(ms: number, pool: RandomPool, out: Uint8Array, offset: number) {
  writeUint(out, offset, 6, ms);
  const o = pool.take(10);
  for (let i = 0; i < 10; i++) out[offset + 6 + i] = pool.bytes[o + i]!;
  return out;
}

/**
 * Generates ULIDs. Holds state (the last timestamp and, in monotonic mode, the last
 * randomness); one instance is not meant to be shared by code that needs independent
 * sequences, but any number of callers may share one (JavaScript is single threaded, so each
 * call sees the previous one's state).
 *
 * Monotonic mode follows the spec and the reference implementation (ulid/javascript
 * `monotonicFactory`): when the clock reads the same millisecond as the last ID, or an
 * earlier one, the last millisecond is reused and the 80-bit randomness incremented by 1.
 * When it is already 2^80 - 1 the call throws {@link MonotonicOverflowError} and the state
 * is unchanged: the increment never carries into the timestamp.
 */
export class UlidGenerator {
  /** Whether this generator increments within a millisecond (see the class). */
  readonly monotonic: boolean;
  readonly #clock: Clock;
  readonly #pool: RandomPool;
  /** Last timestamp used, in unix ms (NaN before the first ID: unequal to any reading). */
  #ms: number;
  /** Monotonic mode: the last randomness as four 20-bit integers, most significant first. */
  #r0: number;
  #r1: number;
  #r2: number;
  #r3: number;

  /** Throws `TypeError` on a malformed option. */
  constructor(options: UlidGeneratorOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw typeError('UlidGenerator options', 'an object', options);
    }
    const { monotonic = false, clock, random } = options;
    if (typeof monotonic !== 'boolean') {
      throw typeError('UlidGenerator options.monotonic', 'a boolean', monotonic);
    }
    if (clock !== undefined && typeof clock?.now !== 'function') {
      throw typeError('UlidGenerator options.clock', 'a Clock', clock);
    }
    if (random !== undefined && typeof random?.fill !== 'function') {
      throw typeError('UlidGenerator options.random', 'a RandomSource', random);
    }
    this.monotonic = monotonic;
    this.#clock = clock ?? defaultClock();
    this.#pool = random === undefined ? defaultPool() : new RandomPool(random);
    this.#ms = Number.NaN;
    this.#r0 = 0;
    this.#r1 = 0;
    this.#r2 = 0;
    this.#r3 = 0;
  }

  /**
   * The next ULID, upper case. Throws {@link HorizonExceededError} when the clock reads a time
   * outside [0, 2^48 - 1] ms, {@link MonotonicOverflowError} as described on the class.
   */
  next(): string {
    const ms = this.#clock.now();
    if (this.monotonic) {
      this.#step(ms);
      return unsafeUlidText(this.#ms, this.#r0, this.#r1, this.#r2, this.#r3);
    }
    if (ms !== this.#ms) this.#setTime(ms);
    return randomUlid(this.#ms, this.#pool);
  }

  /**
   * The next ULID's 16 bytes, written into `out` at `offset` (a new array by default) and
   * returned. Shares state with {@link next}. Throws as {@link next}, and `TypeError`/
   * `RangeError` when `out` has no room for 16 bytes at `offset`.
   */
  nextBytes(out?: Uint8Array, offset = 0): Uint8Array {
    if (out === undefined) out = new Uint8Array(16);
    else assertOutput('UlidGenerator.nextBytes out', out, offset, 16);
    const ms = this.#clock.now();
    if (!this.monotonic) {
      if (ms !== this.#ms) this.#setTime(ms);
      return randomUlidBytes(this.#ms, this.#pool, out, offset);
    }
    this.#step(ms);
    writeUint(out, offset, 6, this.#ms);
    writeUint(out, offset + 6, 5, this.#r0 * 1048576 + this.#r1);
    writeUint(out, offset + 11, 5, this.#r2 * 1048576 + this.#r3);
    return out;
  }

  /** Validates and keeps a new timestamp (a reading of an injected clock: any value). */
  #setTime(ms: unknown): void {
    if (typeof ms !== 'number') throw typeError(TIME_NAME, TIME_EXPECTED, ms);
    this.#ms = ulidTime(ms);
  }

  /** Monotonic state transition for a clock reading of `ms`. */
  #step(ms: number): void {
    if (!(ms <= this.#ms)) {
      this.#setTime(ms); // also rejects NaN
      const pool = this.#pool;
      const b = pool.bytes;
      const o = pool.take(10);
      this.#r0 = crockfordHigh20(b, o);
      this.#r1 = crockfordLow20(b, o);
      this.#r2 = crockfordHigh20(b, o + 5);
      this.#r3 = crockfordLow20(b, o + 5);
    } else if (this.#r3 < MAX20) {
      this.#r3++; // same millisecond, or the clock is behind: keep the last one, add 1
    } else {
      // Carry: find the lowest limb below its maximum; if none, fail before any change.
      if (this.#r2 < MAX20) this.#r2++;
      else if (this.#r1 < MAX20) {
        this.#r1++;
        this.#r2 = 0;
      } else if (this.#r0 < MAX20) {
        this.#r0++;
        this.#r1 = 0;
        this.#r2 = 0;
      } else throw new MonotonicOverflowError('ulid', this.#ms);
      this.#r3 = 0;
    }
  }
}

/** Writes the unsigned integer `x` (< 2^53) big-endian in `n` (5 or 6) bytes at `out[o..]`. */
function writeUint(out: Uint8Array, o: number, n: number, x: number): void {
  const hi = Math.floor(x / 4294967296);
  const lo = x >>> 0;
  for (let i = n - 5; i >= 0; i--) out[o + n - 5 - i] = hi >>> (8 * i);
  out[o + n - 4] = lo >>> 24;
  out[o + n - 3] = lo >>> 16;
  out[o + n - 2] = lo >>> 8;
  out[o + n - 1] = lo;
}

/**
 * A new ULID from the default clock and random pool (not monotonic). What a shared
 * `new UlidGenerator()` gives, without a generator, so that its bundle carries neither the
 * option checks nor the monotonic mode (issue 20).
 */
export function ulid(): string {
  return randomUlid(ulidTime(Math.floor(defaultNow())), defaultPool());
}

/** A new ULID's 16 bytes, into `out` at `offset` (a new array by default). */
export function ulidBytes(out?: Uint8Array, offset = 0): Uint8Array {
  if (out === undefined) out = new Uint8Array(16);
  else assertOutput('UlidGenerator.nextBytes out', out, offset, 16);
  return randomUlidBytes(ulidTime(Math.floor(defaultNow())), defaultPool(), out, offset);
}

let sharedMonotonic: UlidGenerator | undefined;

/**
 * A new ULID from one module-level monotonic generator: strictly increasing across every
 * call in this process (module instance). Throws {@link MonotonicOverflowError} after 2^80
 * minus the first randomness IDs within one millisecond.
 */
export function monotonicUlid(): string {
  if (sharedMonotonic === undefined) sharedMonotonic = new UlidGenerator({ monotonic: true });
  return sharedMonotonic.next();
}

/**
 * Decodes a ULID (either case) into its 16 bytes, written into `out` at `offset` (a new
 * array by default) and returned. Strict by default (I, L, O, U rejected); with
 * `{ lenient: true }` I and L read as 1, O as 0.
 *
 * Throws {@link InvalidIdError} (scheme `ulid`) with reason `length`, `alphabet` (with the
 * position) or `overflow` (first character above '7', position 0); `TypeError`/`RangeError`
 * on a wrong argument.
 */
export function parseUlid(
  text: string,
  options?: UlidDecodeOptions,
  out?: Uint8Array,
  offset = 0,
): Uint8Array {
  assertString('parseUlid text', text);
  const table = crockfordTable('parseUlid', options);
  if (out === undefined) out = new Uint8Array(16);
  else assertOutput('parseUlid out', out, offset, 16);
  if (text.length !== 26) {
    throw new InvalidIdError('ulid', 'length', `expected 26 characters, got ${text.length}`, text);
  }
  const r = decodeCrockford128Into(text, 0, table, out, offset);
  if (r !== -1) throw crockfordError('ulid', text, r, table);
  return out;
}

/**
 * The 26-character upper-case ULID text of the 16 bytes of `bytes` from `offset`. Every 16
 * bytes are a valid ULID. Throws `TypeError`/`RangeError` unless there are 16 bytes there.
 */
export function formatUlid(bytes: Uint8Array, offset = 0): string {
  assertOutput('formatUlid bytes', bytes, offset, 16);
  return unsafeEncodeCrockford128(bytes, offset);
}

const scratch = /* @__PURE__ */ new Uint8Array(16);

/**
 * The timestamp (unix ms) of a ULID, given as text (validated in full, as {@link parseUlid})
 * or as its 16 bytes. Throws as {@link parseUlid}.
 */
export function ulidTimestamp(input: string | Uint8Array, options?: UlidDecodeOptions): number {
  if (typeof input === 'string') {
    const table = crockfordTable('parseUlid', options);
    if (input.length !== 26) parseUlid(input, options, scratch, 0); // throws: the length
    const ms = crockfordUlidTime(input, table);
    if (ms < 0) throw crockfordError('ulid', input, scanCrockford128(input, 0, table), table);
    return ms;
  }
  let b: Uint8Array;
  if (input instanceof Uint8Array) b = assertBytes('ulidTimestamp input', input, 16);
  else throw typeError('ulidTimestamp input', 'a ULID string or a Uint8Array(16)', input);
  return (
    ((b[0]! << 8) | b[1]!) * 4294967296 +
    (((b[2]! << 24) | (b[3]! << 16) | (b[4]! << 8) | b[5]!) >>> 0)
  );
}

/** Whether `text` is a valid ULID string (never throws, except on malformed `options`). */
export function isUlid(text: unknown, options?: UlidDecodeOptions): boolean {
  const table = crockfordTable('isUlid', options);
  return typeof text === 'string' && text.length === 26 && scanCrockford128(text, 0, table) === -1;
}

/**
 * Checks `text` like {@link parseUlid} and returns its canonical form (upper case; with
 * `{ lenient: true }` I and L become 1, O becomes 0). Throws exactly what {@link parseUlid}
 * throws.
 */
export function validateUlid(text: string, options?: UlidDecodeOptions): string {
  return unsafeEncodeCrockford128(parseUlid(text, options, scratch, 0), 0);
}

/** The same 128 bits as a lower-case UUID (any version and variant). Throws as parseUlid. */
export function ulidToUuid(text: string, options?: UlidDecodeOptions): string {
  return unsafeFormatUuid(parseUlid(text, options, scratch, 0), 0);
}

/** The same 128 bits as a ULID. Throws InvalidIdError (scheme `uuid`) on a malformed UUID. */
export function uuidToUlid(text: string): string {
  return unsafeEncodeCrockford128(parseUuidBytes(text, scratch, 0), 0);
}
