/**
 * The state of a UUIDv7 generator, in a file of its own so that v7.ts (the steps) and
 * v7-text.ts (the cached text) both depend on it and not on each other.
 */

/** The fields of the last UUIDv7 issued; the ID is a function of these four numbers. */
export interface UuidV7State {
  /** unix_ts_ms (48 bits); `-Infinity` before the first ID. */
  ms: number;
  /** rand_a (12 bits). */
  randA: number;
  /** High 30 bits of rand_b. */
  randBHi: number;
  /** Low 32 bits of rand_b. */
  randBLo: number;
}
