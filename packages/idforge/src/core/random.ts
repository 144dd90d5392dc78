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
  /** Reserve `n` (at most the pool size) fresh bytes; returns their offset in `bytes`. */
  readonly take: (n: number) => number;

  constructor(source: RandomSource, size = 4096) {
    const pool = poolOver((bytes) => source.fill(bytes), size);
    this.bytes = pool.bytes;
    this.take = pool.take;
  }
}

/**
 * The bytes and `take` of a {@link RandomPool} of `size` bytes filled by `fill`, as a plain
 * object: the class is a shell over it, and {@link defaultPool} is one without the class, so
 * that a bundle of `uuidv7()` or `ulid()` carries no class (issue 20: 40 B of gzip). The
 * state is in the closure (same speed as private fields, measured: about 8 ns a 4-byte take
 * either way, refills included).
 */
function poolOver(fill: (bytes: Uint8Array) => void, size: number): RandomPool {
  const bytes = new Uint8Array(size);
  let pos = size;
  return {
    bytes,
    take(n) {
      let p = pos;
      if (p + n > size) {
        fill(bytes);
        p = 0;
      }
      pos = p + n;
      return p;
    },
  };
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
 * The process-wide default pool over Web Crypto (`crypto` is `globalThis.crypto`). Its source
 * is {@link cryptoRandom} without the chunking (its 4096 bytes are one call's worth), so that
 * a bundle of `uuidv7()` or `ulid()` carries neither that loop nor the frozen object, nor the
 * {@link RandomPool} class (issue 20). Created at the first call.
 */
export function defaultPool(): RandomPool {
  sharedPool ??= poolOver((bytes) => crypto.getRandomValues(bytes), 4096);
  return sharedPool;
}
