/**
 * Order inversions of a load: how many keys sorted below a key generated before them, that is
 * how many inserts did not land at the right edge of a B-tree (or of an LSM tree's newest key
 * range). Counted against the largest key so far, in one pass and constant memory. Keys compare
 * as the engines compare them: integers by value, 16 bytes and UUID text bytewise (memcmp; the
 * canonical lower-case text sorts as its bytes do).
 */

/** Counts keys below the running maximum. Holds state: one per load. */
export class InversionCounter {
  #max: bigint | Uint8Array | string | undefined = undefined;
  #count = 0;

  /** Adds the keys of one batch, in generation order. */
  addAll(keys: readonly (bigint | Uint8Array | string)[]): void {
    for (const key of keys) this.add(key);
  }

  add(key: bigint | Uint8Array | string): void {
    const max = this.#max;
    if (max === undefined || compareKeys(key, max) > 0) this.#max = key;
    else this.#count++;
  }

  get count(): number {
    return this.#count;
  }
}

/** -1, 0 or 1 as `a` sorts before, with or after `b` (both of one kind). */
export function compareKeys(
  a: bigint | Uint8Array | string,
  b: bigint | Uint8Array | string,
): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    }
    return a.length - b.length < 0 ? -1 : a.length > b.length ? 1 : 0;
  }
  throw new TypeError(
    `compareKeys: expected two keys of one kind, got ${typeof a} and ${typeof b}`,
  );
}
