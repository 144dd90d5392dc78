/**
 * Gregorian-time UUIDs: reading the 60-bit timestamp of versions 1 and 6, converting between
 * them, and MySQL's time-swapped binary form. Stateless; safe to share.
 *
 * The timestamp counts 100-ns intervals ("ticks") since 1582-10-15T00:00:00Z (RFC 9562
 * §5.1). Version 1 stores it low part first, version 6 (§5.6) high part first so that IDs
 * sort by time; clock sequence and node (bytes 8-15) are the same in both:
 *
 *   v1:  time_low (ticks 31..0) - time_mid (47..32) - 1 + time_high (59..48) - clock_seq - node
 *   v6:  time_high (ticks 59..28) - time_mid (27..12) - 6 + time_low (11..0) - clock_seq - node
 *
 * MySQL's `UUID_TO_BIN(u, 1)` swaps the first and third groups of the text form:
 *   bytes = time_hi_and_version (2) + time_mid (2) + time_low (4) + bytes 8-15 of the UUID.
 */
import { assertOutput, typeError } from '../assert.js';
import { bytesToHex } from '../encoding/hex.js';
import { GREGORIAN_TO_UNIX_MS, requireVersion, TICKS_PER_MS, uuidInputBytes } from './constants.js';
import { parseUuidBytes, unsafeFormatUuid } from './format.js';

/** The time in a version-1 or version-6 UUID. */
export interface UuidGregorianTime {
  /** Unix milliseconds, rounded down (whole ms; the exact value is in `ticks`). */
  readonly unixMs: number;
  /** 100-ns intervals since 1582-10-15T00:00:00Z: the 60-bit timestamp field. */
  readonly ticks: bigint;
}

function u32(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}

/**
 * The full time of a version-1 or version-6 UUID given as text or 16 bytes: unix ms and the
 * exact 60-bit tick count.
 *
 * Throws {@link InvalidIdError} on malformed input, a version other than 1 or 6 (reason
 * `version`) or a variant other than RFC 9562's (reason `variant`); `TypeError` when `input`
 * is neither a string nor a Uint8Array.
 */
export function uuidGregorianTime(input: string | Uint8Array): UuidGregorianTime {
  const b = uuidInputBytes('uuidGregorianTime input', input);
  requireVersion(b, input, 1, 6);
  const mid = (b[4]! << 8) | b[5]!;
  const low12 = ((b[6]! & 0x0f) << 8) | b[7]!;
  let hi: number; // ticks 59..32 (28 bits)
  let lo: number; // ticks 31..0
  if (b[6]! >> 4 === 1) {
    hi = (low12 << 16) | mid;
    lo = u32(b, 0);
  } else {
    const top = u32(b, 0);
    hi = top >>> 4;
    lo = (((top & 0x0f) << 28) | (mid << 12) | low12) >>> 0;
  }
  // floor((hi * 2^32 + lo) / 10^4) without leaving exact doubles: 2^32 = 429496 * 10^4 + 7296.
  const sinceGregorian = hi * 429_496 + Math.floor((hi * 7296 + lo) / TICKS_PER_MS);
  return {
    unixMs: sinceGregorian - GREGORIAN_TO_UNIX_MS,
    ticks: (BigInt(hi) << 32n) | BigInt(lo),
  };
}

/**
 * The timestamp (unix ms, rounded down) of a version-1 or version-6 UUID given as text or 16
 * bytes. Throws as {@link uuidGregorianTime}.
 */
export function uuidv1Timestamp(input: string | Uint8Array): number {
  return uuidGregorianTime(input).unixMs;
}

/** The same function as {@link uuidv1Timestamp}: it reads versions 1 and 6 alike. */
export const uuidv6Timestamp: (input: string | Uint8Array) => number = uuidv1Timestamp;

/** Reorders the v1 UUID at `b` into v6 at `out`/`o` (RFC 9562 §5.6). Trusts its arguments. */
function unsafeV1ToV6(b: Uint8Array, out: Uint8Array, o: number): void {
  const high12 = ((b[6]! & 0x0f) << 8) | b[7]!;
  const mid = (b[4]! << 8) | b[5]!;
  const low = u32(b, 0);
  const top = ((high12 << 20) | (mid << 4) | (low >>> 28)) >>> 0;
  out[o] = top >>> 24;
  out[o + 1] = top >>> 16;
  out[o + 2] = top >>> 8;
  out[o + 3] = top;
  out[o + 4] = low >>> 20;
  out[o + 5] = low >>> 12;
  out[o + 6] = 0x60 | ((low >>> 8) & 0x0f);
  out[o + 7] = low;
  out.set(b.subarray(8, 16), o + 8);
}

/** Reorders the v6 UUID at `b` into v1 at `out`/`o`. Trusts its arguments. */
function unsafeV6ToV1(b: Uint8Array, out: Uint8Array, o: number): void {
  const top = u32(b, 0);
  const mid = (b[4]! << 8) | b[5]!;
  const low = (((top & 0x0f) << 28) | (mid << 12) | ((b[6]! & 0x0f) << 8) | b[7]!) >>> 0;
  out[o] = low >>> 24;
  out[o + 1] = low >>> 16;
  out[o + 2] = low >>> 8;
  out[o + 3] = low;
  out[o + 4] = top >>> 12;
  out[o + 5] = top >>> 4;
  out[o + 6] = 0x10 | (top >>> 28);
  out[o + 7] = top >>> 20;
  out.set(b.subarray(8, 16), o + 8);
}

/**
 * The version-6 UUID with the same timestamp, clock sequence and node as the version-1
 * UUID `text` (RFC 9562 §5.6), in lower case. Throws {@link InvalidIdError} when `text` is
 * malformed (`length`, `format`, `alphabet`), not version 1 (`version`) or not RFC 9562's
 * variant (`variant`); `TypeError` when it is not a string.
 */
export function v1ToV6(text: string): string {
  const b = parseUuidBytes(text);
  requireVersion(b, text, 1);
  unsafeV1ToV6(b, b, 0);
  return unsafeFormatUuid(b);
}

/** The inverse of {@link v1ToV6}: throws the same errors for a non-version-6 input. */
export function v6ToV1(text: string): string {
  const b = parseUuidBytes(text);
  requireVersion(b, text, 6);
  unsafeV6ToV1(b, b, 0);
  return unsafeFormatUuid(b);
}

/** MySQL's swap order: source byte index for each position of the swapped form. */
const SWAP = [6, 7, 4, 5, 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15];

/**
 * MySQL's `UUID_TO_BIN(text, 1)`: the 16 bytes with time-low and time-high swapped, written
 * into `out` at `offset` (a new array by default); returns `out`. Any well-formed UUID is
 * accepted, as MySQL does, though only version 1 gains index locality from it.
 *
 * Throws {@link InvalidIdError} on malformed text, `TypeError`/`RangeError` when `out` has
 * no room for 16 bytes at `offset`.
 */
export function toMysqlSwap(text: string, out?: Uint8Array, offset = 0): Uint8Array {
  const b = parseUuidBytes(text);
  if (out === undefined) out = new Uint8Array(16);
  else assertOutput('toMysqlSwap out', out, offset, 16);
  for (let i = 0; i < 16; i++) out[offset + i] = b[SWAP[i]!]!;
  return out;
}

/**
 * MySQL's `BIN_TO_UUID(bytes, 1)`: the UUID text (lower case) of 16 time-swapped bytes.
 * Throws {@link InvalidIdError} (reason `length`) when `bytes` is not 16 bytes long,
 * `TypeError` when it is not a Uint8Array.
 */
export function fromMysqlSwap(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array))
    throw typeError('fromMysqlSwap bytes', 'a Uint8Array(16)', bytes);
  const s = uuidInputBytes('fromMysqlSwap bytes', bytes);
  const b = new Uint8Array(16);
  for (let i = 0; i < 16; i++) b[SWAP[i]!] = s[i]!;
  return unsafeFormatUuid(b);
}

/**
 * The 32 lower-case hex digits of `toMysqlSwap(text)`, for SQL literals (`X'...'`,
 * `UNHEX('...')`). Throws like {@link toMysqlSwap}.
 */
export function mysqlSwapHex(text: string): string {
  return bytesToHex(toMysqlSwap(text));
}
