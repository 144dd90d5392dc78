/**
 * Numbers, lookup tables and input helpers shared by the UUID modules (internal: not
 * re-exported by the barrel). Tables are built once, at load.
 *
 * Field layout of RFC 9562 §4 (byte offsets in the 16-byte big-endian form):
 *
 *   0       4    6    8    10          16
 *   +-------+----+----+----+-----------+
 *   | time / random ... | M  | N  | ... |     M = version nibble (high nibble of byte 6)
 *   +-------+----+----+----+-----------+     N = variant bits (high bits of byte 8)
 */
import { typeError } from '../assert.js';
import { BYTE_TO_HEX, bytesToHex, HEX_VALUE } from '../encoding/hex.js';
import { InvalidIdError } from '../errors.js';
import { parseUuidBytes, unsafeFormatUuid, uuidHyphens } from './format.js';

/** Byte index of the version nibble (its high nibble). */
export const VERSION_BYTE = 6;
/** Byte index of the variant bits (its high bits). */
export const VARIANT_BYTE = 8;
/** String index of the version digit in the 36-character form. */
export const VERSION_CHAR = 14;
/** String index of the variant digit in the 36-character form. */
export const VARIANT_CHAR = 19;

/** Largest 48-bit unsigned integer: the last unix millisecond a UUIDv7 can hold. */
export const MAX_UNIX_TS_MS = 2 ** 48 - 1;

/**
 * Milliseconds from the Gregorian epoch of UUIDv1/v6 (1582-10-15T00:00:00Z) to the unix epoch
 * (RFC 9562 §5.1: 0x01B21DD213814000 100-ns intervals = 122 192 928 000 000 000).
 */
export const GREGORIAN_TO_UNIX_MS = 12_219_292_800_000;

/** 100-nanosecond intervals per millisecond. */
export const TICKS_PER_MS = 10_000;

/** `HEX[b]`: the two lower-case hex digits of byte `b` (alias of the shared table). */
export const HEX: readonly string[] = BYTE_TO_HEX;

/** `HEX_DIGIT_CODE[n]`: the character code of the lower-case hex digit of nibble `n`. */
export const HEX_DIGIT_CODE: Uint8Array = /* @__PURE__ */ Uint8Array.from(
  '0123456789abcdef',
  (ch) => ch.charCodeAt(0),
);

/** Value of the hex digit at `text[i]`, or 255 when it is not one. */
export function hexDigitAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? HEX_VALUE[c]! : 255;
}

/**
 * Index of the first character of a 36-character `text` that breaks the 8-4-4-4-12 hex form,
 * or -1 when it is well formed. Never throws; the caller checks the length first.
 */
export function firstBadUuidChar(text: string): number {
  for (let i = 0; i < 36; i++) {
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (text.charCodeAt(i) !== 45) return i;
    } else if (hexDigitAt(text, i) === 255) {
      return i;
    }
  }
  return -1;
}

/**
 * The first 48 bits of `text` (a UUIDv7's unix_ts_ms) when it is a well-formed 36-character
 * UUID of version `version` with RFC 9562's variant; else -1, and the caller's full parse
 * says why. Reads each character once, allocates nothing.
 *
 * REF: bench/peers/decoders.ts (uuidv7Timestamp: against a parse into a new 16-byte array,
 * then the version check formatting those bytes back into text).
 */
export function uuidTextTime48(text: string, version: number): number {
  if (text.length !== 36 || !uuidHyphens(text)) return -1;
  let bad = 0;
  let hi = 0; // digits 0-3
  let lo = 0; // digits 4-7 and 9-12
  for (let i = 0; i < 4; i++) {
    const v = hexDigitAt(text, i);
    bad |= v;
    hi = (hi << 4) | v;
  }
  for (let i = 4; i < 13; i++) {
    const v = i === 8 ? 0 : hexDigitAt(text, i);
    bad |= v;
    if (i !== 8) lo = (lo << 4) | v;
  }
  for (let i = 14; i < 36; i++) if (i !== 18 && i !== 23) bad |= hexDigitAt(text, i);
  const variant = hexDigitAt(text, VARIANT_CHAR);
  if (bad > 15 || hexDigitAt(text, VERSION_CHAR) !== version || (variant & 12) !== 8) return -1;
  return hi * 4294967296 + (lo >>> 0);
}

/**
 * The 16 bytes of a UUID given as text (parsed, either case) or as bytes (returned as is).
 * Throws `TypeError` when `input` is neither, and {@link InvalidIdError} when the text is
 * malformed or the byte array is not 16 bytes long (reason `length`).
 */
export function uuidInputBytes(name: string, input: unknown): Uint8Array {
  if (typeof input === 'string') return parseUuidBytes(input);
  if (!(input instanceof Uint8Array))
    throw typeError(name, 'a UUID string or Uint8Array(16)', input);
  if (input.length !== 16) {
    throw new InvalidIdError(
      'uuid',
      'length',
      `expected 16 bytes, got ${input.length}`,
      bytesToHex(input),
    );
  }
  return input;
}

/**
 * Throws {@link InvalidIdError} unless `b` (16 bytes) has version `v1` (or `v2`), reason
 * `version`, and RFC 9562's variant `10`, reason `variant`. `input` is the caller's argument,
 * quoted in the error.
 */
export function requireVersion(
  b: Uint8Array,
  input: string | Uint8Array,
  v1: number,
  v2 = v1,
): void {
  const v = b[VERSION_BYTE]! >> 4;
  if ((v === v1 || v === v2) && (b[VARIANT_BYTE]! & 0xc0) === 0x80) return;
  // Only now the text the error quotes (a bytes input formatted on every call was a third of
  // uuidv7Timestamp's time, inspect's included; REF: bench/peers/decoders.ts).
  const text = typeof input === 'string' ? input : unsafeFormatUuid(b);
  if (v !== v1 && v !== v2) {
    const want = v1 === v2 ? `${v1}` : `${v1} or ${v2}`;
    throw new InvalidIdError('uuid', 'version', `expected version ${want}, got ${v}`, text, 14);
  }
  if ((b[VARIANT_BYTE]! & 0xc0) !== 0x80) {
    throw new InvalidIdError(
      'uuid',
      'variant',
      `expected the RFC 9562 variant (8, 9, a or b at position 19), got "${text[19]}"`,
      text,
      19,
    );
  }
}
