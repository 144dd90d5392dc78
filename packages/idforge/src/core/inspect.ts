/**
 * Inspect: detect an identifier's scheme from its text (or take a hint) and decode it to a
 * typed record. Malformed input throws {@link InvalidIdError} naming what is wrong (length,
 * alphabet, version, variant, overflow, range); it never returns a guess.
 *
 * Detection by shape: a UUID as 36 characters with hyphens, 32 hex digits, `{…}` or
 * `urn:uuid:…`; 26 characters → ULID; 27 → KSUID; 1 to 20 decimal digits (or a `bigint`) →
 * Snowflake of the given layout (default `default`).
 *
 * Whitespace policy (every scheme, every parser of idforge): surrounding whitespace is
 * rejected, never trimmed; the input is echoed in `input` exactly as given. Callers that read
 * lines (the CLI's standard input) trim them explicitly first.
 */
import { assertBoolean, assertOneOf, typeError } from './assert.js';
import { bytesToHex } from './encoding/hex.js';
import { InvalidIdError } from './errors.js';
import { formatKsuid, ksuidTimestamp, parseKsuid } from './ksuid.js';
import { decompose, parseSnowflake } from './snowflake/codec.js';
import type { Layout } from './snowflake/layout.js';
import { getLayout } from './snowflake/presets.js';
import { formatUlid, parseUlid, ulidTimestamp } from './ulid.js';
import { parseUuid } from './uuid/parse.js';
import { uuidv1Timestamp } from './uuid/v1v6.js';

/** Scheme hints accepted by {@link inspect}; `uuidvN` also requires that version. */
export const INSPECT_SCHEMES = [
  'uuid',
  'uuidv1',
  'uuidv4',
  'uuidv6',
  'uuidv7',
  'ulid',
  'ksuid',
  'snowflake',
] as const;

export type InspectScheme = (typeof INSPECT_SCHEMES)[number];

/** Options of {@link inspect}. */
export interface InspectOptions {
  /** Decode as this scheme instead of detecting it. */
  readonly scheme?: InspectScheme;
  /** Layout of a Snowflake (name or value). Default `default`. */
  readonly layout?: string | Layout;
  /** Read ULIDs leniently (I and L as 1, O as 0). Default false. */
  readonly lenient?: boolean;
}

/** The special UUIDs of RFC 9562: Nil (§5.9, all bits 0) and Max (§5.10, all bits 1). */
export type UuidSpecial = 'nil' | 'max';

/** What {@link inspect} found. Absent keys do not apply to the scheme. */
export interface Inspection {
  /** The input exactly as given (a `bigint` as its decimal text). */
  readonly input: string;
  readonly scheme: 'uuid' | 'ulid' | 'ksuid' | 'snowflake';
  /**
   * The canonical text form: UUID lower case with hyphens, ULID upper case, KSUID as is,
   * Snowflake decimal.
   */
  readonly value: string;
  /** The bytes as lower-case hex (Snowflake: the 64-bit value, 16 digits). */
  readonly hex: string;
  /** UUID: `nil` or `max` for the special values, which have no version or variant. */
  readonly special?: UuidSpecial;
  /** UUID version (absent for Nil and Max). */
  readonly version?: number;
  /** UUID variant (absent for Nil and Max). */
  readonly variant?: string;
  /** Creation time in unix milliseconds, for schemes that carry one. */
  readonly unixMs?: number;
  /** `unixMs` as ISO 8601. */
  readonly timestamp?: string;
  /** Snowflake: the layout's name. */
  readonly layout?: string;
  /** Snowflake: every field except time, by name. */
  readonly fields?: Readonly<Record<string, number>>;
}

const UUID_HEX32 = /^[0-9a-fA-F]{32}$/;

/** Whether `text` starts with `urn:uuid:` in any case. */
function isUrn(text: string): boolean {
  return (
    text.length >= 9 &&
    (text.charCodeAt(0) | 32) === 117 && // 'u': most texts are told apart by one comparison
    text.slice(0, 9).toLowerCase() === 'urn:uuid:'
  );
}

/** The 36-character form of a UUID written as `urn:uuid:…`, `{…}` or 32 hex digits. */
function uuidText(text: string): string {
  // The canonical form, as most input is: no prefix, braces or 32 digits to look for.
  if (text.length === 36 && text.charCodeAt(8) === 45 && text.charCodeAt(0) !== 123) return text;
  let t = text;
  if (t.length > 9 && t.slice(0, 9).toLowerCase() === 'urn:uuid:') t = t.slice(9);
  else if (t.length > 2 && t[0] === '{' && t[t.length - 1] === '}') t = t.slice(1, -1);
  if (UUID_HEX32.test(t)) {
    t = `${t.slice(0, 8)}-${t.slice(8, 12)}-${t.slice(12, 16)}-${t.slice(16, 20)}-${t.slice(20)}`;
  }
  return t;
}

/** Whether `text` is 1 to 20 ASCII digits. */
function isDecimal20(text: string): boolean {
  if (text.length === 0 || text.length > 20) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function detect(text: string): Inspection['scheme'] {
  if (text.length === 36 && text.charCodeAt(8) === 45) return 'uuid';
  if ((text.length === 32 && UUID_HEX32.test(text)) || text.charCodeAt(0) === 123 || isUrn(text)) {
    return 'uuid';
  }
  if (text.length === 26) return 'ulid';
  if (text.length === 27) return 'ksuid';
  if (isDecimal20(text)) return 'snowflake';
  throw new InvalidIdError(
    'identifier',
    'scheme',
    `cannot tell the scheme of ${text.length} characters: expected a UUID (36 with hyphens, ` +
      '32 hex digits, {…} or urn:uuid:…), a ULID (26), a KSUID (27) or a Snowflake ' +
      '(1 to 20 decimal digits); pass a scheme to decode as one',
    text,
  );
}

function specialOf(bytes: Uint8Array): UuidSpecial | undefined {
  const first = bytes[0];
  if (first !== 0 && first !== 0xff) return undefined;
  for (let i = 1; i < 16; i++) if (bytes[i] !== first) return undefined;
  return first === 0 ? 'nil' : 'max';
}

/** The variant's name from the high nibble of byte 8 (RFC 9562 §4.1, Table 1). */
function variantName(nibble: number): string {
  if (nibble < 8) return 'ncs';
  if (nibble < 12) return 'rfc9562';
  return nibble < 14 ? 'microsoft' : 'future';
}

/**
 * The UUID's record, from bytes parsed and checked once: what it reads from them it reads
 * directly (REF: bench/peers/decoders.ts, inspect: the variant, the time and the text from
 * the bytes, against the public functions' checks and parses of them again).
 */
function inspectUuid(input: string, version: number | undefined): Inspection {
  const text = uuidText(input);
  const bytes = parseUuid(text, version === undefined ? undefined : { version });
  const value = text.toLowerCase(); // valid: the canonical form, as formatUuid(bytes) gives
  const hex = bytesToHex(bytes);
  const special = version === undefined ? specialOf(bytes) : undefined;
  if (special !== undefined) return { input, scheme: 'uuid', value, hex, special };
  const v = bytes[6]! >> 4;
  const variant = variantName(bytes[8]! >> 4);
  let unixMs: number | undefined;
  if (variant === 'rfc9562') {
    if (v === 1 || v === 6) unixMs = uuidv1Timestamp(bytes);
    else if (v === 7) unixMs = ((bytes[0]! << 8) | bytes[1]!) * 4294967296 + word(bytes, 2);
  }
  if (unixMs === undefined) return { input, scheme: 'uuid', value, hex, version: v, variant };
  const timestamp = new Date(unixMs).toISOString();
  return { input, scheme: 'uuid', value, hex, version: v, variant, unixMs, timestamp };
}

/** The big-endian 32-bit word at `b[o..o+3]`. */
function word(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}

const DEFAULT_LAYOUT = /* @__PURE__ */ getLayout('default');

/** `input` is the ID's text: its decimal form when `id` is given, else to be parsed. */
function inspectSnowflake(input: string, id: bigint | undefined, options: InspectOptions) {
  const layout =
    typeof options.layout === 'object'
      ? options.layout
      : options.layout === undefined
        ? DEFAULT_LAYOUT
        : getLayout(options.layout);
  const value = id === undefined ? parseSnowflake(input, layout) : id;
  const d = decompose(layout, value);
  return {
    input,
    scheme: 'snowflake' as const,
    value: input, // parseSnowflake accepts the one decimal form only, as toString() gives
    hex: value.toString(16).padStart(16, '0'),
    unixMs: d.unixMs,
    timestamp: new Date(d.unixMs).toISOString(),
    layout: layout.name,
    fields: d.fields,
  };
}

/** The index of leading or trailing whitespace (as `\s` matches it) in `input`, or -1. */
function whitespaceAt(input: string): number {
  const n = input.length;
  if (n === 0) return -1;
  const first = input.charCodeAt(0);
  const last = input.charCodeAt(n - 1);
  // Printable ASCII at both ends, as in every ID: no regular expression to run.
  if (first > 32 && first < 127 && last > 32 && last < 127) return -1;
  const ws = /^\s|\s$/.exec(input);
  return ws === null ? -1 : ws.index;
}

/**
 * Detects (or, with `options.scheme`, checks) the scheme of `input` and decodes it. A
 * `bigint` is a Snowflake (of `options.layout`). Surrounding whitespace is an error, never
 * trimmed. Nil and Max UUIDs are reported as `special: 'nil' | 'max'`, without version and
 * variant (they have neither).
 *
 * Throws {@link InvalidIdError} when the input is not a valid identifier of that scheme:
 * `reason` is one of 'scheme' (no scheme fits), 'length', 'alphabet', 'format' (also for
 * surrounding whitespace), 'version', 'variant', 'overflow', 'range'. Throws
 * `TypeError`/`RangeError` on a wrong argument (not a string or bigint, an unknown scheme
 * hint or layout name, a `lenient` that is not a boolean). Stateless.
 */
export function inspect(input: string | bigint, options: InspectOptions = {}): Inspection {
  if (typeof options !== 'object' || options === null) {
    throw typeError('inspect options', 'an object', options);
  }
  const hint =
    options.scheme === undefined
      ? undefined
      : assertOneOf('inspect scheme', options.scheme, INSPECT_SCHEMES);
  const lenient =
    options.lenient === undefined ? false : assertBoolean('inspect lenient', options.lenient);
  if (typeof input === 'bigint') {
    if (hint !== undefined && hint !== 'snowflake') {
      throw typeError(`inspect input (scheme ${hint})`, 'a string', input);
    }
    return inspectSnowflake(input.toString(), input, options);
  }
  if (typeof input !== 'string') throw typeError('inspect input', 'a string or a bigint', input);
  const ws = whitespaceAt(input);
  if (ws >= 0) {
    throw new InvalidIdError(
      hint ?? 'identifier',
      'format',
      'surrounding whitespace (idforge never trims an ID; trim the input first)',
      input,
      ws,
    );
  }
  const scheme = hint === undefined ? detect(input) : hint.startsWith('uuid') ? 'uuid' : hint;
  switch (scheme) {
    case 'uuid':
      return inspectUuid(input, hint && hint !== 'uuid' ? Number(hint.slice(5)) : undefined);
    case 'ulid': {
      const bytes = parseUlid(input, { lenient });
      const unixMs = ulidTimestamp(bytes);
      const timestamp = new Date(unixMs).toISOString();
      return { input, scheme, value: formatUlid(bytes), hex: bytesToHex(bytes), unixMs, timestamp };
    }
    case 'ksuid': {
      const bytes = parseKsuid(input);
      const unixMs = ksuidTimestamp(bytes);
      const timestamp = new Date(unixMs).toISOString();
      return {
        input,
        scheme,
        value: formatKsuid(bytes),
        hex: bytesToHex(bytes),
        unixMs,
        timestamp,
      };
    }
    default:
      return inspectSnowflake(input, undefined, options);
  }
}
