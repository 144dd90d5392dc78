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
