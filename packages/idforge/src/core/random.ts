/**
 * Randomness. Generators draw bytes from a {@link RandomPool} filled in large chunks by a
 * {@link RandomSource}, by default `crypto.getRandomValues` (Web Crypto: Node.js, browsers,
 * edge runtimes). Tests inject a deterministic source.
 */

/** Fills a byte array with random bytes. */
export interface RandomSource {
  fill(bytes: Uint8Array): void;
}

/** Web Crypto's maximum per call. */
const MAX_CHUNK = 65536;

/** Cryptographically secure randomness from `globalThis.crypto.getRandomValues`. */
export const cryptoRandom: RandomSource = /* @__PURE__ */ Object.freeze({
  fill(bytes: Uint8Array): void {
    for (let off = 0; off < bytes.length; off += MAX_CHUNK) {
      globalThis.crypto.getRandomValues(bytes.subarray(off, off + MAX_CHUNK));
    }
  },
});

/**
 * A buffer of random bytes refilled in one call when used up. `take(n)` reserves `n` fresh
 * bytes and returns their offset in {@link RandomPool.bytes}; they stay valid until the next
 * `take`. Holds state; not for sharing across untrusted code (bytes are read in place).
 *
 * REF: bench/peers (one getRandomValues call per 4 KiB instead of per ID is most of the
 * difference between 300 ns and 50 ns per ULID).
 */
export class RandomPool {
  readonly bytes: Uint8Array;
  readonly #source: RandomSource;
  #pos: number;

  constructor(source: RandomSource, size = 4096) {
    this.#source = source;
    this.bytes = new Uint8Array(size);
    this.#pos = size;
  }

  /** Reserve `n` (at most the pool size) fresh bytes; returns their offset in `bytes`. */
  take(n: number): number {
    let pos = this.#pos;
    if (pos + n > this.bytes.length) {
      this.#source.fill(this.bytes);
      pos = 0;
    }
    this.#pos = pos + n;
    return pos;
  }
}

/**
 * A deterministic, NOT cryptographic source (xorshift32) for tests and reproducible
 * examples. Never use it for identifiers that must be unguessable.
 */
export function seededRandom(seed: number): RandomSource {
  let s = seed >>> 0 || 0x9e3779b9;
  return {
    fill(bytes: Uint8Array): void {
      for (let i = 0; i < bytes.length; i++) {
        s ^= s << 13;
        s >>>= 0;
        s ^= s >>> 17;
        s ^= s << 5;
        s >>>= 0;
        bytes[i] = s & 0xff;
      }
    },
  };
}

/** A source that returns the given bytes, repeated: for exact test vectors. */
export function fixedRandom(pattern: Uint8Array): RandomSource {
  return {
    fill(bytes: Uint8Array): void {
      for (let i = 0; i < bytes.length; i++) bytes[i] = pattern[i % pattern.length] ?? 0;
    },
  };
}

let sharedPool: RandomPool | undefined;

/**
 * The process-wide default pool over Web Crypto. Its source is {@link cryptoRandom} without the
 * chunking (its 4096 bytes are one call's worth), so that a bundle of `uuidv7()` or `ulid()`
 * carries neither that loop nor the frozen object (issue 20).
 */
export function defaultPool(): RandomPool {
  if (sharedPool === undefined) {
    sharedPool = new RandomPool({ fill: (b) => globalThis.crypto.getRandomValues(b) });
  }
  return sharedPool;
}
