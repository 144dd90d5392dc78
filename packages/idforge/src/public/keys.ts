/**
 * Public-ID keys: the key file's text format, its parser and writer, and key generation.
 *
 * A key file (and the value of `IDFORGE_PUBLIC_KEYS`) lists entries, one per line or
 * separated by commas; blank lines and lines starting with `#` are ignored:
 *
 * ```
 * # idforge public-ID keys
 * 1:3q2-7wAAAAAAAAAAAAAAAA:retired
 * 2:u5Yv1Xo0e8rRK4nq7Hc1Wg
 * ```
 *
 * Each entry is `VERSION:KEY` or `VERSION:KEY:retired`: VERSION a decimal integer in 0..61
 * (the character it becomes in every public ID, see {@link VERSION_CHARS}), KEY 16 bytes
 * (AES-128, 22 characters) or 32 bytes (AES-256, 43 characters) of unpadded base64url. Keys
 * come from this text, never from code.
 */
import { cryptoRandom, type RandomSource } from '../core/index.js';
import { assertInteger, rangeError, typeError } from '../core/internal.js';
import { PublicKeysInvalidError } from './errors.js';

/** One key version. */
export interface PublicKey {
  /** 0..61: written into every public ID as one character. */
  readonly version: number;
  /** The master key: 16 bytes (AES-128) or 32 bytes (AES-256). */
  readonly key: Uint8Array;
  /** Retired: its IDs are refused with `PublicKeyRetiredError`, and it never encodes. */
  readonly retired?: boolean;
}

/** The character of each key version, 0..61: `0-9`, then `a-z`, then `A-Z`. */
export const VERSION_CHARS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** The highest key version. */
export const MAX_VERSION = VERSION_CHARS.length - 1;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Unpadded base64url of any bytes (keys only: not on a hot path). */
export function keyToText(key: Uint8Array): string {
  let bits = 0;
  let acc = 0;
  let s = '';
  for (const byte of key) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      s += B64[(acc >>> bits) & 63];
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) s += B64[(acc << (6 - bits)) & 63];
  return s;
}

/** Bytes of unpadded, canonical base64url text, or undefined when it is not that. */
function textToKey(text: string): Uint8Array | undefined {
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let bits = 0;
  let acc = 0;
  let j = 0;
  for (const ch of text) {
    const v = B64.indexOf(ch);
    if (v < 0) return undefined;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[j++] = acc >>> bits;
      acc &= (1 << bits) - 1;
    }
  }
  if (acc !== 0) return undefined; // spare bits must be zero: one text per key
  return out;
}

/** Checks a key's shape (misuse: TypeError / RangeError naming `name`). */
export function assertPublicKey(name: string, k: unknown): PublicKey {
  if (typeof k !== 'object' || k === null) throw typeError(name, 'a PublicKey object', k);
  const { version, key, retired } = k as Record<string, unknown>;
  assertInteger(`${name}.version`, version, 0, MAX_VERSION);
  if (!(key instanceof Uint8Array)) throw typeError(`${name}.key`, 'a Uint8Array(16 or 32)', key);
  if (key.length !== 16 && key.length !== 32)
    throw rangeError(`${name}.key`, 'a Uint8Array(16 or 32)', key);
  if (retired !== undefined && typeof retired !== 'boolean')
    throw typeError(`${name}.retired`, 'a boolean or undefined', retired);
  return k as PublicKey;
}

/**
 * Parses a key file's text (or `IDFORGE_PUBLIC_KEYS`) into keys sorted by version.
 * Throws `TypeError` if `text` is not a string, `PublicKeysInvalidError` (naming the entry,
 * never the key) if an entry is malformed, a version repeats, or there is no key.
 */
export function parsePublicKeys(text: string): PublicKey[] {
  if (typeof text !== 'string') throw typeError('text', 'a string', text);
  const keys: PublicKey[] = [];
  const seen = new Set<number>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line.startsWith('#')) continue;
    for (const entry of line.split(',')) {
      const e = entry.trim();
      if (e !== '') keys.push(parseEntry(e, i + 1, seen));
    }
  }
  if (keys.length === 0) throw new PublicKeysInvalidError('no key found');
  return keys.sort((a, b) => a.version - b.version);
}

/** One `VERSION:KEY[:retired]` entry of line `line`. */
function parseEntry(entry: string, line: number, seen: Set<number>): PublicKey {
  const parts = entry.split(':');
  const [v, k, flag] = parts;
  if (parts.length > 3 || v === undefined || k === undefined)
    throw new PublicKeysInvalidError('expected VERSION:KEY or VERSION:KEY:retired', line);
  // A version of more than 3 characters is named by its length only: it may be a key written
  // where the version goes (the two swapped), of which the message once quoted 20 characters.
  if (!/^\d{1,2}$/.test(v) || Number(v) > MAX_VERSION)
    throw new PublicKeysInvalidError(
      `version ${v.length <= 3 ? `"${v}"` : `of ${v.length} characters`} is not an integer in 0..61`,
      line,
    );
  const version = Number(v);
  if (seen.has(version))
    throw new PublicKeysInvalidError(`version ${version} is listed twice`, line);
  const key = textToKey(k);
  if (key === undefined || (key.length !== 16 && key.length !== 32))
    throw new PublicKeysInvalidError(
      `the key of version ${version} is not 16 or 32 bytes of base64url (${k.length} characters)`,
      line,
    );
  if (flag !== undefined && flag !== 'retired')
    throw new PublicKeysInvalidError(`unknown flag "${flag.slice(0, 20)}" (only "retired")`, line);
  seen.add(version);
  return flag === 'retired' ? { version, key, retired: true } : { version, key };
}

/**
 * The key file's text for `keys` (sorted by version, one per line, after a comment header),
 * which {@link parsePublicKeys} reads back to equal keys. Throws `TypeError` / `RangeError`
 * for a malformed key or a repeated version.
 */
export function formatPublicKeys(keys: readonly PublicKey[]): string {
  if (!Array.isArray(keys)) throw typeError('keys', 'an array of PublicKey', keys);
  const seen = new Set<number>();
  keys.forEach((k, i) => {
    assertPublicKey(`keys[${i}]`, k);
    if (seen.has(k.version))
      throw rangeError(`keys[${i}].version`, 'a version not yet listed', k.version);
    seen.add(k.version);
  });
  const lines = [...keys]
    .sort((a, b) => a.version - b.version)
    .map((k) => `${k.version}:${keyToText(k.key)}${k.retired === true ? ':retired' : ''}`);
  return (
    '# idforge public-ID keys: VERSION:KEY[:retired], KEY base64url. Keep secret (mode 0600).\n' +
    '# The highest version not retired encodes; every version listed decodes.\n' +
    `${lines.join('\n')}\n`
  );
}

/**
 * A new random key of `bytes` bytes (16: AES-128, the default; 32: AES-256) for `version`,
 * drawn from `random` (default: `crypto.getRandomValues`). Throws `RangeError` for a version
 * outside 0..61 or another size.
 */
export function generatePublicKey(
  version: number,
  random: RandomSource = cryptoRandom,
  bytes: 16 | 32 = 16,
): PublicKey {
  assertInteger('version', version, 0, MAX_VERSION);
  if (bytes !== 16 && bytes !== 32) throw rangeError('bytes', '16 or 32', bytes);
  const key = new Uint8Array(bytes);
  random.fill(key);
  return { version, key };
}
