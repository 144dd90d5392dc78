/** One row of `npm run bench:service`'s table (main.ts prints it, leases.ts makes some). */
export interface Row {
  readonly name: string;
  readonly reqPerSec: number;
  readonly idsPerSec: number;
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  /** Cores the load generator (autocannon, in this process) used meanwhile; NaN when none. */
  readonly loadCores: number;
  readonly errors: number;
  readonly non2xx: number;
}

/** p50, p99 and p999 of `times` (ms, any order; sorted in place), 0 for none. */
export function percentiles(times: number[]): Pick<Row, 'p50' | 'p99' | 'p999'> {
  times.sort((a, b) => a - b);
  const pick = (q: number) => times[Math.floor(q * (times.length - 1))] ?? 0;
  return { p50: pick(0.5), p99: pick(0.99), p999: pick(0.999) };
}
