/**
 * KSUID (segmentio/ksuid, the reference implementation): 160 bits, a 32-bit timestamp in
 * seconds since the KSUID epoch (1,400,000,000 s = 2014-05-13T16:53:20Z) followed by a
 * 128-bit random payload, written as 27 base62 digits that sort in time order.
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |            32_bit_uint_timestamp (s since KSUID epoch)        |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                  128_bit_payload (4 words)                    |
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Text: 27 digits of `0-9A-Za-z`, left-padded with '0'; Nil is 27 '0', Max is
 * `aWgEPTl1tmebfsQzFP4bxwgy80V` (2^160 - 1).
 */

import { assertBytes, assertInteger, assertOutput, assertString, typeError } from './assert.js';
import type { IdBounds } from './bounds.js';
import { type Clock, defaultClock } from './clock.js';
import {
  BASE62_DIGITS,
  base62Error,
  base62LengthError,
  decodeBase62Into,
  unsafeEncodeBase62,
  unsafeEncodeBase62Words,
  writeBase62Word,
} from './encoding/base62.js';
import { bytesToHex } from './encoding/hex.js';
import { HorizonExceededError } from './errors.js';
import { type Instant, instantMs, instantRange } from './instant.js';
import { poolOf } from './minted-at.js';
import { defaultPool, RandomPool, type RandomSource } from './random.js';
import type { Decoded, GenSource, SchemeDescriptor } from './schemes/descriptor.js';

/** The KSUID epoch in unix seconds (2014-05-13T16:53:20Z). */
export const KSUID_EPOCH_SECONDS = 1400000000;
/** The smallest KSUID (all zero bits). */
export const KSUID_NIL = '000000000000000000000000000';
/** The largest KSUID (2^160 - 1). */
export const KSUID_MAX = 'aWgEPTl1tmebfsQzFP4bxwgy80V';
/** The last unix second a KSUID can hold: epoch + 2^32 - 1 (year 2150). */
export const KSUID_MAX_UNIX_SECONDS = KSUID_EPOCH_SECONDS + 4294967295;

/** Options of {@link KsuidGenerator}; validated at construction. */
export interface KsuidGeneratorOptions {
  /** Time source. Default {@link defaultClock}. */
  readonly clock?: Clock;
  /** Randomness, drawn through a private {@link RandomPool}. Default the shared pool. */
  readonly random?: RandomSource;
}

/** The parts of a KSUID. */
export interface KsuidParts {
  /** The 20 bytes. */
  readonly bytes: Uint8Array;
  /** Seconds since the KSUID epoch (the raw 32-bit field). */
  readonly timestamp: number;
  /** The timestamp as unix milliseconds. */
  readonly unixMs: number;
  /** The 16-byte payload (a copy, not a view of `bytes`). */
  readonly payload: Uint8Array;
}

/** Reads the big-endian 32-bit word at `b[o..o+3]`. */
function word(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}

/**
 * Generates KSUIDs: timestamp from the clock (whole seconds), payload from the random pool.
 * Holds state (the last second and its timestamp field); safe to share within a thread.
 * IDs within one second are not ordered (as in the reference implementation).
 */
export class KsuidGenerator {
  readonly #clock: Clock;
  readonly #pool: RandomPool;
  /** Last unix second read (NaN before the first ID) and its KSUID timestamp field. */
  #second: number;
  #timestamp: number;

  /** Throws `TypeError` on a malformed option. */
  constructor(options: KsuidGeneratorOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw typeError('KsuidGenerator options', 'an object', options);
    }
    const { clock, random } = options;
    if (clock !== undefined && typeof clock?.now !== 'function') {
      throw typeError('KsuidGenerator options.clock', 'a Clock', clock);
    }
    if (random !== undefined && typeof random?.fill !== 'function') {
      throw typeError('KsuidGenerator options.random', 'a RandomSource', random);
    }
    this.#clock = clock ?? defaultClock();
    this.#pool = random === undefined ? defaultPool() : new RandomPool(random);
    this.#second = Number.NaN;
    this.#timestamp = 0;
  }

  /**
   * The next KSUID. Throws {@link HorizonExceededError} when the clock reads a time before the
   * KSUID epoch or after its last second ({@link KSUID_MAX_UNIX_SECONDS}).
   */
  next(): string {
    const ts = this.#now();
    const pool = this.#pool;
    const b = pool.bytes;
    const o = pool.take(16);
    // REF: bench/peers (ksuid: payload words straight from the pool, no 20-byte copy).
    return unsafeEncodeBase62Words(ts, word(b, o), word(b, o + 4), word(b, o + 8), word(b, o + 12));
  }

  /**
   * The next KSUID's 20 bytes, written into `out` at `offset` (a new array by default) and
   * returned. Throws as {@link next}, and `TypeError`/`RangeError` when `out` has no room.
   */
  nextBytes(out?: Uint8Array, offset = 0): Uint8Array {
    if (out === undefined) out = new Uint8Array(20);
    else assertOutput('KsuidGenerator.nextBytes out', out, offset, 20);
    writeBase62Word(out, offset, this.#now());
    const pool = this.#pool;
    const o = pool.take(16);
    for (let i = 0; i < 16; i++) out[offset + 4 + i] = pool.bytes[o + i]!;
    return out;
  }

  /** The timestamp field for the clock's current second, validated once per second. */
  #now(): number {
    const second = Math.floor(this.#clock.now() / 1000);
    if (second !== this.#second) {
      assertInteger('KSUID clock time (unix seconds)', second, -(2 ** 53), 2 ** 53);
      if (second < KSUID_EPOCH_SECONDS || second > KSUID_MAX_UNIX_SECONDS) {
        // An operational failure (the clock, or the year 2150), not a wrong argument.
        throw new HorizonExceededError(
          'ksuid',
          second * 1000,
          KSUID_EPOCH_SECONDS * 1000,
          (KSUID_MAX_UNIX_SECONDS + 1) * 1000,
        );
      }
      this.#second = second;
      this.#timestamp = second - KSUID_EPOCH_SECONDS;
    }
    return this.#timestamp;
  }
}

let shared: KsuidGenerator | undefined;

/** A new KSUID from the default clock and random pool. Throws as {@link KsuidGenerator.next}. */
export function ksuid(): string {
  if (shared === undefined) shared = new KsuidGenerator();
  return shared.next();
}

/** A new KSUID's 20 bytes, into `out` at `offset` (a new array by default). */
export function ksuidBytes(out?: Uint8Array, offset = 0): Uint8Array {
  if (shared === undefined) shared = new KsuidGenerator();
  return shared.nextBytes(out, offset);
}

/**
 * Decodes a KSUID into its 20 bytes, written into `out` at `offset` (a new array by default)
 * and returned. Base62 is case-sensitive. Throws {@link InvalidIdError} (scheme `ksuid`) with
 * reason `length`, `alphabet` (with the position) or `overflow` (above {@link KSUID_MAX});
 * `TypeError`/`RangeError` on a wrong argument.
 */
export function parseKsuid(text: string, out?: Uint8Array, offset = 0): Uint8Array {
  assertString('parseKsuid text', text);
  if (out === undefined) out = new Uint8Array(20);
  else assertOutput('parseKsuid out', out, offset, 20);
  if (text.length !== BASE62_DIGITS) throw base62LengthError('ksuid', text);
  const r = decodeBase62Into(text, 0, out, offset);
  if (r !== -1) throw base62Error('ksuid', text, r);
  return out;
}

/** Decodes a KSUID into its parts. Throws as {@link parseKsuid}. */
export function decomposeKsuid(text: string): KsuidParts {
  const bytes = parseKsuid(text);
  const timestamp = word(bytes, 0);
  return {
    bytes,
    timestamp,
    unixMs: (timestamp + KSUID_EPOCH_SECONDS) * 1000,
    payload: bytes.slice(4),
  };
}

/**
 * The 27-character text of the 20 bytes of `bytes` from `offset` (every 20 bytes are a valid
 * KSUID). Throws `TypeError`/`RangeError` unless there are 20 bytes there.
 */
export function formatKsuid(bytes: Uint8Array, offset = 0): string {
  assertOutput('formatKsuid bytes', bytes, offset, 20);
  return unsafeEncodeBase62(bytes, offset);
}

/**
 * The KSUID of a unix time in whole seconds and a 16-byte payload. Throws `RangeError` when
 * `unixSeconds` is not an integer in [{@link KSUID_EPOCH_SECONDS},
 * {@link KSUID_MAX_UNIX_SECONDS}], `TypeError`/`RangeError` when `payload` is not 16 bytes.
 */
export function composeKsuid(unixSeconds: number, payload: Uint8Array): string {
  assertInteger(
    'composeKsuid unixSeconds',
    unixSeconds,
    KSUID_EPOCH_SECONDS,
    KSUID_MAX_UNIX_SECONDS,
  );
  assertBytes('composeKsuid payload', payload, 16);
  return unsafeEncodeBase62Words(
    unixSeconds - KSUID_EPOCH_SECONDS,
    word(payload, 0),
    word(payload, 4),
    word(payload, 8),
    word(payload, 12),
  );
}

const scratch = /* @__PURE__ */ new Uint8Array(20);

/** Whether `text` is a valid KSUID string. Never throws. */
export function isKsuid(text: unknown): boolean {
  return (
    typeof text === 'string' &&
    text.length === BASE62_DIGITS &&
    decodeBase62Into(text, 0, scratch, 0) === -1
  );
}

/**
 * The timestamp (unix ms, a whole second) of a KSUID given as text (validated in full, as
 * {@link parseKsuid}) or as its 20 bytes. Throws as {@link parseKsuid}; `TypeError` for any
 * other input.
 */
export function ksuidTimestamp(input: string | Uint8Array): number {
  let b: Uint8Array;
  if (typeof input === 'string') b = parseKsuid(input, scratch, 0);
  else if (input instanceof Uint8Array) b = assertBytes('ksuidTimestamp input', input, 20);
  else throw typeError('ksuidTimestamp input', 'a KSUID string or a Uint8Array(20)', input);
  return (word(b, 0) + KSUID_EPOCH_SECONDS) * 1000;
}

/**
 * Checks `text` like {@link parseKsuid} and returns it (a KSUID has one text form: base62 is
 * case-sensitive). Throws exactly what {@link parseKsuid} throws.
 */
export function validateKsuid(text: string): string {
  if (!isKsuid(text)) parseKsuid(text);
  return text;
}

const KSUID_MIN_MS = KSUID_EPOCH_SECONDS * 1000;
const KSUID_MAX_MS = KSUID_MAX_UNIX_SECONDS * 1000 + 999;
const ZERO_PAYLOAD = /* @__PURE__ */ new Uint8Array(16);
const FULL_PAYLOAD = /* @__PURE__ */ new Uint8Array(16).fill(0xff);

/**
 * The lowest KSUID of `from`'s second and the highest of `to`'s second (default `from`), both
 * inclusive: a KSUID holds whole seconds, so the range widens to whole seconds. Throws
 * `TypeError` as `uuidv7Bounds` does, `RangeError` when an end is not an integer ms within
 * KSUID's range (2014-05-13T16:53:20Z to 2150-06-19T23:21:35.999Z) or `to` is before `from`.
 */
export function ksuidBounds(from: Instant, to?: Instant): IdBounds<string> {
  const [a, b] = instantRange('ksuidBounds', from, to, KSUID_MIN_MS, KSUID_MAX_MS, 'a KSUID time');
  return {
    lowest: composeKsuid(Math.floor(a / 1000), ZERO_PAYLOAD),
    highest: composeKsuid(Math.floor(b / 1000), FULL_PAYLOAD),
  };
}

/**
 * A KSUID of the second `at` falls in (unix ms or a `Date`) with a random 16-byte payload.
 * KSUIDs hold whole seconds, so IDs of one second sort in random order. Throws as
 * `uuidv7At` does, with KSUID's range (2014-05-13T16:53:20Z to 2150-06-19T23:21:35.999Z).
 */
export function ksuidAt(at: Instant, random?: RandomSource): string {
  const ms = instantMs('ksuidAt at', at, KSUID_MIN_MS, KSUID_MAX_MS, 'a KSUID time');
  const pool = poolOf('ksuidAt random', random);
  const o = pool.take(16);
  return composeKsuid(Math.floor(ms / 1000), pool.bytes.subarray(o, o + 16));
}

/*
 * The KSUID's descriptor (./schemes/descriptor.ts), kept here with the scheme: what the
 * registry's consumers (inspect, the service, the client's check, the CLI) ask of it. A bundle
 * that imports only the functions above drops it.
 */

function inspectKsuid(input: string): Decoded {
  const bytes = parseKsuid(input);
  const unixMs = ksuidTimestamp(bytes);
  const timestamp = new Date(unixMs).toISOString();
  const value = formatKsuid(bytes);
  return { input, scheme: 'ksuid', value, hex: bytesToHex(bytes), unixMs, timestamp };
}

function ksuidSource(): GenSource {
  const gen = new KsuidGenerator();
  return { text: () => gen.next(), bytes: () => gen.nextBytes() };
}

export const ksuidScheme = {
  name: 'ksuid',
  title: 'KSUID',
  service: {
    valid: (id: string) => isKsuid(id),
    generator: (clock) => new KsuidGenerator({ clock }),
  },
  inspect: {
    family: 'ksuid',
    hints: ['ksuid'],
    shape: 'a KSUID (27)',
    detect: (text: string) => text.length === 27,
    decode: inspectKsuid,
  },
  gen: { help: 'KSUID (27 characters, second precision)', source: ksuidSource },
} as const satisfies SchemeDescriptor;
