/**
 * The base64url alphabet of RFC 4648 §5 (`A-Z a-z 0-9 - _`), without padding, for the two
 * fixed sizes of public IDs: 16 bytes (22 characters, the last 4 bits zero) and 21 bytes (28
 * characters, no spare bits). Decoding is strict: a character outside the alphabet, or spare
 * bits that are not zero, is refused, so every byte string has exactly one text.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Two characters for every 12-bit value, built once: three bytes are two lookups.
 * REF: bench/peers/public-group.ts (half the encoding time of one lookup per 6 bits).
 */
const PAIRS: readonly string[] = Array.from(
  { length: 4096 },
  (_, v) => ALPHABET[v >>> 6]! + ALPHABET[v & 63]!,
);

/** Value of each ASCII code in the alphabet, -1 elsewhere. */
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

/** Encodes `b[0..n)` for n = 16 or 21 (whole groups of 3 bytes plus, for 16, one byte). */
export function encodeBase64url(b: Uint8Array, n: number): string {
  let s = '';
  let i = 0;
  for (; i + 3 <= n; i += 3) {
    s += PAIRS[(b[i]! << 4) | (b[i + 1]! >>> 4)]! + PAIRS[((b[i + 1]! & 15) << 8) | b[i + 2]!]!;
  }
  if (i < n) s += PAIRS[b[i]! << 4]!; // one byte left: 8 bits and 4 zero bits
  return s;
}

/**
 * Decodes `text[start..)` (22 characters → 16 bytes, or 28 → 21) into `out`. Returns -1 when
 * it succeeded, else the position (in `text`) of the first character outside the alphabet, or
 * of the last character when its spare bits are not zero.
 */
export function decodeBase64url(text: string, start: number, out: Uint8Array, n: number): number {
  let j = 0;
  let p = start;
  for (; j + 3 <= n; j += 3, p += 4) {
    const a = value(text, p);
    const b = value(text, p + 1);
    const c = value(text, p + 2);
    const d = value(text, p + 3);
    if ((a | b | c | d) < 0) return firstBad(text, p, 4);
    out[j] = (a << 2) | (b >>> 4);
    out[j + 1] = ((b & 15) << 4) | (c >>> 2);
    out[j + 2] = ((c & 3) << 6) | d;
  }
  if (j < n) {
    const a = value(text, p);
    const b = value(text, p + 1);
    if ((a | b) < 0) return firstBad(text, p, 2);
    if ((b & 15) !== 0) return p + 1;
    out[j] = (a << 2) | (b >>> 4);
  }
  return -1;
}

function value(text: string, p: number): number {
  const c = text.charCodeAt(p);
  return c < 128 ? VALUE[c]! : -1;
}

function firstBad(text: string, p: number, count: number): number {
  for (let k = 0; k < count; k++) if (value(text, p + k) < 0) return p + k;
  return p;
}
