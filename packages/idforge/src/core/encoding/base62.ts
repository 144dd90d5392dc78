/**
 * Base62 of 160 bits, as segmentio's reference `base62.go` writes it: the alphabet
 * `0-9A-Za-z` in ASCII order, so text order is numeric order, and a fixed width of 27 digits,
 * left-padded with '0'. The largest 27-digit value that fits 160 bits is
 * `aWgEPTl1tmebfsQzFP4bxwgy80V` (2^160 - 1); anything above is an overflow.
 *
 * Both directions work on five 32-bit words (as base62.go does, so the quadratic long
 * division has 5 columns rather than 20) and three base62 digits per step (62^3 < 2^18, so
 * every intermediate stays below 2^50, exact in a double). Tables are built once at load.
 */
import { assertOutput, assertString } from '../assert.js';
import { InvalidIdError } from '../errors.js';

/** The 62 digits in value order (ASCII order). */
export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Bytes and digits of the fixed-width form. */
export const BASE62_BYTES = 20;
export const BASE62_DIGITS = 27;

/** `BASE62_VALUE[charCode]` is the digit's value, or 255. */
export const BASE62_VALUE: Uint8Array = /* @__PURE__ */ (() => {
  const t = new Uint8Array(128).fill(255);
  for (let v = 0; v < 62; v++) t[BASE62_ALPHABET.charCodeAt(v)] = v;
  return t;
})();

/** Returned by {@link decodeBase62Into} when the value exceeds 160 bits. */
export const BASE62_OVERFLOW = -2;

const STEP = 62 * 62 * 62; // digits per long-division step: 3
const WORD = 4294967296;

/** `BASE62_CODE[v]` is the character code of digit `v`. */
const BASE62_CODE: Uint8Array = /* @__PURE__ */ Uint8Array.from(BASE62_ALPHABET, (c) =>
  c.charCodeAt(0),
);

/** `BASE62_PAIR_CODES[v]` packs the two character codes of `v` < 62^2 as `hi << 8 | lo`. */
const BASE62_PAIR_CODES: Uint16Array = /* @__PURE__ */ Uint16Array.from(
  { length: 62 * 62 },
  (_, v) => (BASE62_CODE[Math.floor(v / 62)]! << 8) | BASE62_CODE[v % 62]!,
);

/** Remainders of the long division, most significant first (scratch, not reentrant). */
const REM = /* @__PURE__ */ new Float64Array(9);
const fromCharCode = String.fromCharCode;

/**
 * The 27 digits of the 160-bit number whose big-endian 32-bit words are `w0..w4` (each an
 * integer in [0, 2^32)). Trusts its arguments.
 *
 * REF: bench/peers (five words and three digits per division step, instead of the
 * reference package's byte-at-a-time division; `Math.floor` beats `>>> 0` on quotients above
 * 2^31; one 27-argument `String.fromCharCode` is about twice as fast as 18 concatenations).
 * Split in two (issue 21): V8 inlines divideIntoRem; remDigits is past its inlining limit,
 * one call per ID that bench/peers does not tell apart from the single body it was.
 */
export function unsafeEncodeBase62Words(
  w0: number,
  w1: number,
  w2: number,
  w3: number,
  w4: number,
): string {
  divideIntoRem(w0, w1, w2, w3, w4);
  return remDigits();
}

/**
 * Nine long divisions of w0..w4 by 62^3: `REM[8]` gets the least significant three digits,
 * `REM[0]` the most significant. Every dividend is below 2^50, exact in a double.
 */
function divideIntoRem(w0: number, w1: number, w2: number, w3: number, w4: number): void {
  for (let step = 8; step >= 0; step--) {
    let q = Math.floor(w0 / STEP);
    let r = w0 - q * STEP;
    w0 = q;
    let v = r * WORD + w1;
    q = Math.floor(v / STEP);
    r = v - q * STEP;
    w1 = q;
    v = r * WORD + w2;
    q = Math.floor(v / STEP);
    r = v - q * STEP;
    w2 = q;
    v = r * WORD + w3;
    q = Math.floor(v / STEP);
    r = v - q * STEP;
    w3 = q;
    v = r * WORD + w4;
    q = Math.floor(v / STEP);
    REM[step] = v - q * STEP;
    w4 = q;
  }
}

/** The 27 digits of `REM`: each remainder (< 62^3) as one digit and a pair from the tables. */
function remDigits(): string {
  const c = BASE62_CODE;
  const p = BASE62_PAIR_CODES;
  const r0 = REM[0]!;
  const r1 = REM[1]!;
  const r2 = REM[2]!;
  const r3 = REM[3]!;
  const r4 = REM[4]!;
  const r5 = REM[5]!;
  const r6 = REM[6]!;
  const r7 = REM[7]!;
  const r8 = REM[8]!;
  const h0 = Math.floor(r0 / 3844);
  const h1 = Math.floor(r1 / 3844);
  const h2 = Math.floor(r2 / 3844);
  const h3 = Math.floor(r3 / 3844);
  const h4 = Math.floor(r4 / 3844);
  const h5 = Math.floor(r5 / 3844);
  const h6 = Math.floor(r6 / 3844);
  const h7 = Math.floor(r7 / 3844);
  const h8 = Math.floor(r8 / 3844);
  const p0 = p[r0 - h0 * 3844]!;
  const p1 = p[r1 - h1 * 3844]!;
  const p2 = p[r2 - h2 * 3844]!;
  const p3 = p[r3 - h3 * 3844]!;
  const p4 = p[r4 - h4 * 3844]!;
  const p5 = p[r5 - h5 * 3844]!;
  const p6 = p[r6 - h6 * 3844]!;
  const p7 = p[r7 - h7 * 3844]!;
  const p8 = p[r8 - h8 * 3844]!;
  // biome-ignore format: three digits per line of the division
  return fromCharCode(
    c[h0]!, p0 >> 8, p0 & 255, c[h1]!, p1 >> 8, p1 & 255, c[h2]!, p2 >> 8, p2 & 255,
    c[h3]!, p3 >> 8, p3 & 255, c[h4]!, p4 >> 8, p4 & 255, c[h5]!, p5 >> 8, p5 & 255,
    c[h6]!, p6 >> 8, p6 & 255, c[h7]!, p7 >> 8, p7 & 255, c[h8]!, p8 >> 8, p8 & 255,
  );
}

/** Reads the big-endian 32-bit word at `b[o..o+3]`. */
function word(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}

/** The 27 digits of the 20 bytes of `bytes` from `offset`. Trusts its arguments. */
export function unsafeEncodeBase62(bytes: Uint8Array, offset: number): string {
  return unsafeEncodeBase62Words(
    word(bytes, offset),
    word(bytes, offset + 4),
    word(bytes, offset + 8),
    word(bytes, offset + 12),
    word(bytes, offset + 16),
  );
}

/**
 * Encodes the 20 bytes of `bytes` from `offset` as 27 base62 digits (fixed width). Throws
 * `TypeError`/`RangeError` unless there are 20 bytes at `offset`.
 */
export function encodeBase62(bytes: Uint8Array, offset = 0): string {
  assertOutput('encodeBase62 bytes', bytes, offset, BASE62_BYTES);
  return unsafeEncodeBase62(bytes, offset);
}

function value(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? BASE62_VALUE[c]! : 255;
}

/**
 * Decodes the 27 digits of `text` from `from` into 20 bytes of `out` at `offset`. Returns -1
 * on success, the index of the first character that is not a base62 digit, or
 * {@link BASE62_OVERFLOW} when the value exceeds 2^160 - 1; `out` is written only on success.
 * The caller guarantees 27 characters from `from`.
 */
export function decodeBase62Into(
  text: string,
  from: number,
  out: Uint8Array,
  offset: number,
): number {
  // Horner over 3-digit chunks: w = w * 62^3 + chunk, in five 32-bit words. Each digit is
  // read once: a non-digit (255) is or-ed into `bad` and looked for after the loop.
  // REF: bench/peers/decoders.ts (the 27-digit parse: against a check pass, then converting).
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  let w3 = 0;
  let w4 = 0;
  let carry = 0;
  let bad = 0;
  for (let i = from; i < from + BASE62_DIGITS; i += 3) {
    const a = value(text, i);
    const b = value(text, i + 1);
    const c = value(text, i + 2);
    bad |= a | b | c;
    let v = w4 * STEP + a * 3844 + b * 62 + c;
    w4 = v >>> 0; // v < 2^50: ToUint32 is v mod 2^32, exactly
    v = w3 * STEP + (v - w4) / WORD;
    w3 = v >>> 0;
    v = w2 * STEP + (v - w3) / WORD;
    w2 = v >>> 0;
    v = w1 * STEP + (v - w2) / WORD;
    w1 = v >>> 0;
    v = w0 * STEP + (v - w1) / WORD;
    w0 = v >>> 0;
    carry |= (v - w0) / WORD;
  }
  if (bad > 63) {
    for (let i = from; i < from + BASE62_DIGITS; i++) if (value(text, i) > 61) return i;
  }
  if (carry !== 0) return BASE62_OVERFLOW;
  writeBase62Word(out, offset, w0);
  writeBase62Word(out, offset + 4, w1);
  writeBase62Word(out, offset + 8, w2);
  writeBase62Word(out, offset + 12, w3);
  writeBase62Word(out, offset + 16, w4);
  return -1;
}

/** Writes `w` big-endian at `out[o..o+3]`. */
export function writeBase62Word(out: Uint8Array, o: number, w: number): void {
  out[o] = w >>> 24;
  out[o + 1] = w >>> 16;
  out[o + 2] = w >>> 8;
  out[o + 3] = w;
}

/**
 * The error for a failed {@link decodeBase62Into} (`code` is its non -1 result): reason
 * `overflow`, or `alphabet` with the position.
 */
export function base62Error(scheme: string, text: string, code: number): InvalidIdError {
  if (code === BASE62_OVERFLOW) {
    return new InvalidIdError(
      scheme,
      'overflow',
      'value exceeds 160 bits (the largest is "aWgEPTl1tmebfsQzFP4bxwgy80V")',
      text,
    );
  }
  return new InvalidIdError(
    scheme,
    'alphabet',
    `${JSON.stringify(text[code])} at position ${code} is not a base62 digit`,
    text,
    code,
  );
}

/** The error for a text that is not 27 characters long. */
export function base62LengthError(scheme: string, text: string): InvalidIdError {
  return new InvalidIdError(
    scheme,
    'length',
    `expected ${BASE62_DIGITS} characters, got ${text.length}`,
    text,
  );
}

/**
 * Decodes 27 base62 digits into 20 bytes of `out` at `offset` (a new array by default) and
 * returns it. Throws {@link InvalidIdError} (scheme `base62`) with reason `length`,
 * `alphabet` (with the position) or `overflow`; `TypeError`/`RangeError` on a wrong argument.
 */
export function decodeBase62(text: string, out?: Uint8Array, offset = 0): Uint8Array {
  assertString('decodeBase62 text', text);
  if (out === undefined) out = new Uint8Array(BASE62_BYTES);
  else assertOutput('decodeBase62 out', out, offset, BASE62_BYTES);
  if (text.length !== BASE62_DIGITS) throw base62LengthError('base62', text);
  const r = decodeBase62Into(text, 0, out, offset);
  if (r !== -1) throw base62Error('base62', text, r);
  return out;
}
