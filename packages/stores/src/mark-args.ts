/**
 * Argument checks shared by the durable mark stores (sqlite/mark-store.ts,
 * postgres/mark-store.ts): misuse is a `RangeError` at the edge, before any I/O.
 */

import { assertTag, MAX_SEQUENCE_VALUE } from 'idforge/sequences';

/** A mark value: a bigint in [0, 2^63 - 1] (a signed 64-bit column). */
export function assertMark(value: bigint): bigint {
  if (typeof value !== 'bigint' || value < 0n || value > MAX_SEQUENCE_VALUE) {
    throw new RangeError(`mark: expected a bigint in [0, 2^63 - 1], got ${String(value)}`);
  }
  return value;
}

/** A mark's tag: the tag of the sequence it guards (sequences/tag.ts). */
export function assertMarkTag(tag: string): string {
  return assertTag(tag);
}
