/**
 * Crockford's base32 (https://www.crockford.com/base32.html), as ULID uses it: the alphabet
 * `0123456789ABCDEFGHJKMNPQRSTVWXYZ`, encoded as a big-endian number, most significant digit
 * first, so that text order is byte order. Tables are built once at load.
 *
 * Decoding is case-insensitive and comes in two tables:
 * - strict (the default): I, L, O and U are invalid, as the reference parsers oklog/ulid
 *   (`ParseStrict`) and ulid/javascript (`isValid`) reject them;
 * - lenient: I and L read as 1, O as 0, as Crockford intended for human-typed input; U is
 *   still invalid (Crockford reserves it as a check symbol).
 *
 * 128 bits take 26 digits (130 bits): the first digit carries only 3 bits, so it is at most
 * '7'; a larger first digit is an overflow, never silently truncated.
 */
import { assertInteger, assertOutput, assertString, typeError } from '../assert.js';
import { InvalidIdError } from '../errors.js';

/** The 32 digits in value order. */
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Marks an invalid character in the decode tables. */
export const CROCKFORD_INVALID = 255;

function decodeTable(lenient: boolean): Uint8Array {
  const t = new Uint8Array(128).fill(CROCKFORD_INVALID);
  for (let v = 0; v < 32; v++) {
    const c = CROCKFORD_ALPHABET.charCodeAt(v);
    t[c] = v;
    t[c | 0x20] = v; // lower case: every digit letter is ASCII, so one bit flips the case
  }
  if (lenient) for (const ch of 'IiLlOo') t[ch.charCodeAt(0)] = 'Oo'.includes(ch) ? 0 : 1;
  return t;
}

/** `CROCKFORD_STRICT[charCode]` is the digit's value, or 255 (I, L, O, U and non-digits). */
export const CROCKFORD_STRICT: Uint8Array = /* @__PURE__ */ decodeTable(false);
/** As {@link CROCKFORD_STRICT}, but I/i and L/l read as 1 and O/o as 0. */
export const CROCKFORD_LENIENT: Uint8Array = /* @__PURE__ */ decodeTable(true);

/** `CROCKFORD_CODES[v]` is the character code of digit `v`. */
export const CROCKFORD_CODES: Uint8Array = /* @__PURE__ */ Uint8Array.from(
  CROCKFORD_ALPHABET,
  (c) => c.charCodeAt(0),
);

/** Returned by {@link decodeCrockford128Into} when the first digit is above '7'. */
export const CROCKFORD_OVERFLOW = -2;

/**
 * The 26-digit text of a ULID: the 10 digits of the 48-bit time `ms` (an integer in
 * [0, 2^48)), then 80 bits given as four 20-bit integers, most significant first. Trusts its
 * arguments.
 *
 * REF: bench/peers (ulid: one 26-argument `String.fromCharCode` makes a flat string; joining
 * cached prefix text and digit pairs made a rope that cost twice as much once the ID is used).
 * The time digits are computed for every ID rather than cached per millisecond: as fast
 * (ten table reads either way), with no cache to keep. The table reads are written out, not
 * a helper's 26 calls (slower per ID, for the same gzip size).
 */
export function unsafeUlidText(ms: number, r0: number, r1: number, r2: number, r3: number): string {
  const t = Math.floor(ms / 33554432); // the top 23 bits (2^25 = 33554432): five digits
  const u = ms - t * 33554432; // the low 25 bits: five digits
  const c = CROCKFORD_CODES;
  // biome-ignore format: one line per 20 or 25 bits
  return String.fromCharCode(
    c[t >>> 20]!, c[(t >>> 15) & 31]!, c[(t >>> 10) & 31]!, c[(t >>> 5) & 31]!, c[t & 31]!,
    c[u >>> 20]!, c[(u >>> 15) & 31]!, c[(u >>> 10) & 31]!, c[(u >>> 5) & 31]!, c[u & 31]!,
    c[r0 >>> 15]!, c[(r0 >>> 10) & 31]!, c[(r0 >>> 5) & 31]!, c[r0 & 31]!,
    c[r1 >>> 15]!, c[(r1 >>> 10) & 31]!, c[(r1 >>> 5) & 31]!, c[r1 & 31]!,
    c[r2 >>> 15]!, c[(r2 >>> 10) & 31]!, c[(r2 >>> 5) & 31]!, c[r2 & 31]!,
    c[r3 >>> 15]!, c[(r3 >>> 10) & 31]!, c[(r3 >>> 5) & 31]!, c[r3 & 31]!,
  );
}

/** The high 20 of the 40 bits in `b[o..o+4]`. */
export function crockfordHigh20(b: Uint8Array, o: number): number {
  return (b[o]! << 12) | (b[o + 1]! << 4) | (b[o + 2]! >> 4);
}

/** The low 20 of the 40 bits in `b[o..o+4]`. */
export function crockfordLow20(b: Uint8Array, o: number): number {
  return ((b[o + 2]! & 15) << 16) | (b[o + 3]! << 8) | b[o + 4]!;
}

/**
 * The 26 digits of the 16 bytes of `b` from `o` (the first digit, holding the top 3 bits, is
 * at most '7'). Trusts its arguments.
 */
export function unsafeEncodeCrockford128(b: Uint8Array, o: number): string {
  const lo = ((b[o + 2]! << 24) | (b[o + 3]! << 16) | (b[o + 4]! << 8) | b[o + 5]!) >>> 0;
  return unsafeUlidText(
    ((b[o]! << 8) | b[o + 1]!) * 4294967296 + lo,
    crockfordHigh20(b, o + 6),
    crockfordLow20(b, o + 6),
    crockfordHigh20(b, o + 11),
    crockfordLow20(b, o + 11),
  );
}

/** Value of the digit at `i`, or 255. */
function digit(text: string, i: number, table: Uint8Array): number {
  const c = text.charCodeAt(i);
  return c < 128 ? table[c]! : CROCKFORD_INVALID;
}

/**
 * The 20 bits of the 4 (valid) digits at `from`.
 *
 * REF: bench/peers/decoders.ts (ulidTimestamp: a closure over the digits here cost 2 µs per
 * ULID under tsx, whose esbuild `keepNames` names each new closure with
 * `Object.defineProperty`; as plain calls, 2.2 µs → 0.2 µs).
 */
function digits4(text: string, from: number, table: Uint8Array): number {
  return (
    (digit(text, from, table) << 15) |
    (digit(text, from + 1, table) << 10) |
    (digit(text, from + 2, table) << 5) |
    digit(text, from + 3, table)
  );
}

/** Writes the 5 bytes of 8 digits at `from` (all valid) into `out[o..o+4]`. */
function decode40(text: string, from: number, table: Uint8Array, out: Uint8Array, o: number) {
  const hi = digits4(text, from, table);
  const lo = digits4(text, from + 4, table);
  out[o] = hi >> 12;
  out[o + 1] = hi >> 4;
  out[o + 2] = (hi << 4) | (lo >> 16);
  out[o + 3] = lo >> 8;
  out[o + 4] = lo;
}

/**
 * Checks the 26 digits of `text` from `from` against `table` ({@link CROCKFORD_STRICT} or
 * {@link CROCKFORD_LENIENT}). Returns -1 when all are valid, the index of the first invalid
 * character, or {@link CROCKFORD_OVERFLOW} when the first digit is above '7'. The caller
 * guarantees `text` has 26 characters from `from`.
 */
export function scanCrockford128(text: string, from: number, table: Uint8Array): number {
  let bad = 0;
  for (let i = from; i < from + 26; i++) bad |= digit(text, i, table);
  if (bad > 31) {
    for (let i = from; i < from + 26; i++) if (digit(text, i, table) > 31) return i;
  }
  return digit(text, from, table) > 7 ? CROCKFORD_OVERFLOW : -1;
}

/**
 * The 48-bit time (the first 10 digits) of the 26 digits of `text` from 0, all 26 checked
 * against `table` in the same pass; -1 when {@link scanCrockford128} would not return -1 (the
 * caller asks it why). The caller guarantees 26 characters.
 *
 * REF: bench/peers/decoders.ts (ulidTimestamp: one pass that reads each digit once and keeps
 * only the time, against a scan and then a 16-byte decode into scratch that read each twice).
 */
export function crockfordUlidTime(text: string, table: Uint8Array): number {
  let bad = 0;
  let hi = 0; // digits 0-4: the top 23 bits (the first digit holds 3)
  let lo = 0; // digits 5-9: the next 25
  for (let i = 0; i < 5; i++) {
    const v = digit(text, i, table);
    bad |= v;
    hi = (hi << 5) | v;
  }
  for (let i = 5; i < 10; i++) {
    const v = digit(text, i, table);
    bad |= v;
    lo = (lo << 5) | v;
  }
  for (let i = 10; i < 26; i++) bad |= digit(text, i, table);
  if (bad > 31 || digit(text, 0, table) > 7) return -1;
  return hi * 33554432 + lo;
}

/**
 * Decodes 26 digits of `text` from `from` into 16 bytes of `out` at `offset`. Returns as
 * {@link scanCrockford128}; `out` is written only on success (-1).
 */
export function decodeCrockford128Into(
  text: string,
  from: number,
  table: Uint8Array,
  out: Uint8Array,
  offset: number,
): number {
  const r = scanCrockford128(text, from, table);
  if (r !== -1) return r;
  out[offset] = (digit(text, from, table) << 5) | digit(text, from + 1, table);
  decode40(text, from + 2, table, out, offset + 1);
  decode40(text, from + 10, table, out, offset + 6);
  decode40(text, from + 18, table, out, offset + 11);
  return -1;
}

/**
 * Encodes `length` bytes of `bytes` from `offset` (all of it by default) as Crockford base32
 * digits: the bytes read as one big-endian number, written in `ceil(8 * length / 5)` digits,
 * upper case. 16 bytes give the 26-digit ULID form. Throws `TypeError`/`RangeError` on a
 * wrong argument.
 */
export function encodeBase32Crockford(bytes: Uint8Array, offset = 0, length?: number): string {
  if (!(bytes instanceof Uint8Array))
    throw typeError('encodeBase32Crockford bytes', 'a Uint8Array', bytes);
  assertInteger('encodeBase32Crockford offset', offset, 0, bytes.length);
  if (length === undefined) length = bytes.length - offset;
  assertInteger('encodeBase32Crockford length', length, 0, bytes.length - offset);
  if (length === 16) return unsafeEncodeCrockford128(bytes, offset);
  const digits = new Array<string>(Math.ceil((8 * length) / 5));
  let acc = 0;
  let bits = 0;
  let d = digits.length;
  for (let i = offset + length - 1; i >= offset; i--) {
    acc |= bytes[i]! << bits;
    bits += 8;
    while (bits >= 5) {
      digits[--d] = CROCKFORD_ALPHABET[acc & 31]!;
      acc >>>= 5;
      bits -= 5;
    }
  }
  if (d > 0) digits[--d] = CROCKFORD_ALPHABET[acc & 31]!;
  return digits.join('');
}

/** Options of the Crockford base32 decoders. */
export interface CrockfordDecodeOptions {
  /** Read I and L as 1 and O as 0 (U stays invalid). Default `false`: they are rejected. */
  readonly lenient?: boolean;
}

/** The decode table `options` select. Throws `TypeError` on a malformed options object. */
export function crockfordTable(
  name: string,
  options: CrockfordDecodeOptions | undefined,
): Uint8Array {
  if (options === undefined) return CROCKFORD_STRICT;
  if (typeof options !== 'object' || options === null) {
    throw typeError(`${name} options`, 'an object', options);
  }
  const lenient = options.lenient;
  if (lenient === undefined || lenient === false) return CROCKFORD_STRICT;
  if (lenient === true) return CROCKFORD_LENIENT;
  throw typeError(`${name} options.lenient`, 'a boolean', lenient);
}

/**
 * The error for a failed scan or decode result `code` (a position, or
 * {@link CROCKFORD_OVERFLOW}) of `text`: reason `alphabet` or `overflow`, with the position.
 */
export function crockfordError(
  scheme: string,
  text: string,
  code: number,
  table: Uint8Array,
): InvalidIdError {
  if (code === CROCKFORD_OVERFLOW) {
    const detail = `first character ${JSON.stringify(text[0])} is above "7": more than 128 bits`;
    return new InvalidIdError(scheme, 'overflow', detail, text, 0);
  }
  const ch = text[code]!;
  const hint =
    table !== CROCKFORD_LENIENT && 'ILOilo'.includes(ch)
      ? ' (lenient decoding, { lenient: true } or --lenient, reads I, L as 1 and O as 0)'
      : '';
  const detail = `${JSON.stringify(ch)} at position ${code} is not a Crockford base32 digit`;
  return new InvalidIdError(scheme, 'alphabet', detail + hint, text, code);
}

/**
 * Decodes Crockford base32 `text` (either case) into `out` at `offset` (a new array by
 * default) and returns it. A text of `n` digits gives `floor(5n / 8)` bytes; `n` must be a
 * length {@link encodeBase32Crockford} produces, and the unused high bits of the first digit
 * must be zero.
 *
 * Throws {@link InvalidIdError} (scheme `base32-crockford`) with reason `length`,
 * `alphabet` (with the position) or `overflow` (position 0); `TypeError`/`RangeError` on a
 * wrong argument.
 */
export function decodeBase32Crockford(
  text: string,
  options?: CrockfordDecodeOptions,
  out?: Uint8Array,
  offset = 0,
): Uint8Array {
  assertString('decodeBase32Crockford text', text);
  const table = crockfordTable('decodeBase32Crockford', options);
  const n = Math.floor((5 * text.length) / 8);
  if (out === undefined) out = new Uint8Array(n);
  else assertOutput('decodeBase32Crockford out', out, offset, n);
  if (Math.ceil((8 * n) / 5) !== text.length) {
    const detail = `${text.length} digits is not the encoding of a whole number of bytes`;
    throw new InvalidIdError('base32-crockford', 'length', detail, text);
  }
  for (let i = 0; i < text.length; i++) {
    if (digit(text, i, table) > 31) throw crockfordError('base32-crockford', text, i, table);
  }
  const spare = 5 * text.length - 8 * n; // unused high bits of the first digit
  if (text.length > 0 && digit(text, 0, table) >> (5 - spare) !== 0) {
    const detail = `first digit ${JSON.stringify(text[0])} exceeds ${8 * n} bits`;
    throw new InvalidIdError('base32-crockford', 'overflow', detail, text, 0);
  }
  let acc = 0;
  let bits = 0;
  let o = offset + n;
  for (let i = text.length - 1; i >= 0 && o > offset; i--) {
    acc |= digit(text, i, table) << bits;
    bits += 5;
    if (bits >= 8) {
      out[--o] = acc;
      acc >>>= 8;
      bits -= 8;
    }
  }
  return out;
}
