/**
 * TypeID's base32 (spec 0.3, "Base32 Encoding"): the UUID's 128 bits, big-endian, with two
 * zero bits in front, as 26 digits of 5 bits, alphabet `0123456789abcdefghjkmnpqrstvwxyz`.
 * Crockford's digits, but strict: lower case only, no aliases, no hyphens. Tables are built
 * once at load; the `unsafe*` functions trust their arguments (callers check first).
 */

/** The suffix alphabet, in value order. */
export const TYPEID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

const INVALID = 255;

/** `TYPEID_CODES[v]` is the character code of digit `v`. */
export const TYPEID_CODES: Uint8Array = Uint8Array.from(TYPEID_ALPHABET, (c) => c.charCodeAt(0));

/** `TYPEID_VALUE[charCode]` is the digit's value, or 255 (upper case included). */
const TYPEID_VALUE: Uint8Array = (() => {
  const t = new Uint8Array(128).fill(INVALID);
  for (let v = 0; v < 32; v++) t[TYPEID_CODES[v]!] = v;
  return t;
})();

/**
 * Checks the 26 suffix digits of `text` from `from`: -1 when valid, else the index of the
 * first invalid character, or -2 when the first digit is above `7`.
 */
export function scanTypeIdSuffix(text: string, from: number): number {
  let bad = 0;
  for (let i = from; i < from + 26; i++) {
    const c = text.charCodeAt(i);
    bad |= c < 128 ? TYPEID_VALUE[c]! : INVALID;
  }
  if (bad > 31) {
    for (let i = from; i < from + 26; i++) {
      const c = text.charCodeAt(i);
      if (c >= 128 || TYPEID_VALUE[c]! > 31) return i;
    }
  }
  return TYPEID_VALUE[text.charCodeAt(from)]! > 7 ? -2 : -1;
}

/** Value of the (valid) digit at `i`. */
function d(text: string, i: number): number {
  return TYPEID_VALUE[text.charCodeAt(i)]!;
}

/** Writes the 5 bytes of the 8 (valid) digits at `i` into `out[o..o+4]`. */
function decode40(text: string, i: number, out: Uint8Array, o: number): void {
  const hi = (d(text, i) << 15) | (d(text, i + 1) << 10) | (d(text, i + 2) << 5) | d(text, i + 3);
  const lo =
    (d(text, i + 4) << 15) | (d(text, i + 5) << 10) | (d(text, i + 6) << 5) | d(text, i + 7);
  out[o] = hi >> 12;
  out[o + 1] = hi >> 4;
  out[o + 2] = (hi << 4) | (lo >> 16);
  out[o + 3] = lo >> 8;
  out[o + 4] = lo;
}

/**
 * Decodes the 26 (checked: {@link scanTypeIdSuffix}) digits of `text` from `from` into the 16
 * bytes of `out` at `o`.
 */
export function unsafeDecodeTypeIdSuffix(text: string, from: number, out: Uint8Array, o: number) {
  out[o] = (d(text, from) << 5) | d(text, from + 1);
  decode40(text, from + 2, out, o + 1);
  decode40(text, from + 10, out, o + 6);
  decode40(text, from + 18, out, o + 11);
}

/** Writes the codes of the 10 digits of the 48-bit `ms` into `codes[0..9]`. Trusted. */
export function typeIdTimeCodes(ms: number, codes: Uint8Array): void {
  for (let i = 9; i >= 0; i--) {
    const v = ms % 32;
    codes[i] = TYPEID_CODES[v]!;
    ms = (ms - v) / 32;
  }
}

const fromCharCode = String.fromCharCode;

/**
 * The last 16 suffix digits: 80 bits given as four 20-bit integers, most significant first.
 * Trusts its arguments. REF: bench/peers (TypeID): one 16-argument `String.fromCharCode`.
 */
export function unsafeTypeIdTail(r0: number, r1: number, r2: number, r3: number): string {
  const c = TYPEID_CODES;
  // biome-ignore format: one line per 20 bits
  return fromCharCode(
    c[r0 >> 15]!, c[(r0 >> 10) & 31]!, c[(r0 >> 5) & 31]!, c[r0 & 31]!,
    c[r1 >> 15]!, c[(r1 >> 10) & 31]!, c[(r1 >> 5) & 31]!, c[r1 & 31]!,
    c[r2 >> 15]!, c[(r2 >> 10) & 31]!, c[(r2 >> 5) & 31]!, c[r2 & 31]!,
    c[r3 >> 15]!, c[(r3 >> 10) & 31]!, c[(r3 >> 5) & 31]!, c[r3 & 31]!,
  );
}

const timeCodes = new Uint8Array(10);

/** The 26 suffix digits of the 16 bytes of `b` from `o`. Trusts its arguments. */
export function unsafeTypeIdSuffix(b: Uint8Array, o: number): string {
  const lo = ((b[o + 2]! << 24) | (b[o + 3]! << 16) | (b[o + 4]! << 8) | b[o + 5]!) >>> 0;
  typeIdTimeCodes(((b[o]! << 8) | b[o + 1]!) * 4294967296 + lo, timeCodes);
  const t = timeCodes;
  const hi20 = (i: number) => (b[i]! << 12) | (b[i + 1]! << 4) | (b[i + 2]! >> 4);
  const lo20 = (i: number) => ((b[i + 2]! & 15) << 16) | (b[i + 3]! << 8) | b[i + 4]!;
  // biome-ignore format: the time digits
  const time = fromCharCode(t[0]!, t[1]!, t[2]!, t[3]!, t[4]!, t[5]!, t[6]!, t[7]!, t[8]!, t[9]!);
  return time + unsafeTypeIdTail(hi20(o + 6), lo20(o + 6), hi20(o + 11), lo20(o + 11));
}
