/**
 * One AES block at a time, over `@noble/ciphers` (audited, pure JavaScript, browser-safe):
 * the key schedules are expanded once, then each block costs one call with no allocation of
 * ours. The block is handled as four 32-bit words in noble's little-endian lane order (word i
 * holds bytes 4i..4i+3, byte 4i in the low 8 bits), which {@link loadWord} and
 * {@link storeWord} convert from and to bytes on any platform.
 *
 * noble marks `unsafe.encrypt` / `unsafe.decrypt` as internal and subject to change: the tests
 * run FIPS-197 and SP 800-38A vectors through this very class (test/public/aes.test.ts), so a
 * change in them fails the build rather than the IDs.
 *
 * REF: bench/peers/public-group.ts (noble's `ecb(key).encrypt(block)` expands the key and
 * allocates per call; the word path is what makes a public ID cost well under a microsecond).
 */
import { unsafe } from '@noble/ciphers/aes.js';

/** A 16-byte block as noble's four little-endian words. */
export interface Words {
  s0: number;
  s1: number;
  s2: number;
  s3: number;
}

/** The little-endian word of `b[off..off+3]`. */
export function loadWord(b: Uint8Array, off: number): number {
  return (b[off]! | (b[off + 1]! << 8) | (b[off + 2]! << 16) | (b[off + 3]! << 24)) >>> 0;
}

/** Writes word `w` to `b[off..off+3]` (little-endian lanes). */
export function storeWord(b: Uint8Array, off: number, w: number): void {
  b[off] = w;
  b[off + 1] = w >>> 8;
  b[off + 2] = w >>> 16;
  b[off + 3] = w >>> 24;
}

/** Reverses the bytes of a word: a big-endian 32-bit number to its lane word and back. */
export function swapWord(w: number): number {
  return ((w >>> 24) | ((w >>> 8) & 0xff00) | ((w & 0xff00) << 8) | (w << 24)) >>> 0;
}

/**
 * AES-128 or AES-256 under one key, both directions precomputed. Holds no state beyond the
 * key schedules: safe to share. The key is copied by noble; the caller may wipe its own.
 */
export class AesBlock {
  readonly #enc: Uint32Array;
  readonly #dec: Uint32Array;

  /** `key`: 16 or 32 bytes (checked by the caller). */
  constructor(key: Uint8Array) {
    this.#enc = unsafe.expandKeyLE(key);
    this.#dec = unsafe.expandKeyDecLE(key);
  }

  /** AES encryption of the block given as words; returns a fresh words object. */
  encrypt(s0: number, s1: number, s2: number, s3: number): Words {
    return unsafe.encrypt(this.#enc, s0, s1, s2, s3);
  }

  /** AES decryption (the inverse cipher) of the block given as words. */
  decrypt(s0: number, s1: number, s2: number, s3: number): Words {
    return unsafe.decrypt(this.#dec, s0, s1, s2, s3);
  }

  /** Encrypts the 16 bytes at `src[srcOff]` into `dst[dstOff]` (they may be the same place). */
  encryptBlock(src: Uint8Array, srcOff: number, dst: Uint8Array, dstOff: number): void {
    const o = this.encrypt(
      loadWord(src, srcOff),
      loadWord(src, srcOff + 4),
      loadWord(src, srcOff + 8),
      loadWord(src, srcOff + 12),
    );
    storeWords(dst, dstOff, o);
  }

  /** Decrypts the 16 bytes at `src[srcOff]` into `dst[dstOff]`. */
  decryptBlock(src: Uint8Array, srcOff: number, dst: Uint8Array, dstOff: number): void {
    const o = this.decrypt(
      loadWord(src, srcOff),
      loadWord(src, srcOff + 4),
      loadWord(src, srcOff + 8),
      loadWord(src, srcOff + 12),
    );
    storeWords(dst, dstOff, o);
  }
}

function storeWords(dst: Uint8Array, off: number, o: Words): void {
  storeWord(dst, off, o.s0);
  storeWord(dst, off + 4, o.s1);
  storeWord(dst, off + 8, o.s2);
  storeWord(dst, off + 12, o.s3);
}
