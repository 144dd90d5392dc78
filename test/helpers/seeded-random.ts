// A seeded generator for tests and the mutation run: the same numbers for the same seed on
// every run (which rows roll back, which mutants are drawn, which keys are written).

/** mulberry32: unsigned 32-bit numbers. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** mulberry32 as numbers in [0, 1), as Math.random gives them. */
export function seededRandom(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}
