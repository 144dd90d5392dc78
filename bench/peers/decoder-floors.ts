/**
 * The floor of each decoder timed in bench/peers (decoder-group.ts): the bare work the decoder
 * must do, written as a plain loop over the same characters with a table built once here.
 * Each floor validates as completely as the decoder (a malformed input throws) and returns
 * what the decoder returns (a number, a new byte array, the same record), so the ratio
 * decoder / floor is the cost of everything else: argument checks, generic paths, error
 * plumbing, allocations the result does not need.
 *
 * A floor is not a faster decoder: it has no error detail (a bare `Error`), no options, no
 * byte-array input, one fixed layout. decoder-group.ts checks that each floor returns the
 * decoder's result for every input and refuses what the decoder refuses, before timing.
 */

/** `HEX[c]`: the value of the hex digit with code `c` (either case), or 255. */
const HEX = new Uint8Array(128).fill(255);
for (let i = 0; i < 16; i++) {
  HEX['0123456789abcdef'.charCodeAt(i)] = i;
  HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** `B32[c]`: the value of the strict Crockford base32 digit `c` (either case), or 255. */
const B32 = new Uint8Array(128).fill(255);
for (let i = 0; i < 32; i++) {
  const c = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.charCodeAt(i);
  B32[c] = i;
  B32[c | 0x20] = i;
}

/** `B62[c]`: the value of the base62 digit `c`, or 255. */
const B62 = new Uint8Array(128).fill(255);
for (let i = 0; i < 62; i++) {
  B62['0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'.charCodeAt(i)] = i;
}

/** The offsets of the 32 hex digits in the 36-character UUID form. */
const DIGIT_AT = Uint8Array.from(
  { length: 32 },
  (_, k) => k + (k >= 8 ? 1 : 0) + (k >= 12 ? 1 : 0) + (k >= 16 ? 1 : 0) + (k >= 20 ? 1 : 0),
);

/** `BYTE_HEX[b]`: the two lower-case hex digits of byte `b`. */
const BYTE_HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

function refuse(): never {
  throw new Error('malformed');
}

function hexAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? HEX[c]! : 255;
}

/** The four hyphens of the 36-character form are there. */
function hyphens(text: string): boolean {
  return (
    text.charCodeAt(8) === 45 &&
    text.charCodeAt(13) === 45 &&
    text.charCodeAt(18) === 45 &&
    text.charCodeAt(23) === 45
  );
}

/**
 * uuidv7Timestamp's floor: the length and the 4 hyphens, then each of the 32 digits through
 * the hex table, the first 12 accumulated; version 7 and variant 10 checked.
 */
export function floorUuidv7Timestamp(text: string): number {
  if (text.length !== 36 || !hyphens(text)) refuse();
  let t = 0;
  let bad = 0;
  for (let k = 0; k < 32; k++) {
    const v = hexAt(text, DIGIT_AT[k]!);
    bad |= v;
    if (k < 12) t = t * 16 + v;
  }
  const variant = hexAt(text, 19);
  if (bad > 15 || hexAt(text, 14) !== 7 || variant < 8 || variant > 11) refuse();
  return t;
}

/** parseUuid's floor: the length and the 4 hyphens, then 16 digit pairs into a new array. */
export function floorParseUuid(text: string): Uint8Array {
  if (text.length !== 36 || !hyphens(text)) refuse();
  const out = new Uint8Array(16);
  let bad = 0;
  for (let i = 0; i < 16; i++) {
    const hi = hexAt(text, DIGIT_AT[2 * i]!);
    const lo = hexAt(text, DIGIT_AT[2 * i + 1]!);
    bad |= hi | lo;
    out[i] = (hi << 4) | lo;
  }
  if (bad > 15) refuse();
  return out;
}

/** ulidTimestamp's floor: 26 codes through the strict table, the first ≤ 7, 10 time digits. */
export function floorUlidTimestamp(text: string): number {
  if (text.length !== 26) refuse();
  let t = 0;
  for (let i = 0; i < 26; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? B32[c]! : 255;
    if (v > 31) refuse();
    if (i < 10) t = t * 32 + v;
  }
  if (t > 281474976710655) refuse(); // first digit above '7': more than 128 bits
  return t;
}

/**
 * parseKsuid's floor: 27 codes through the base62 table, the number built three digits at a
 * time (w = w × 62^3 + chunk over five 32-bit words: 62^3 < 2^18, so every product is exact
 * in a double), overflow past 160 bits refused, the five words into a new 20-byte array.
 */
export function floorParseKsuid(text: string): Uint8Array {
  if (text.length !== 27) refuse();
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  let w3 = 0;
  let w4 = 0;
  let bad = 0;
  let carry = 0;
  for (let i = 0; i < 27; i += 3) {
    const a = b62At(text, i);
    const b = b62At(text, i + 1);
    const c = b62At(text, i + 2);
    bad |= a | b | c;
    let x = w4 * 238328 + a * 3844 + b * 62 + c;
    w4 = x >>> 0;
    x = w3 * 238328 + (x - w4) / 4294967296;
    w3 = x >>> 0;
    x = w2 * 238328 + (x - w3) / 4294967296;
    w2 = x >>> 0;
    x = w1 * 238328 + (x - w2) / 4294967296;
    w1 = x >>> 0;
    x = w0 * 238328 + (x - w1) / 4294967296;
    w0 = x >>> 0;
    carry += x - w0;
  }
  if (bad > 63 || carry !== 0) refuse(); // 255 marks a non-digit; carry: above 2^160 - 1
  const out = new Uint8Array(20);
  put32(out, 0, w0);
  put32(out, 4, w1);
  put32(out, 8, w2);
  put32(out, 12, w3);
  put32(out, 16, w4);
  return out;
}

function put32(out: Uint8Array, o: number, w: number): void {
  out[o] = w >>> 24;
  out[o + 1] = w >>> 16;
  out[o + 2] = w >>> 8;
  out[o + 3] = w;
}

function b62At(text: string, i: number): number {
  const c = text.charCodeAt(i);
  return c < 128 ? B62[c]! : 255;
}

/** The `default` layout (41/10/12 from 2025-01-01), as constants. */
const EPOCH_MS = Date.UTC(2025, 0, 1);
const MAX_ID = (1n << 63n) - 1n;

/** What decompose returns, for the `default` layout. */
export interface FloorSnowflake {
  readonly id: bigint;
  readonly tick: number;
  readonly unixMs: number;
  readonly fields: Record<string, number>;
}

/** The checks of parseSnowflake: 1 to 20 ASCII digits, no leading zero, then `BigInt`. */
function floorSnowflakeId(text: string): bigint {
  const n = text.length;
  if (n === 0 || n > 20 || (n > 1 && text.charCodeAt(0) === 48)) refuse();
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) refuse();
  }
  const id = BigInt(text);
  if (id > MAX_ID) refuse();
  return id;
}

/** decompose's floor (layout `default`): the digits checked, `BigInt(text)`, the shifts. */
export function floorDecompose(text: string): FloorSnowflake {
  const id = floorSnowflakeId(text);
  const tick = Number(id >> 22n);
  const fields: Record<string, number> = {
    node: Number((id >> 12n) & 1023n),
    sequence: Number(id & 4095n),
  };
  return { id, tick, unixMs: EPOCH_MS + tick, fields };
}

/** Whitespace, a control or a non-ASCII code: none can end an ID of any scheme. */
function isSpace(c: number): boolean {
  return c <= 32 || c > 126;
}

/** Detection's share of inspect's floor: no surrounding whitespace, then the shape. */
function floorDetect(text: string): 'uuid' | 'snowflake' {
  if (text.length === 0 || isSpace(text.charCodeAt(0)) || isSpace(text.charCodeAt(text.length - 1)))
    refuse();
  if (text.length === 36 && text.charCodeAt(8) === 45) return 'uuid';
  return 'snowflake';
}

/** The record inspect returns for a UUIDv7 (its keys in inspect's order). */
export interface FloorUuidInspection {
  readonly input: string;
  readonly scheme: 'uuid';
  readonly value: string;
  readonly hex: string;
  readonly version: number;
  readonly variant: string;
  readonly unixMs: number;
  readonly timestamp: string;
}

/** The variant's name from the high nibble of byte 8. */
const VARIANTS = [
  ...Array(8).fill('ncs'),
  ...Array(4).fill('rfc9562'),
  'microsoft',
  'microsoft',
  'future',
  'future',
];

/**
 * inspect's floor for a UUIDv7 text: detection, the 16 bytes (parseUuid's floor), the
 * canonical text (the checked text in lower case), the 32 hex digits from the bytes, version,
 * variant, the 48-bit time and its ISO 8601 form, in one record. (Another version gets no time: the timed inputs are all v7,
 * the checks' malformed ones need only be refused alike.)
 */
export function floorInspectUuidv7(text: string): FloorUuidInspection {
  if (floorDetect(text) !== 'uuid') refuse();
  const b = floorParseUuid(text);
  let hex = '';
  for (let i = 0; i < 16; i++) hex += BYTE_HEX[b[i]!];
  const value = text.toLowerCase(); // the digits are checked: this is the canonical text
  const version = b[6]! >> 4;
  const variant = VARIANTS[b[8]! >> 4]!;
  const unixMs =
    ((b[0]! << 8) | b[1]!) * 4294967296 +
    (((b[2]! << 24) | (b[3]! << 16) | (b[4]! << 8) | b[5]!) >>> 0);
  const timestamp = new Date(unixMs).toISOString();
  return { input: text, scheme: 'uuid', value, hex, version, variant, unixMs, timestamp };
}

/** The record inspect returns for a Snowflake (its keys in inspect's order). */
export interface FloorSnowflakeInspection {
  readonly input: string;
  readonly scheme: 'snowflake';
  readonly value: string;
  readonly hex: string;
  readonly unixMs: number;
  readonly timestamp: string;
  readonly layout: string;
  readonly fields: Record<string, number>;
}

/**
 * inspect's floor for a Snowflake text (layout `default`): detection, decompose's floor, the
 * 16 hex digits, the ISO 8601 time, in one record.
 */
export function floorInspectSnowflake(text: string): FloorSnowflakeInspection {
  if (floorDetect(text) !== 'snowflake') refuse();
  const d = floorDecompose(text);
  return {
    input: text,
    scheme: 'snowflake',
    value: text,
    hex: d.id.toString(16).padStart(16, '0'),
    unixMs: d.unixMs,
    timestamp: new Date(d.unixMs).toISOString(),
    layout: 'default',
    fields: d.fields,
  };
}
