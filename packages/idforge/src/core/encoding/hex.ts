/** Lower-case hexadecimal, with tables built once at load. */

/** `BYTE_TO_HEX[b]` is the two-character lower-case hex of byte `b`. */
export const BYTE_TO_HEX: readonly string[] = /* @__PURE__ */ Array.from({ length: 256 }, (_, b) =>
  b.toString(16).padStart(2, '0'),
);

/** `HEX_VALUE[charCode]` is the nibble value of a hex digit (either case), or 255. */
export const HEX_VALUE: Uint8Array = /* @__PURE__ */ (() => {
  const t = new Uint8Array(128).fill(255);
  for (let i = 0; i < 10; i++) t[48 + i] = i;
  for (let i = 0; i < 6; i++) {
    t[65 + i] = 10 + i;
    t[97 + i] = 10 + i;
  }
  return t;
})();

/** Hex of `length` bytes of `bytes` from `offset`. Trusts its arguments. */
export function bytesToHex(bytes: Uint8Array, offset = 0, length = bytes.length - offset): string {
  let s = '';
  for (let i = offset; i < offset + length; i++) s += BYTE_TO_HEX[bytes[i]!];
  return s;
}

/**
 * Decodes `2 * length` hex digits of `text` from character `from` into `out` at `offset`.
 * Returns the index of the first invalid character, or -1 when all were valid.
 */
export function hexInto(
  text: string,
  from: number,
  out: Uint8Array,
  offset: number,
  length: number,
): number {
  for (let i = 0; i < length; i++) {
    const c1 = text.charCodeAt(from + 2 * i);
    const c2 = text.charCodeAt(from + 2 * i + 1);
    const hi = c1 < 128 ? HEX_VALUE[c1]! : 255;
    const lo = c2 < 128 ? HEX_VALUE[c2]! : 255;
    if (hi === 255) return from + 2 * i;
    if (lo === 255) return from + 2 * i + 1;
    out[offset + i] = (hi << 4) | lo;
  }
  return -1;
}
