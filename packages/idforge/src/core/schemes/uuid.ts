/**
 * The UUID family's descriptors: `uuid` for inspect (any version; a hint `uuidvN` requires
 * that version), `uuidv4` and `uuidv7` as the service and `idforge gen` make them. Inspect
 * reads a UUID as 36 characters with hyphens, 32 hex digits, `{…}` or `urn:uuid:…`.
 */
import { bytesToHex } from '../encoding/hex.js';
import { isUuid, parseUuid } from '../uuid/parse.js';
import { uuidv1Timestamp } from '../uuid/v1v6.js';
import { UuidV4Generator, uuidv4, uuidv4Bytes } from '../uuid/v4.js';
import { UuidV7Generator, type UuidV7Method } from '../uuid/v7.js';
import type { Decoded, GenFlags, GenSource, SchemeDescriptor, UuidSpecial } from './descriptor.js';

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

/** Whether `text` has one of a UUID's shapes (its digits are checked by the decoding). */
function detectUuid(text: string): boolean {
  if (text.length === 36 && text.charCodeAt(8) === 45) return true;
  return (text.length === 32 && UUID_HEX32.test(text)) || text.charCodeAt(0) === 123 || isUrn(text);
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

/** The big-endian 32-bit word at `b[o..o+3]`. */
function word(b: Uint8Array, o: number): number {
  return ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;
}

/**
 * The UUID's record, from bytes parsed and checked once: what it reads from them it reads
 * directly (REF: bench/peers/decoders.ts, inspect: the variant, the time and the text from
 * the bytes, against the public functions' checks and parses of them again).
 */
function inspectUuid(input: string, hint: string): Decoded {
  const version = hint === 'uuid' ? undefined : Number(hint.slice(5));
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

/** Any UUID, for inspect: the service and the CLI make the versions below. */
export const uuidScheme = {
  name: 'uuid',
  title: 'UUID',
  inspect: {
    family: 'uuid',
    hints: ['uuid', 'uuidv1', 'uuidv4', 'uuidv6', 'uuidv7'],
    shape: 'a UUID (36 with hyphens, 32 hex digits, {…} or urn:uuid:…)',
    detect: detectUuid,
    decode: inspectUuid,
  },
} as const satisfies SchemeDescriptor;

export const uuidv4Scheme = {
  name: 'uuidv4',
  title: 'UUIDv4',
  service: { valid: (id: string) => isUuid(id, 4), generator: () => new UuidV4Generator() },
  gen: {
    help: 'random UUID (RFC 9562 version 4)',
    source: (): GenSource => ({ text: uuidv4, bytes: () => uuidv4Bytes() }),
  },
  bench: [
    { name: 'uuidv4', kind: 'bytes16', keys: () => () => uuidv4Bytes() },
    { name: 'uuidv4-text', kind: 'text36', keys: () => uuidv4 },
  ],
} as const satisfies SchemeDescriptor;

const METHODS: readonly UuidV7Method[] = ['counter', 'fraction', 'random'];

/** A UUIDv7 generator of `--method` (default counter); `RangeError` naming another. */
function uuidv7Source(flags: GenFlags): GenSource {
  const method = (flags.method ?? 'counter') as UuidV7Method;
  if (!METHODS.includes(method)) {
    throw new RangeError(`--method: expected one of ${METHODS.join(', ')}, got "${method}"`);
  }
  const gen = new UuidV7Generator({ method });
  return { text: () => gen.next(), bytes: () => gen.nextBytes() };
}

/** A new UUIDv7 generator's next, as bytes or as text. */
function v7Next(bytes: boolean): () => Uint8Array | string {
  const gen = new UuidV7Generator();
  return bytes ? () => gen.nextBytes() : () => gen.next();
}

export const uuidv7Scheme = {
  name: 'uuidv7',
  title: 'UUIDv7',
  service: {
    valid: (id: string) => isUuid(id, 7),
    generator: (clock) => new UuidV7Generator({ clock }),
  },
  gen: {
    help: 'time-ordered UUID (RFC 9562 version 7), strictly increasing in one run',
    flags: [
      { name: 'method', arg: 'M', help: 'counter (default), fraction or random (RFC 9562 §6.2)' },
    ],
    source: uuidv7Source,
  },
  bench: [
    { name: 'uuidv7', kind: 'bytes16', keys: () => v7Next(true) },
    { name: 'uuidv7-text', kind: 'text36', keys: () => v7Next(false) },
  ],
} as const satisfies SchemeDescriptor;
