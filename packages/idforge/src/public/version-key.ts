/**
 * The working material of one key version: three AES subkeys and the per-prefix tweaks, all
 * derived from the version's master key with AES itself, so a key file holds one key per
 * version and nothing else.
 *
 * Derivation (K the master key, E_K AES under it, a counter-mode KDF in the manner of NIST
 * SP 800-108 with AES as the PRF):
 *
 * ```
 *   L(role, half) = "idforge/public" (14 ASCII bytes) || role (1 byte) || half (1 byte)
 *   subkey(role)  = E_K(L(role, 0))                      for a 16-byte K (AES-128)
 *                 = E_K(L(role, 0)) || E_K(L(role, 1))   for a 32-byte K (AES-256)
 *   role 1: k64 (the 64-bit permutation)   role 2: k128 (the 128-bit permutation)
 *   role 3: kTag (the 128-bit tag PRF)      role 4: kPre (CMAC key for prefix tweaks)
 *   tweaks of prefix p ("" for none; p is ASCII):
 *     r64 = first 8 bytes of CMAC_kPre(0x40 || p)     the 64-bit redundancy
 *     t1  = CMAC_kPre(0x81 || p)                      whitening of a 128-bit ID
 *     t2  = CMAC_kPre(0x82 || p)                      tweak of the 128-bit tag
 * ```
 *
 * Distinct roles give independent-looking subkeys (AES is a PRP, its outputs on distinct
 * inputs are distinct and unpredictable without K); CMAC (RFC 4493) is a PRF on messages of
 * any length, so every prefix, of any length, gets its own unpredictable tweaks.
 */
import { cmac } from '@noble/ciphers/aes.js';
import { AesBlock, loadWord } from './aes.js';
import type { PublicKey } from './keys.js';

/** The tweaks of one prefix, as AES words. */
export interface Tweak {
  readonly r2: number;
  readonly r3: number;
  readonly a0: number;
  readonly a1: number;
  readonly a2: number;
  readonly a3: number;
  readonly b0: number;
  readonly b1: number;
  readonly b2: number;
  readonly b3: number;
}

const LABEL = 'idforge/public';
/** Beyond this many distinct prefixes the cache starts over (prefixes are few in practice). */
const MAX_CACHED_PREFIXES = 1024;

/** Immutable after construction but for its prefix cache: safe to share. */
export class VersionKey {
  readonly version: number;
  readonly retired: boolean;
  readonly k64: AesBlock;
  readonly k128: AesBlock;
  readonly kTag: AesBlock;
  readonly #kPre: Uint8Array;
  readonly #tweaks = new Map<string, Tweak>();

  constructor(k: PublicKey) {
    this.version = k.version;
    this.retired = k.retired === true;
    const master = new AesBlock(k.key);
    const halves = k.key.length / 16;
    const derive = (role: number): Uint8Array => {
      const out = new Uint8Array(16 * halves);
      const block = new Uint8Array(16);
      for (let i = 0; i < LABEL.length; i++) block[i] = LABEL.charCodeAt(i);
      block[14] = role;
      for (let h = 0; h < halves; h++) {
        block[15] = h;
        master.encryptBlock(block, 0, out, 16 * h);
      }
      return out;
    };
    this.k64 = new AesBlock(derive(1));
    this.k128 = new AesBlock(derive(2));
    this.kTag = new AesBlock(derive(3));
    this.#kPre = derive(4);
  }

  /** The tweaks of `prefix` ("" for none), which the caller has validated. */
  tweak(prefix: string): Tweak {
    const hit = this.#tweaks.get(prefix);
    if (hit !== undefined) return hit;
    if (this.#tweaks.size >= MAX_CACHED_PREFIXES) this.#tweaks.clear();
    const r = this.#mac(0x40, prefix);
    const a = this.#mac(0x81, prefix);
    const b = this.#mac(0x82, prefix);
    const t: Tweak = {
      r2: loadWord(r, 8),
      r3: loadWord(r, 12),
      a0: loadWord(a, 0),
      a1: loadWord(a, 4),
      a2: loadWord(a, 8),
      a3: loadWord(a, 12),
      b0: loadWord(b, 0),
      b1: loadWord(b, 4),
      b2: loadWord(b, 8),
      b3: loadWord(b, 12),
    };
    this.#tweaks.set(prefix, t);
    return t;
  }

  #mac(domain: number, prefix: string): Uint8Array {
    const msg = new Uint8Array(1 + prefix.length);
    msg[0] = domain;
    for (let i = 0; i < prefix.length; i++) msg[i + 1] = prefix.charCodeAt(i);
    const tag = cmac(msg, this.#kPre);
    // The redundancy takes CMAC's first 8 bytes; placed as words 2 and 3 of the block.
    if (domain === 0x40) tag.copyWithin(8, 0, 8);
    return tag;
  }
}
