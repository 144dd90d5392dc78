/**
 * Checked UUID parsing and the version and variant fields (RFC 9562 §4.1, §4.2).
 *
 *   xxxxxxxx-xxxx-Mxxx-Nxxx-xxxxxxxxxxxx
 *                 ^14  ^19     M = version, N = variant (0-7 NCS, 8-b RFC 9562,
 *                                  c-d Microsoft, e-f reserved for the future)
 *
 * All functions are stateless and safe to share. Text is accepted in either case; results
 * are lower-case. Without a version, any well-formed UUID is accepted, including the Nil
 * (§5.9) and Max (§5.10) UUIDs, which belong to no version.
 */
import { assertInteger, typeError } from '../assert.js';
import {
  firstBadUuidChar,
  hexDigitAt,
  requireVersion,
  uuidInputBytes,
  VARIANT_BYTE,
  VARIANT_CHAR,
  VERSION_BYTE,
  VERSION_CHAR,
} from './constants.js';
import { parseUuidBytes } from './format.js';

/** The variant field's meaning (RFC 9562 §4.1, Table 1). */
export type UuidVariant = 'ncs' | 'rfc9562' | 'microsoft' | 'future';

/** Options of {@link parseUuid}. */
export interface ParseUuidOptions {
  /** Require this version (an integer 0-15) and RFC 9562's variant. Default: any UUID. */
  readonly version?: number;
}

function versionArg(name: string, version: unknown): number {
  return assertInteger(name, version, 0, 15);
}

/**
 * Parses the 36-character form into a new 16-byte array.
 *
 * Throws {@link InvalidIdError} (scheme `uuid`) with reason `length`, `format` (a hyphen
 * missing, with its position), `alphabet` (a non-hex digit, with its position) and, when
 * `options.version` is given, `version` (position 14) if the version differs or `variant`
 * (position 19) if the variant is not RFC 9562's `10`. Throws `TypeError`/`RangeError` on a
 * non-string `text` or a version outside 0-15.
 */
export function parseUuid(text: string, options?: ParseUuidOptions): Uint8Array {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw typeError('parseUuid options', 'an object', options);
  }
  const version = options?.version;
  if (version !== undefined) versionArg('parseUuid options.version', version);
  const bytes = parseUuidBytes(text);
  if (version !== undefined) requireVersion(bytes, text, version);
  return bytes;
}

/**
 * The version nibble (0-15) of a UUID given as text or 16 bytes. It is only meaningful for
 * the RFC 9562 variant (see {@link uuidVariant}); the Nil UUID gives 0 and the Max UUID 15.
 *
 * Throws {@link InvalidIdError} on malformed text or a byte array that is not 16 bytes long,
 * `TypeError` when `input` is neither a string nor a Uint8Array.
 */
export function uuidVersion(input: string | Uint8Array): number {
  if (typeof input === 'string' && input.length === 36 && firstBadUuidChar(input) < 0) {
    return hexDigitAt(input, VERSION_CHAR);
  }
  return uuidInputBytes('uuidVersion input', input)[VERSION_BYTE]! >> 4;
}

function variantOf(nibble: number): UuidVariant {
  if (nibble < 8) return 'ncs';
  if (nibble < 12) return 'rfc9562';
  if (nibble < 14) return 'microsoft';
  return 'future';
}

/**
 * The variant of a UUID given as text or 16 bytes, from the high bits of byte 8: `0xxx` NCS,
 * `10xx` RFC 9562, `110x` Microsoft, `111x` reserved for the future. The Nil UUID reads as
 * `ncs` and the Max UUID as `future`, as their bits say.
 *
 * Throws like {@link uuidVersion}.
 */
export function uuidVariant(input: string | Uint8Array): UuidVariant {
  if (typeof input === 'string' && input.length === 36 && firstBadUuidChar(input) < 0) {
    return variantOf(hexDigitAt(input, VARIANT_CHAR));
  }
  return variantOf(uuidInputBytes('uuidVariant input', input)[VARIANT_BYTE]! >> 4);
}

/**
 * Whether `text` is a well-formed UUID string (either case) and, when `version` is given,
 * has that version and RFC 9562's variant. Never throws for any `text`; throws
 * `TypeError`/`RangeError` only for a `version` that is not an integer in 0-15.
 */
export function isUuid(text: unknown, version?: number): boolean {
  if (version !== undefined) versionArg('isUuid version', version);
  if (typeof text !== 'string' || text.length !== 36 || firstBadUuidChar(text) >= 0) {
    return false;
  }
  if (version === undefined) return true;
  const variant = hexDigitAt(text, VARIANT_CHAR);
  return hexDigitAt(text, VERSION_CHAR) === version && variant >= 8 && variant <= 11;
}

/**
 * Checks `text` like {@link parseUuid} and returns its canonical form (lower case).
 * Throws exactly what {@link parseUuid} throws.
 */
export function validateUuid(text: string, version?: number): string {
  if (!isUuid(text, version)) parseUuid(text, version === undefined ? undefined : { version });
  return text.toLowerCase();
}
