/**
 * TypeID (jetify's specification, version 0.3.0: https://github.com/jetify-com/typeid,
 * `spec/README.md`): a type prefix, `_`, and a UUID in 26 base32 digits.
 *
 *   user_01h455vb4pex5vsknk084sn02q        prefix: at most 63 of [a-z_], starting and ending
 *   └──┘ └────────────────────────┘        with a letter (`^([a-z]([a-z_]{0,61}[a-z])?)?$`);
 *   prefix     suffix (base32)             an empty prefix is written without the `_`.
 *
 * The suffix is the UUID's 128 bits, big-endian, with two zero bits in front (130 bits), in
 * 5-bit digits of the alphabet `0123456789abcdefghjkmnpqrstvwxyz` (Crockford's, lower case).
 * So the first digit is at most `7`, and digits 0-9 are exactly the UUIDv7's 48-bit time:
 *
 *   0        10                      26    digits
 *   |tttttttttt|vaaa...bbb...cccc      |   t: unix_ts_ms (2 zero bits + 48), then version 7,
 *                                           rand_a, variant, rand_b (80 bits, 16 digits)
 *
 * Decoding is strict, as the spec requires: lower case only, no hyphens, no Crockford
 * aliases (i, l, o, u are invalid). Any 128 bits encode and decode (the spec allows other
 * UUID versions given by users); only generation must produce a UUIDv7 (./typeid-generator.ts).
 * The base32 tables and codec are in ./typeid-base32.ts.
 *
 * Every function here is stateless except for a private scratch buffer; safe to share.
 */
import { InvalidIdError } from '../core/index.js';
import {
  assertOutput,
  parseUuidBytes,
  rangeError,
  typeError,
  unsafeFormatUuid,
} from '../core/internal.js';
import { scanTypeIdSuffix, unsafeDecodeTypeIdSuffix, unsafeTypeIdSuffix } from './typeid-base32.js';

/** The most characters a TypeID prefix may have. */
export const TYPEID_PREFIX_MAX = 63;

/** A TypeID taken apart. */
export interface TypeIdParts {
  /** The type prefix (possibly empty). */
  readonly prefix: string;
  /** The UUID's 16 bytes (with an `out` array: that array, the UUID at its offset). */
  readonly bytes: Uint8Array;
}

/** Options of the parsing functions. */
export interface TypeIdParseOptions {
  /** Require this prefix (the ID's type): another one is rejected (reason `format`). */
  readonly prefix?: string;
}

const A = 0x61;
const Z = 0x7a;
const UNDERSCORE = 0x5f;

/**
 * -1 when `p` is a valid TypeID prefix; else {@link TYPEID_PREFIX_MAX} when it is too long,
 * or the index of the first character out of place (see {@link prefixError}).
 */
function badPrefixAt(p: string): number {
  const n = p.length;
  if (n > TYPEID_PREFIX_MAX) return TYPEID_PREFIX_MAX;
  for (let i = 0; i < n; i++) {
    const c = p.charCodeAt(i);
    if ((c < A || c > Z) && (c !== UNDERSCORE || i === 0 || i === n - 1)) return i;
  }
  return -1;
}

/** Whether `prefix` is a valid TypeID prefix (the empty string is). Never throws. */
export function isTypeIdPrefix(prefix: unknown): prefix is string {
  return typeof prefix === 'string' && badPrefixAt(prefix) === -1;
}

const PREFIX_RULE = 'a TypeID prefix (at most 63 of a-z and _, first and last a letter, or "")';

/** Returns `prefix` when valid; `TypeError`/`RangeError` naming `name` otherwise. */
export function assertTypeIdPrefix(name: string, prefix: unknown): string {
  if (typeof prefix !== 'string') throw typeError(name, PREFIX_RULE, prefix);
  if (badPrefixAt(prefix) !== -1) throw rangeError(name, PREFIX_RULE, prefix);
  return prefix;
}

/** The error for the invalid prefix at the start of `text`, bad at `i` (see badPrefixAt). */
function prefixError(text: string, prefix: string, i: number): InvalidIdError {
  if (prefix.length > TYPEID_PREFIX_MAX) {
    const detail = `the prefix has ${prefix.length} characters, more than ${TYPEID_PREFIX_MAX}`;
    return new InvalidIdError('typeid', 'length', detail, text, TYPEID_PREFIX_MAX);
  }
  const ch = JSON.stringify(prefix[i]);
  if (prefix[i] === '_') {
    const where = i === 0 ? 'start' : 'end';
    const detail = `the prefix may not ${where} with "_" (position ${i})`;
    return new InvalidIdError('typeid', 'format', detail, text, i);
  }
  const hint = /[A-Z]/.test(prefix[i]!) ? ' (prefixes are lower case)' : '';
  const detail = `${ch} at position ${i} is not allowed in a prefix (a-z and _ only)${hint}`;
  return new InvalidIdError('typeid', 'alphabet', detail, text, i);
}

function suffixError(text: string, from: number, code: number): InvalidIdError {
  if (code === -2) {
    const detail = `suffix digit ${JSON.stringify(text[from])} is above "7": more than 128 bits`;
    return new InvalidIdError('typeid', 'overflow', detail, text, from);
  }
  const ch = text[code]!;
  const hint = /[A-Z]/.test(ch) ? ' (TypeID suffixes are lower case)' : '';
  const detail = `${JSON.stringify(ch)} at position ${code} is not a TypeID base32 digit${hint}`;
  return new InvalidIdError('typeid', 'alphabet', detail, text, code);
}

/**
 * Validates `text` as a TypeID and writes its UUID into `out` at `offset`; returns the
 * length of the prefix. Throws {@link InvalidIdError}; `out` is written only on success.
 */
function unsafeParseInto(text: string, expected: string | undefined, out: Uint8Array, o: number) {
  const n = text.length;
  if (n < 26 || n > 26 + 1 + TYPEID_PREFIX_MAX) {
    const detail = `expected 26 to 90 characters (a prefix, "_" and 26 digits), got ${n}`;
    throw new InvalidIdError('typeid', 'length', detail, text);
  }
  const sep = text.lastIndexOf('_');
  const prefix = sep < 0 ? '' : text.slice(0, sep);
  if (sep === 0) {
    const detail = 'an empty prefix is written without "_" (the separator at position 0)';
    throw new InvalidIdError('typeid', 'format', detail, text, 0);
  }
  const bad = badPrefixAt(prefix);
  if (bad !== -1) throw prefixError(text, prefix, bad);
  const from = sep + 1;
  if (n - from !== 26) {
    const detail = `expected a suffix of 26 characters after the prefix, got ${n - from}`;
    throw new InvalidIdError('typeid', 'length', detail, text, from);
  }
  const r = scanTypeIdSuffix(text, from);
  if (r !== -1) throw suffixError(text, from, r);
  if (expected !== undefined && prefix !== expected) {
    const detail = `expected prefix ${JSON.stringify(expected)}, got ${JSON.stringify(prefix)}`;
    throw new InvalidIdError('typeid', 'format', detail, text, 0);
  }
  unsafeDecodeTypeIdSuffix(text, from, out, o);
  return prefix;
}

function expectedPrefix(name: string, options: TypeIdParseOptions | undefined) {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) {
    throw typeError(`${name} options`, 'an object', options);
  }
  const p = options.prefix;
  return p === undefined ? undefined : assertTypeIdPrefix(`${name} options.prefix`, p);
}

function checkText(name: string, text: unknown): string {
  if (typeof text !== 'string') throw typeError(name, 'a TypeID string', text);
  return text;
}

/**
 * Takes a TypeID apart: its prefix and its UUID's 16 bytes, written into `out` at `offset`
 * (a new array by default; `bytes` is that array, written only on success). Strict, as the
 * spec: lower case only, no surrounding whitespace. With `{ prefix }`, another prefix is
 * rejected.
 *
 * Throws {@link InvalidIdError} (scheme `typeid`) with reason `length` (total, prefix over
 * 63, or suffix not 26), `alphabet` (a character outside a-z/_ in the prefix or outside the
 * alphabet in the suffix, with its position), `format` (a prefix starting or ending with
 * `_`, a `_` with an empty prefix, or not the expected prefix) or `overflow` (first suffix
 * digit above `7`); `TypeError`/`RangeError` on a wrong argument.
 */
export function parseTypeId(
  text: string,
  options?: TypeIdParseOptions,
  out?: Uint8Array,
  offset = 0,
): TypeIdParts {
  const expected = expectedPrefix('parseTypeId', options);
  if (out === undefined) out = new Uint8Array(16);
  else assertOutput('parseTypeId out', out, offset, 16);
  const prefix = unsafeParseInto(checkText('parseTypeId text', text), expected, out, offset);
  return { prefix, bytes: out };
}

/** Whether `text` is a valid TypeID (with the given prefix, if any). Never throws on text. */
export function isTypeId(text: unknown, options?: TypeIdParseOptions): boolean {
  const expected = expectedPrefix('isTypeId', options);
  if (typeof text !== 'string') return false;
  try {
    unsafeParseInto(text, expected, scratch, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks `text` as {@link parseTypeId} does and returns it (a valid TypeID has one
 * spelling: it is already canonical). Throws exactly what {@link parseTypeId} throws.
 */
export function validateTypeId(text: string, options?: TypeIdParseOptions): string {
  const expected = expectedPrefix('validateTypeId', options);
  unsafeParseInto(checkText('validateTypeId text', text), expected, scratch, 0);
  return text;
}

/** The UUID of a TypeID, in canonical lower-case text. Throws as {@link parseTypeId}. */
export function typeIdToUuid(text: string, options?: TypeIdParseOptions): string {
  const expected = expectedPrefix('typeIdToUuid', options);
  unsafeParseInto(checkText('typeIdToUuid text', text), expected, scratch, 0);
  return unsafeFormatUuid(scratch, 0);
}

const scratch = new Uint8Array(16);

/**
 * The unix millisecond time of a TypeID's UUIDv7. Throws as {@link parseTypeId}, and
 * {@link InvalidIdError} with reason `version` or `variant` when its UUID is not a UUIDv7
 * (any UUID may be written as a TypeID; only a v7 has a time).
 */
export function typeIdTimestamp(text: string, options?: TypeIdParseOptions): number {
  const expected = expectedPrefix('typeIdTimestamp', options);
  const prefix = unsafeParseInto(checkText('typeIdTimestamp text', text), expected, scratch, 0);
  const b = scratch;
  const from = prefix.length === 0 ? 0 : prefix.length + 1;
  if (b[6]! >> 4 !== 7) {
    const detail = `expected a UUIDv7, got version ${b[6]! >> 4} (${unsafeFormatUuid(b, 0)})`;
    throw new InvalidIdError('typeid', 'version', detail, text, from + 10);
  }
  if ((b[8]! & 0xc0) !== 0x80) {
    const detail = `expected a UUIDv7 of the RFC 9562 variant (${unsafeFormatUuid(b, 0)})`;
    throw new InvalidIdError('typeid', 'variant', detail, text, from + 13);
  }
  const lo = ((b[2]! << 24) | (b[3]! << 16) | (b[4]! << 8) | b[5]!) >>> 0;
  return ((b[0]! << 8) | b[1]!) * 4294967296 + lo;
}

/**
 * The TypeID of `prefix` and a UUID given as 16 bytes (from `offset`) or as text (the
 * 36-character form, either case). Any UUID version encodes (the spec allows it).
 *
 * Throws `TypeError`/`RangeError` on an invalid prefix or a byte array without 16 bytes at
 * `offset`, and {@link InvalidIdError} (scheme `uuid`) on malformed UUID text.
 */
export function formatTypeId(prefix: string, uuid: Uint8Array | string, offset = 0): string {
  assertTypeIdPrefix('formatTypeId prefix', prefix);
  let b: Uint8Array;
  if (typeof uuid === 'string') {
    b = parseUuidBytes(uuid, scratch, 0);
    offset = 0;
  } else if (uuid instanceof Uint8Array) {
    assertOutput('formatTypeId uuid', uuid, offset, 16);
    b = uuid;
  } else throw typeError('formatTypeId uuid', 'a UUID string or a Uint8Array', uuid);
  const suffix = unsafeTypeIdSuffix(b, offset);
  return prefix.length === 0 ? suffix : `${prefix}_${suffix}`;
}

/**
 * The TypeID of a UUID (text, 36 characters, either case; or 16 bytes) with `prefix`
 * (default none). Throws as {@link formatTypeId}.
 */
export function uuidToTypeId(uuid: string | Uint8Array, prefix = ''): string {
  assertTypeIdPrefix('uuidToTypeId prefix', prefix);
  return formatTypeId(prefix, uuid);
}
