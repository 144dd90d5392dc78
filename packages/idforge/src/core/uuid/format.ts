/**
 * The canonical UUID text form (RFC 9562 §4): 32 lower-case hex digits in groups 8-4-4-4-12.
 *
 *   xxxxxxxx-xxxx-Mxxx-Nxxx-xxxxxxxxxxxx    M = version nibble, N = variant bits
 *   0        9    14   19   24              (string offsets of each group)
 */
import { assertBytes, assertOutput, assertString } from '../assert.js';
import { BYTE_TO_HEX, HEX_VALUE } from '../encoding/hex.js';
import { InvalidIdError } from '../errors.js';

/** Formats 16 bytes from `offset` as a UUID string. Trusts its arguments. */
export function unsafeFormatUuid(b: Uint8Array, o = 0): string {
  const h = BYTE_TO_HEX;
  return (
    h[b[o]!]! +
    h[b[o + 1]!]! +
    h[b[o + 2]!]! +
    h[b[o + 3]!]! +
    '-' +
    h[b[o + 4]!]! +
    h[b[o + 5]!]! +
    '-' +
    h[b[o + 6]!]! +
    h[b[o + 7]!]! +
    '-' +
    h[b[o + 8]!]! +
    h[b[o + 9]!]! +
    '-' +
    h[b[o + 10]!]! +
    h[b[o + 11]!]! +
    h[b[o + 12]!]! +
    h[b[o + 13]!]! +
    h[b[o + 14]!]! +
    h[b[o + 15]!]!
  );
}

/**
 * Formats the 16 bytes of `bytes` (from `offset`) as a canonical lower-case UUID string.
 * Any 16 bytes format; no version or variant is checked. Throws `TypeError`/`RangeError`
 * on a wrong argument.
 */
export function formatUuid(bytes: Uint8Array, offset = 0): string {
  if (offset === 0) assertBytes('formatUuid bytes', bytes, 16);
  else assertOutput('formatUuid bytes', bytes, offset, 16);
  return unsafeFormatUuid(bytes, offset);
}

/** Character offsets where each byte's two hex digits start in the 36-char form. */
const HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/** The four hyphens of the 36-character form are in place. */
export function uuidHyphens(text: string): boolean {
  return (
    text.charCodeAt(8) === 45 &&
    text.charCodeAt(13) === 45 &&
    text.charCodeAt(18) === 45 &&
    text.charCodeAt(23) === 45
  );
}

/**
 * Parses the 36-character hyphenated UUID form (either case) into `out` at `offset`
 * (a new 16-byte array by default) and returns it. Any version and variant is accepted
 * (see `parse.ts` for checked parsing).
 *
 * Throws {@link InvalidIdError} with reason `length`, `format` (a hyphen missing) or
 * `alphabet` (a non-hex digit, with its position).
 *
 * REF: bench/peers/decoders.ts (parseUuid: the hyphens as four comparisons rather than a loop
 * over a new array, each digit read once with the invalid ones or-ed together and looked for
 * only when there is one).
 */
export function parseUuidBytes(text: string, out?: Uint8Array, offset = 0): Uint8Array {
  assertString('parseUuidBytes text', text);
  if (out === undefined) out = new Uint8Array(16);
  else assertOutput('parseUuidBytes out', out, offset, 16);
  if (text.length !== 36) {
    throw new InvalidIdError('uuid', 'length', `expected 36 characters, got ${text.length}`, text);
  }
  if (!uuidHyphens(text)) throw uuidFormatError(text);
  let bad = 0;
  for (let i = 0; i < 16; i++) {
    const p = HEX_AT[i]!;
    const hi = hexValueAt(text, p);
    const lo = hexValueAt(text, p + 1);
    bad |= hi | lo;
    out[offset + i] = (hi << 4) | lo;
  }
  if (bad > 15) throw uuidAlphabetError(text);
  return out;
}

/** Value of the hex digit at `text[i]`, or 255 when it is not one. */
function hexValueAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? HEX_VALUE[c]! : 255;
}

/** The error for the first missing hyphen of a 36-character `text`. */
function uuidFormatError(text: string): InvalidIdError {
  let p = 8;
  for (const q of [8, 13, 18, 23]) {
    p = q;
    if (text.charCodeAt(q) !== 45) break;
  }
  return new InvalidIdError('uuid', 'format', `expected "-" at position ${p}`, text, p);
}

/** The error for the first non-hex digit of a 36-character `text` with its hyphens. */
function uuidAlphabetError(text: string): InvalidIdError {
  let bad = 0;
  while (bad === 8 || bad === 13 || bad === 18 || bad === 23 || hexValueAt(text, bad) !== 255) {
    bad++;
  }
  return new InvalidIdError(
    'uuid',
    'alphabet',
    `"${text[bad]}" at position ${bad} is not a hex digit`,
    text,
    bad,
  );
}
