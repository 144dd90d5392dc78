/**
 * Backdated IDs: an ID minted at a given instant rather than now, for backfills that key old
 * rows by their own `created_at` (uuidjs/uuid #764, Mastodon's `id_at`), so that the new key
 * sorts the rows as their timestamps do.
 *
 * Each ID is unique by its random bits alone: 62 for a UUIDv7, 68 for a ULID (at a million IDs of one millisecond, the chance of any repeat is about 1 in 10^7 for
 * a UUIDv7). None of these functions keeps state, so they are NOT monotonic: two IDs of the
 * same instant sort in random order, and an ID minted at an instant in the past sorts before
 * IDs a generator mints now, which is the point. Do not mix them into a column where a
 * generator's strict order matters.
 *
 * The 12 bits after the millisecond hold the instant's sub-millisecond fraction in 1/4096 ms
 * steps (RFC 9562 §6.2 Method 3 for UUIDv7; the top of the randomness for a ULID), 0 for an
 * integer instant, so IDs sort by the instant to below a microsecond: backdated from a
 * microsecond `timestamptz`, the keys keep the rows' order even within one millisecond. (A
 * double holds unix ms with 12 fraction bits until 2^41 ms, 2039-09-07, and 11 until 2^42
 * ms, 2109: still finer than a microsecond.)
 *
 * Snowflakes are not offered backdated, on purpose: a Snowflake is unique because one worker
 * owns its (time, node) slot and counts within it; a past slot may already hold IDs that the
 * worker minted then, and nothing records which sequence numbers it used, so a worker's past
 * cannot be re-entered without risking a duplicate.
 */
import { typeError } from './assert.js';
import { crockfordHigh20, crockfordLow20, unsafeUlidText } from './encoding/base32-crockford.js';
import { type Instant, instantMs } from './instant.js';
import { defaultPool, RandomPool, type RandomSource } from './random.js';
import { ULID_MAX_TIME } from './ulid.js';
import { MAX_UNIX_TS_MS } from './uuid/constants.js';
import { unsafeV7Into } from './uuid/v7.js';
import type { UuidV7State } from './uuid/v7-state.js';
import { formatUuidV7 } from './uuid/v7-text.js';

/** The pool to draw from: the shared one, or a small one over the caller's source. */
export function poolOf(name: string, random: RandomSource | undefined): RandomPool {
  if (random === undefined) return defaultPool();
  if (typeof random?.fill !== 'function') {
    throw typeError(name, 'a RandomSource (with fill())', random);
  }
  return new RandomPool(random, 16);
}

/**
 * `at` as unix ms (fraction kept) in [min, max + 1): an integer, a `Date` or a finite
 * fractional number whose millisecond is in range. Throws as `instantMs`.
 */
function fractionalMs(name: string, at: unknown, min: number, max: number, what: string) {
  if (typeof at === 'number' && Number.isFinite(at) && !Number.isInteger(at)) {
    instantMs(name, Math.floor(at), min, max, what);
    return at;
  }
  return instantMs(name, at, min, max, what);
}

/** 12 bits of the sub-millisecond fraction of `ms`. */
function fraction12(ms: number): number {
  return Math.floor((ms - Math.floor(ms)) * 4096);
}

/** The fields of the UUIDv7 of unix ms `at` (fraction allowed), its random bits from `pool`. */
function stateAt(at: number, pool: RandomPool): UuidV7State {
  const r = pool.take(8);
  const b = pool.bytes;
  const word = (i: number) =>
    ((b[r + i]! << 24) | (b[r + i + 1]! << 16) | (b[r + i + 2]! << 8) | b[r + i + 3]!) >>> 0;
  return {
    ms: Math.floor(at),
    randA: fraction12(at),
    randBHi: word(0) & 0x3fffffff,
    randBLo: word(4),
  };
}

/**
 * Writes the UUIDv7 of unix ms `at` (fraction allowed, see the module comment) with bytes of
 * `pool` into `out` at `o`. Trusts its arguments: `at` checked, `out` has room.
 */
export function unsafeUuidV7AtInto(at: number, pool: RandomPool, out: Uint8Array, o: number) {
  return unsafeV7Into(stateAt(at, pool), out, o);
}

const UUID_WHAT = 'a UUIDv7 time';

/**
 * A UUIDv7 whose time is `at` (unix ms or a `Date`; a fractional ms keeps its fraction in
 * rand_a, see the module comment), its 62 bits of rand_b random from `random` (default the shared Web Crypto
 * pool). Not monotonic: unique by its random bits. Throws `TypeError` when `at` is neither a
 * number nor a `Date` or `random` has no `fill`, `RangeError` when `at` is outside
 * [0, 2^48 - 1] ms or not finite.
 */
export function uuidv7At(at: Instant, random?: RandomSource): string {
  const ms = fractionalMs('uuidv7At at', at, 0, MAX_UNIX_TS_MS, UUID_WHAT);
  return formatUuidV7(stateAt(ms, poolOf('uuidv7At random', random)));
}

/**
 * A ULID whose time is the millisecond of `at` (unix ms or a `Date`), the sub-millisecond
 * fraction in the top 12 of its 80 random bits and 68 random bits below (see the module
 * comment). Not monotonic: unique by its random bits. Throws as {@link uuidv7At}.
 */
export function ulidAt(at: Instant, random?: RandomSource): string {
  const t = fractionalMs('ulidAt at', at, 0, ULID_MAX_TIME, 'a ULID time');
  const pool = poolOf('ulidAt random', random);
  const o = pool.take(10);
  const b = pool.bytes;
  const top = (fraction12(t) << 8) | (crockfordHigh20(b, o) & 0xff);
  return unsafeUlidText(
    Math.floor(t),
    top,
    crockfordLow20(b, o),
    crockfordHigh20(b, o + 5),
    crockfordLow20(b, o + 5),
  );
}
