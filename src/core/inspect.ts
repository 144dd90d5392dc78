/**
 * Inspect: detect an identifier's scheme from its text (or take a hint) and decode it to a
 * typed record. Malformed input throws {@link InvalidIdError} naming what is wrong (length,
 * alphabet, version, variant, overflow, range); it never returns a guess.
 *
 * Detection by shape: 36 characters with hyphens → UUID; 26 → ULID; 27 → KSUID; 1 to 20
 * decimal digits → Snowflake of the given layout (default `default`).
 */
import { assertOneOf, assertString } from './assert.js';
import { bytesToHex } from './encoding/hex.js';
import { InvalidIdError } from './errors.js';
import { decomposeKsuid } from './ksuid.js';
import { decompose, parseSnowflake } from './snowflake/codec.js';
import type { Layout } from './snowflake/layout.js';
import { getLayout } from './snowflake/presets.js';
import { parseUlid, ulidTimestamp } from './ulid.js';
import { parseUuid, uuidVariant } from './uuid/parse.js';
import { uuidv1Timestamp } from './uuid/v1v6.js';
import { uuidv7Timestamp } from './uuid/v7.js';

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

/** What {@link inspect} found. Absent keys do not apply to the scheme. */
export interface Inspection {
  readonly input: string;
  readonly scheme: 'uuid' | 'ulid' | 'ksuid' | 'snowflake';
  /** UUID version (0 for nil, 15 for max). */
  readonly version?: number;
  /** UUID variant. */
  readonly variant?: string;
  /** Creation time in unix milliseconds, for schemes that carry one. */
  readonly unixMs?: number;
  /** `unixMs` as ISO 8601. */
  readonly timestamp?: string;
  /** Snowflake: the layout's name. */
  readonly layout?: string;
  /** Snowflake: every field except time, by name. */
  readonly fields?: Readonly<Record<string, number>>;
  /** Snowflake: the decimal value; KSUID: the payload as hex; UUID/ULID: the 16 bytes as hex. */
  readonly value: string;
}

function withTime(unixMs: number | undefined): { unixMs?: number; timestamp?: string } {
  if (unixMs === undefined) return {};
  return { unixMs, timestamp: new Date(unixMs).toISOString() };
}

function detect(text: string): Inspection['scheme'] {
  if (text.length === 36 && text[8] === '-') return 'uuid';
  if (text.length === 26) return 'ulid';
  if (text.length === 27) return 'ksuid';
  if (/^[0-9]{1,20}$/.test(text)) return 'snowflake';
  throw new InvalidIdError(
    'identifier',
    'scheme',
    `cannot tell the scheme of ${text.length} characters: expected a UUID (36 with hyphens), ` +
      'a ULID (26), a KSUID (27) or a Snowflake (1 to 20 decimal digits); pass a scheme to decode as one',
    text,
  );
}

function inspectUuid(text: string, version: number | undefined): Inspection {
  const bytes = parseUuid(text, version === undefined ? undefined : { version });
  const v = bytes[6]! >> 4;
  const variant = uuidVariant(bytes);
  let unixMs: number | undefined;
  if (variant === 'rfc9562') {
    if (v === 1 || v === 6) unixMs = uuidv1Timestamp(bytes);
    else if (v === 7) unixMs = uuidv7Timestamp(bytes);
  }
  return {
    input: text,
    scheme: 'uuid',
    version: v,
    variant,
    ...withTime(unixMs),
    value: bytesToHex(bytes),
  };
}

/**
 * Detects (or, with `options.scheme`, checks) the scheme of `input` and decodes it.
 *
 * Throws {@link InvalidIdError} when the input is not a valid identifier of that scheme:
 * `reason` is one of 'scheme' (no scheme fits), 'length', 'alphabet', 'format', 'version',
 * 'variant', 'overflow', 'range'. Throws `TypeError`/`RangeError` on a wrong argument (an
 * unknown scheme hint or layout name). Stateless.
 */
export function inspect(input: string, options: InspectOptions = {}): Inspection {
  assertString('inspect input', input);
  const hint =
    options.scheme === undefined
      ? undefined
      : assertOneOf('inspect scheme', options.scheme, INSPECT_SCHEMES);
  const text = input.trim();
  const scheme = hint === undefined ? detect(text) : hint.startsWith('uuid') ? 'uuid' : hint;
  switch (scheme) {
    case 'uuid':
      return inspectUuid(text, hint && hint !== 'uuid' ? Number(hint.slice(5)) : undefined);
    case 'ulid': {
      const opts = { lenient: options.lenient === true };
      const bytes = parseUlid(text, opts);
      return {
        input: text,
        scheme,
        ...withTime(ulidTimestamp(bytes)),
        value: bytesToHex(bytes),
      };
    }
    case 'ksuid': {
      const k = decomposeKsuid(text);
      return { input: text, scheme, ...withTime(k.unixMs), value: bytesToHex(k.payload) };
    }
    default: {
      const layout =
        typeof options.layout === 'object'
          ? options.layout
          : getLayout(options.layout ?? 'default');
      const id = parseSnowflake(text, layout);
      const d = decompose(layout, id);
      return {
        input: text,
        scheme: 'snowflake',
        ...withTime(d.unixMs),
        layout: layout.name,
        fields: d.fields,
        value: id.toString(),
      };
    }
  }
}
