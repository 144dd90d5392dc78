/**
 * Argument checks shared by the durable mark stores (sqlite/mark-store.ts,
 * postgres/mark-store.ts): misuse is a `RangeError` at the edge, before any I/O.
 */

const MAX = (1n << 63n) - 1n;

/** A mark value: a bigint in [0, 2^63 - 1] (a signed 64-bit column). */
export function assertMark(value: bigint): bigint {
  if (typeof value !== 'bigint' || value < 0n || value > MAX) {
    throw new RangeError(`mark: expected a bigint in [0, 2^63 - 1], got ${String(value)}`);
  }
  return value;
}

/** A mark key: 1 to 200 characters. */
export function assertMarkKey(key: string): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > 200) {
    throw new RangeError(`mark key: expected 1 to 200 characters, got "${String(key)}"`);
  }
  return key;
}
