/**
 * Where the values of a backfill come from: injected into `runBackfill` (backfill.ts), so the
 * orchestration knows nothing of schemes. Each source says the column type its values need
 * (which may depend on the key: a public ID of a 64-bit key is shorter than one of a 128-bit
 * key) and makes one value per row.
 */
import { type RandomSource, UuidV7Generator } from '../core/index.js';
import { defaultPool, RandomPool, unsafeUuidV7AtInto } from '../core/internal.js';
import { ulidAt } from '../ulid/index.js';
import { uuidv4Bytes } from '../uuid/index.js';
import type { BackfillColumnSpec, BackfillKey, BackfillValue } from './backfill-ports.js';

/** What kind of key the table has, as the backfill found it. */
export type BackfillKeyKind = 'integer' | 'bytes16';

/** The values of one backfill. Holds the state of its generator; use one per backfill. */
export interface BackfillValues {
  /** For reports: "uuidv7", "uuidv4", "public", "ulid". */
  readonly scheme: string;
  /**
   * The values are minted at each row's own time (`runBackfill`'s `atColumn`), which `value`
   * then receives. Absent or false: `value` takes the key alone.
   */
  readonly backdated?: boolean;
  /** The column type the values need for a table whose key is of `keyKind`. */
  column(keyKind: BackfillKeyKind): BackfillColumnSpec;
  /** A value for the row of `key`; `atMs` is the row's time (unix ms) when `backdated`. */
  value(key: BackfillKey, atMs?: number): BackfillValue;
}

const BYTES16: BackfillColumnSpec = { kind: 'bytes16' };

/**
 * Random-and-time UUIDv7 values, 16 bytes each, strictly increasing within the run (the
 * generator of the core). The time part is the time of the backfill, not of the row's
 * creation: a UUIDv7 public ID of an old row says when the backfill ran.
 */
export function uuidv7Values(generator: UuidV7Generator = new UuidV7Generator()): BackfillValues {
  return { scheme: 'uuidv7', column: () => BYTES16, value: () => generator.nextBytes() };
}

/** `atMs` when it is a time a UUIDv7 or ULID holds (fraction allowed); RangeError otherwise. */
function rowTime(scheme: string, atMs: number | undefined): number {
  if (typeof atMs === 'number' && atMs >= 0 && atMs < 281474976710656) return atMs;
  throw new RangeError(
    `${scheme} values: expected the row's time in unix ms from 0 to 2^48 - 1 (1970 to 10889), got ${atMs}`,
  );
}

/**
 * UUIDv7 values minted at each row's own time (`--at-column`), 16 bytes each, so that the
 * column sorts the rows as their timestamps do: the core's `uuidv7At` (the sub-millisecond
 * fraction in rand_a, 62 random bits), not monotonic. Rows of one instant get distinct values
 * in random order.
 */
export function uuidv7AtValues(random?: RandomSource): BackfillValues {
  const pool = random === undefined ? defaultPool() : new RandomPool(random);
  return {
    scheme: 'uuidv7',
    backdated: true,
    column: () => BYTES16,
    value: (_key, atMs) => unsafeUuidV7AtInto(rowTime('uuidv7', atMs), pool, new Uint8Array(16), 0),
  };
}

const ULID_TEXT: BackfillColumnSpec = { kind: 'text', length: 26 };

/**
 * ULID values minted at each row's own time (`--at-column`), as 26-character text (case-
 * sensitive column), by the core's `ulidAt`: the sub-millisecond fraction in the top 12 bits of
 * the randomness, 68 random bits. Not monotonic.
 */
export function ulidAtValues(random?: RandomSource): BackfillValues {
  return {
    scheme: 'ulid',
    backdated: true,
    column: () => ULID_TEXT,
    value: (_key, atMs) => ulidAt(rowTime('ulid', atMs), random),
  };
}

/** Random UUIDv4 values (122 random bits), 16 bytes each: they say nothing about the row. */
export function uuidv4Values(): BackfillValues {
  return { scheme: 'uuidv4', column: () => BYTES16, value: () => uuidv4Bytes() };
}

/**
 * The opaque public ID of each row's own key (idforge/public's `PublicIds.encode`, passed in
 * with its keys and prefix bound): deterministic, so the column repeats what the application
 * can compute. Its length is measured on a zero key of the table's kind (a public ID has a
 * fixed length per input size); the column is text of that length. Throws `TypeError` when
 * `encode` is not a function.
 */
export function publicIdValues(encode: (id: BackfillKey) => string): BackfillValues {
  if (typeof encode !== 'function') {
    throw new TypeError(`encode: expected a function, got ${typeof encode}`);
  }
  return {
    scheme: 'public',
    column: (keyKind) => ({
      kind: 'text',
      length: encode(keyKind === 'integer' ? 0n : new Uint8Array(16)).length,
    }),
    value: (key) => encode(key),
  };
}
