/**
 * The canonical UUID text form (RFC 9562 §4): 32 lower-case hex digits in groups 8-4-4-4-12.
 *
 *   xxxxxxxx-xxxx-Mxxx-Nxxx-xxxxxxxxxxxx    M = version nibble, N = variant bits
 *   0        9    14   19   24              (string offsets of each group)
 */
import { assertBytes, assertOutput, assertString } from '../assert.js';
import { BYTE_TO_HEX, hexInto } from '../encoding/hex.js';
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

/**
 * Parses the 36-character hyphenated UUID form (either case) into `out` at `offset`
 * (a new 16-byte array by default) and returns it. Any version and variant is accepted
 * (see `parse.ts` for checked parsing).
 *
 * Throws {@link InvalidIdError} with reason `length`, `format` (a hyphen missing) or
 * `alphabet` (a non-hex digit, with its position).
 */
export function parseUuidBytes(text: string, out?: Uint8Array, offset = 0): Uint8Array {
  assertString('parseUuidBytes text', text);
  if (out === undefined) out = new Uint8Array(16);
  else assertOutput('parseUuidBytes out', out, offset, 16);
  if (text.length !== 36) {
    throw new InvalidIdError('uuid', 'length', `expected 36 characters, got ${text.length}`, text);
  }
  for (const p of [8, 13, 18, 23]) {
    if (text.charCodeAt(p) !== 45) {
      throw new InvalidIdError('uuid', 'format', `expected "-" at position ${p}`, text, p);
    }
  }
  for (let i = 0; i < 16; i++) {
    const bad = hexInto(text, HEX_AT[i]!, out, offset + i, 1);
    if (bad >= 0) {
      throw new InvalidIdError(
        'uuid',
        'alphabet',
        `"${text[bad]}" at position ${bad} is not a hex digit`,
        text,
        bad,
      );
    }
  }
  return out;
}
