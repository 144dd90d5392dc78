/**
 * Opaque public IDs: a keyed, versioned, tamper-evident mapping of internal IDs (a 64-bit
 * Snowflake or sequence number, a 128-bit UUID or ULID) to fixed-length URL-safe strings,
 * built from AES (FIPS 197, via `@noble/ciphers`) and AES-CMAC (RFC 4493); no cipher of our
 * own. Subkeys and prefix tweaks (r64, t1, t2) are derived as `version-key.ts` describes.
 *
 * ```
 *  64-bit ID x (0 ≤ x < 2^64):
 *    P = x as 8 bytes big-endian || r64(prefix)      (16 bytes: 8 of ID, 8 of redundancy)
 *    C = AES_k64(P)                                  (16 bytes → 22 base64url characters)
 *    decode: P' = AES_k64⁻¹(C); accept iff P'[8..16) = r64(prefix)
 *  128-bit ID u (16 bytes):
 *    C = AES_k128(u ⊕ t1(prefix))                    (16 bytes)
 *    T = first 5 bytes of AES_kTag(C ⊕ t2(prefix))   (the tag)
 *    text of C || T: 21 bytes → 28 base64url characters
 *    decode: accept iff T = first 5 bytes of AES_kTag(C ⊕ t2); u = AES_k128⁻¹(C) ⊕ t1
 *  public ID = [prefix "_"] version-char base64url
 *    64-bit: 23 characters after the prefix; 128-bit: 29. Version chars: 0-9 a-z A-Z (0..61).
 * ```
 *
 * Why it holds:
 * - Hiding: AES is a pseudo-random permutation, so distinct IDs give unrelated-looking
 *   ciphertexts; sequential inputs show no order, time or volume (test/public/opaque-stats).
 * - Forgery: a made-up or altered 64-bit public ID decrypts to a block whose last 8 bytes are
 *   uniformly distributed, so it matches r64 with probability 2^-64 per guess. A 128-bit
 *   public ID's tag is a truncated PRF of C, matched with probability 2^-40 per guess. Both are
 *   within the 2^-32 asked for. Decoding checks before it returns anything, so a forgery never
 *   decodes to another row.
 * - Prefixes: the tweaks are a PRF of the prefix, so an `inv_` ID presented as `usr_` fails
 *   its check like any forgery, and the same internal ID under two prefixes gives unrelated
 *   public IDs (the 128-bit whitening t1 is there for that: without it, the C part would be
 *   shared and show that two rows of different types have equal internal IDs).
 * - Versions: each version has its own master key; the version character selects it. A
 *   changed version character decodes under another key and fails its check.
 * - What it does not hide: the length tells a 64-bit from a 128-bit ID, and equal internal
 *   IDs (same prefix, same key) give equal public IDs (a permutation is deterministic). It is
 *   not an authorization check.
 *
 * REF: bench/peers/public-group.ts (encode and decode each well over 1 M/s on one core).
 */
import { assertInteger, rangeError, typeError, UINT64_MAX } from '../core/internal.js';
import { loadWord, storeWord, swapWord } from './aes.js';
import { decodeBase64url, encodeBase64url } from './base64url.js';
import { PublicIdInvalidError } from './errors.js';
import { assertPublicKey, MAX_VERSION, type PublicKey, VERSION_CHARS } from './keys.js';
import { lengthError, open64, open128 } from './opaque-open.js';
import { type Tweak, VersionKey } from './version-key.js';

/** Options of {@link PublicIds}. */
export interface PublicIdOptions {
  /** Every key version to decode with (retired ones included, to name them in errors). */
  readonly keys: readonly PublicKey[];
  /** The version that encodes. Default: the highest version not retired. */
  readonly current?: number;
}

/** Length after the prefix of a 64-bit public ID (version character + 22). */
export const PUBLIC_ID_64_LENGTH = 23;
/** Length after the prefix of a 128-bit public ID (version character + 28). */
export const PUBLIC_ID_128_LENGTH = 29;

const MASK32 = 0xffffffffn;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const PREFIX = /^[a-z](?:[a-z0-9_]{0,61}[a-z0-9])?$/;

/**
 * Encodes and decodes opaque public IDs under a set of key versions. Holds the expanded keys
 * and a per-prefix cache, nothing per call: safe to share, one instance per process.
 *
 * Prefixes: 1 to 63 characters of `a-z 0-9 _`, starting with a letter and not ending with
 * `_` (a `RangeError` otherwise); no prefix is its own kind, distinct from every prefix.
 */
export class PublicIds {
  /** The version that encodes. */
  readonly current: number;
  /** Every version held, ascending. */
  readonly versions: readonly number[];
  readonly #byCode: (VersionKey | undefined)[];
  readonly #enc: VersionKey;
  readonly #versionChar: string;
  readonly #buf = new Uint8Array(21);
  readonly #checked = new Set<string>();
  /** Encoding: the current key's tweaks and the text before the cipher text, per prefix. */
  readonly #entries = new Map<string, { readonly t: Tweak; readonly head: string }>();
  readonly #plain: { readonly t: Tweak; readonly head: string };

  /**
   * Throws `TypeError` / `RangeError` for malformed keys, a repeated version, no key not
   * retired, or a `current` that is not a held, unretired version.
   */
  constructor(options: PublicIdOptions) {
    if (typeof options !== 'object' || options === null)
      throw typeError('options', 'an object with keys', options);
    const { keys, current } = options;
    if (!Array.isArray(keys)) throw typeError('options.keys', 'an array of PublicKey', keys);
    if (keys.length === 0) throw rangeError('options.keys', 'at least one PublicKey', keys);
    this.#byCode = new Array(128).fill(undefined);
    const held = new Map<number, VersionKey>();
    keys.forEach((k, i) => {
      assertPublicKey(`options.keys[${i}]`, k);
      if (held.has(k.version))
        throw rangeError(`options.keys[${i}].version`, 'a version not yet listed', k.version);
      const vk = new VersionKey(k);
      held.set(k.version, vk);
      this.#byCode[VERSION_CHARS.charCodeAt(k.version)] = vk;
    });
    this.versions = [...held.keys()].sort((a, b) => a - b);
    const active = this.versions.filter((v) => held.get(v)?.retired === false);
    if (current === undefined) {
      if (active.length === 0)
        throw rangeError('options.keys', 'at least one key not retired', keys);
      this.current = active[active.length - 1]!;
    } else {
      assertInteger('options.current', current, 0, MAX_VERSION);
      if (!active.includes(current))
        throw rangeError(
          'options.current',
          `a held version not retired (${active.join(', ')})`,
          current,
        );
      this.current = current;
    }
    this.#enc = held.get(this.current)!;
    this.#versionChar = VERSION_CHARS[this.current]!;
    this.#plain = { t: this.#enc.tweak(''), head: this.#versionChar };
  }

  /**
   * The public ID of `id` under the current key: a bigint in [0, 2^64) gives 23 characters
   * after the prefix, a 16-byte `Uint8Array` (UUID, ULID bytes) 29. Deterministic: the same
   * ID, prefix and key give the same public ID. Throws `TypeError` / `RangeError` for another
   * type, an out-of-range bigint, another length, or a malformed prefix.
   */
  encode(id: bigint | Uint8Array, prefix?: string): string {
    const { t, head } = prefix === undefined ? this.#plain : this.#entry(prefix);
    const b = this.#buf;
    if (typeof id === 'bigint') {
      if (id < 0n || id > UINT64_MAX) throw rangeError('id', 'a bigint in [0, 2^64)', id);
      // REF: bench/peers/public-group.ts (below 2^53, one BigInt→Number beats two BigInt ops).
      let hi: number;
      let lo: number;
      if (id <= MAX_SAFE) {
        const n = Number(id);
        hi = Math.floor(n / 0x100000000);
        lo = n >>> 0;
      } else {
        hi = Number(id >> 32n);
        lo = Number(id & MASK32);
      }
      const o = this.#enc.k64.encrypt(swapWord(hi), swapWord(lo), t.r2, t.r3);
      storeWord(b, 0, o.s0);
      storeWord(b, 4, o.s1);
      storeWord(b, 8, o.s2);
      storeWord(b, 12, o.s3);
      return head + encodeBase64url(b, 16);
    }
    if (!(id instanceof Uint8Array)) throw typeError('id', 'a bigint or a Uint8Array(16)', id);
    if (id.length !== 16) throw rangeError('id', 'a bigint or a Uint8Array(16)', id);
    const c = this.#enc.k128.encrypt(
      loadWord(id, 0) ^ t.a0,
      loadWord(id, 4) ^ t.a1,
      loadWord(id, 8) ^ t.a2,
      loadWord(id, 12) ^ t.a3,
    );
    const g = this.#enc.kTag.encrypt(c.s0 ^ t.b0, c.s1 ^ t.b1, c.s2 ^ t.b2, c.s3 ^ t.b3);
    storeWord(b, 0, c.s0);
    storeWord(b, 4, c.s1);
    storeWord(b, 8, c.s2);
    storeWord(b, 12, c.s3);
    storeWord(b, 16, g.s0);
    b[20] = g.s1;
    return head + encodeBase64url(b, 21);
  }

  /**
   * The internal ID of a public ID issued with `prefix` (none: `undefined`) under any held
   * key: a bigint for a 64-bit one, a new `Uint8Array(16)` for a 128-bit one. Throws
   * `PublicIdInvalidError` when it is altered, made up, of another prefix or unknown version,
   * or malformed; `PublicKeyRetiredError` (naming the version) when it is genuine but its key
   * is retired; `TypeError` / `RangeError` when `publicId` is not a string or `prefix` is
   * malformed.
   */
  decode(publicId: string, prefix?: string): bigint | Uint8Array {
    const start = this.#start(publicId, prefix);
    const len = publicId.length - start;
    if (len === PUBLIC_ID_64_LENGTH) return this.#decode64(publicId, prefix, start);
    if (len === PUBLIC_ID_128_LENGTH) return this.#decode128(publicId, prefix, start);
    throw lengthError(
      publicId,
      prefix,
      start,
      '23 characters (a 64-bit public ID) or 29 (a 128-bit one)',
    );
  }

  /** {@link decode} for a 64-bit ID only: a 128-bit public ID is refused as `length`. */
  decode64(publicId: string, prefix?: string): bigint {
    const start = this.#start(publicId, prefix);
    if (publicId.length - start === PUBLIC_ID_64_LENGTH)
      return this.#decode64(publicId, prefix, start);
    throw lengthError(publicId, prefix, start, '23 characters (a 64-bit public ID)');
  }

  /** {@link decode} for a 128-bit ID only: a 64-bit public ID is refused as `length`. */
  decode128(publicId: string, prefix?: string): Uint8Array {
    const start = this.#start(publicId, prefix);
    if (publicId.length - start === PUBLIC_ID_128_LENGTH)
      return this.#decode128(publicId, prefix, start);
    throw lengthError(publicId, prefix, start, '29 characters (a 128-bit public ID)');
  }

  /**
   * The encoding entry of a prefix, validated on first use (only valid prefixes are cached).
   * REF: bench/peers/public-group.ts (one Map lookup instead of a check, a lookup and a concat).
   */
  #entry(prefix: string): { readonly t: Tweak; readonly head: string } {
    const hit = this.#entries.get(prefix);
    if (hit !== undefined) return hit;
    this.#prefix(prefix);
    const e = { t: this.#enc.tweak(prefix), head: `${prefix}_${this.#versionChar}` };
    if (this.#entries.size < 1024) this.#entries.set(prefix, e);
    return e;
  }

  /** The validated prefix ("" for none); throws RangeError for a malformed one. */
  #prefix(prefix: string | undefined): string {
    if (prefix === undefined) return '';
    if (this.#checked.has(prefix)) return prefix;
    if (typeof prefix !== 'string') throw typeError('prefix', 'a string or undefined', prefix);
    if (!PREFIX.test(prefix))
      throw rangeError('prefix', '1-63 of a-z 0-9 _, a letter first, not ending in _', prefix);
    if (this.#checked.size < 1024) this.#checked.add(prefix);
    return prefix;
  }

  /** Where the version character is, once the expected prefix is checked. */
  #start(publicId: string, prefix: string | undefined): number {
    if (typeof publicId !== 'string') throw typeError('publicId', 'a string', publicId);
    this.#prefix(prefix);
    if (prefix === undefined) return 0;
    if (!publicId.startsWith(prefix) || publicId.charCodeAt(prefix.length) !== 95) {
      throw new PublicIdInvalidError(
        'prefix',
        `it does not start with "${prefix}_"`,
        publicId,
        prefix,
      );
    }
    return prefix.length + 1;
  }

  /** The key of the version character at `start`, or the error naming it. */
  #key(publicId: string, prefix: string | undefined, start: number): VersionKey {
    const code = publicId.charCodeAt(start);
    const vk = code < 128 ? this.#byCode[code] : undefined;
    if (vk !== undefined) return vk;
    const ch = publicId[start] ?? '';
    const v = VERSION_CHARS.indexOf(ch);
    const what = v < 0 ? `"${ch}" is not a version character` : `no key of version ${v} is held`;
    throw new PublicIdInvalidError('version', what, publicId, prefix);
  }

  #body(publicId: string, prefix: string | undefined, start: number, n: number): Uint8Array {
    const bad = decodeBase64url(publicId, start + 1, this.#buf, n);
    if (bad >= 0) {
      throw new PublicIdInvalidError(
        'alphabet',
        `character ${bad} is not valid there`,
        publicId,
        prefix,
      );
    }
    return this.#buf;
  }

  #decode64(publicId: string, prefix: string | undefined, start: number): bigint {
    const vk = this.#key(publicId, prefix, start);
    return open64(vk, this.#body(publicId, prefix, start, 16), publicId, prefix);
  }

  #decode128(publicId: string, prefix: string | undefined, start: number): Uint8Array {
    const vk = this.#key(publicId, prefix, start);
    return open128(vk, this.#body(publicId, prefix, start, 21), publicId, prefix);
  }
}
