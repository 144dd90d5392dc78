// Number formatting and statistics shared by the timing loop and the report (a leaf: it
// imports nothing, so speed.ts and report.ts need not import each other).

/** Nanoseconds per operation: one decimal below 100 ns, whole numbers above. */
export function ns(value: number): string {
  if (!Number.isFinite(value)) return '—';
  return value < 100 ? value.toFixed(1) : value.toFixed(0);
}

/** The median of a non-empty list. */
export function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
