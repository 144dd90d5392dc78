/**
 * TypeIDs and time: the bounds of a time range for one prefix, and a TypeID minted at a given
 * instant. A TypeID's suffix is its UUIDv7 in base32 with the most significant bits first, so
 * TypeIDs of one prefix sort as their UUIDs do and the core's UUIDv7 bounds and backdated
 * UUIDv7s carry over unchanged (core/bounds.ts, core/minted-at.ts say what each guarantees).
 */
import type { Instant, RandomSource } from '../core/index.js';
import { type IdBounds, uuidv7At, uuidv7Bounds } from '../uuid/index.js';
import { assertTypeIdPrefix, uuidToTypeId } from './typeid.js';

/**
 * The lowest TypeID of `prefix` minted at `from` and the highest at `to` (default `from`), both
 * inclusive: `WHERE id BETWEEN lowest AND highest` on a column of that prefix's TypeIDs (text
 * compared byte by byte, as `COLLATE "C"` or a binary collation does). Throws
 * `TypeError`/`RangeError` on an invalid prefix, and as the core's `uuidv7Bounds` on the range.
 */
export function typeIdBounds(prefix: string, from: Instant, to?: Instant): IdBounds<string> {
  assertTypeIdPrefix('typeIdBounds prefix', prefix);
  const { lowest, highest } = uuidv7Bounds(from, to);
  return { lowest: uuidToTypeId(lowest, prefix), highest: uuidToTypeId(highest, prefix) };
}

/**
 * A TypeID of `prefix` whose UUIDv7 is minted at `at`, as the core's `uuidv7At` does (random
 * bits, not monotonic; a fractional ms keeps its fraction). Throws `TypeError`/`RangeError` on
 * an invalid prefix, and as `uuidv7At` on `at` or `random`.
 */
export function typeIdAt(prefix: string, at: Instant, random?: RandomSource): string {
  assertTypeIdPrefix('typeIdAt prefix', prefix);
  return uuidToTypeId(uuidv7At(at, random), prefix);
}
