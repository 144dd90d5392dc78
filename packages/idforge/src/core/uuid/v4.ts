/**
 * UUID version 4 (RFC 9562 §5.4): 122 random bits, version `0100`, variant `10`.
 *
 *   rrrrrrrr-rrrr-4rrr-Nrrr-rrrrrrrrrrrr     N in 8, 9, a, b
 */
import { assertOutput, typeError } from '../assert.js';
import { defaultPool, RandomPool, type RandomSource } from '../random.js';
import { unsafeFormatUuid } from './format.js';

/** Options of {@link UuidV4Generator}. */
export interface UuidV4Options {
  /** Where the random bits come from. Default: the process-wide pool over Web Crypto. */
  readonly random?: RandomSource;
}

/** Takes 16 fresh bytes from `pool`, sets version and variant in place; returns their offset. */
function takeV4(pool: RandomPool): number {
  const at = pool.take(16);
  const b = pool.bytes;
  b[at + 6] = (b[at + 6]! & 0x0f) | 0x40;
  b[at + 8] = (b[at + 8]! & 0x3f) | 0x80;
  return at;
}

function unsafeV4Bytes(pool: RandomPool, out: Uint8Array, offset: number): Uint8Array {
  const at = takeV4(pool);
  out.set(pool.bytes.subarray(at, at + 16), offset);
  return out;
}

function v4Bytes(pool: RandomPool, out: Uint8Array | undefined, offset: number): Uint8Array {
  if (out === undefined) return unsafeV4Bytes(pool, new Uint8Array(16), 0);
  return unsafeV4Bytes(pool, assertOutput('uuidv4 out', out, offset, 16), offset);
}

function poolOf(options: UuidV4Options): RandomPool {
  if (typeof options !== 'object' || options === null) {
    throw typeError('UuidV4Generator options', 'an object', options);
  }
  const random = options.random;
  if (random === undefined) return defaultPool();
  if (typeof random !== 'object' || random === null || typeof random.fill !== 'function') {
    throw typeError(
      'UuidV4Generator options.random',
      'a RandomSource (an object with fill())',
      random,
    );
  }
  return new RandomPool(random);
}

/**
 * A UUIDv4 generator drawing from `options.random` through its own 4 KiB pool (or from the
 * process-wide pool by default). With a deterministic source (`seededRandom`,
 * `fixedRandom`) the sequence is reproducible: for tests and examples only. Holds state (the
 * pool); share it within one trust domain only. The constructor throws `TypeError` when
 * `options` is not an object or `options.random` has no `fill` method.
 */
export class UuidV4Generator {
  readonly #pool: RandomPool;

  constructor(options: UuidV4Options = {}) {
    this.#pool = poolOf(options);
  }

  /** A new UUIDv4 in canonical lower-case text. */
  next(): string {
    const pool = this.#pool;
    return unsafeFormatUuid(pool.bytes, takeV4(pool));
  }

  /**
   * A new UUIDv4 written as 16 bytes into `out` at `offset` (a new array by default); returns
   * `out`. Throws `TypeError`/`RangeError` when `out` has no room for 16 bytes at `offset`.
   */
  nextBytes(out?: Uint8Array, offset = 0): Uint8Array {
    return v4Bytes(this.#pool, out, offset);
  }
}

/**
 * A new random UUIDv4 in canonical lower-case text, from `crypto.randomUUID()` where the
 * runtime has it (Node.js, browsers in secure contexts, edge runtimes), else from the
 * process-wide random pool. Stateless for the caller; never throws.
 *
 * REF: bench/peers (uuidjs/uuid's v4 takes the same native path). The pooled path of
 * {@link UuidV4Generator} is not faster across runs on Node.js 20 (docs/benchmarks.md: 380 ns
 * against 298 ns for `crypto.randomUUID()` in the recorded run), so the native call stays.
 */
export function uuidv4(): string {
  const c = globalThis.crypto;
  if (typeof c.randomUUID === 'function') return c.randomUUID();
  // What `new UuidV4Generator().next()` gives, without the generator's option checks in the
  // bundle (issue 20).
  const pool = defaultPool();
  return unsafeFormatUuid(pool.bytes, takeV4(pool));
}

/**
 * A new random UUIDv4 as 16 bytes, written into `out` at `offset` (a new array by default);
 * returns `out`. Draws from the process-wide random pool. Throws `TypeError`/`RangeError`
 * when `out` has no room for 16 bytes at `offset`.
 */
export function uuidv4Bytes(out?: Uint8Array, offset = 0): Uint8Array {
  return v4Bytes(defaultPool(), out, offset);
}
