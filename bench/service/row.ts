import { readdirSync, readFileSync } from 'node:fs';

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
  /**
   * CPU time the server's processes (the one, or a primary and its forks) spent per request,
   * in µs (user and system, from /proc); NaN where not measured. What a request costs the
   * server whether the server or the load generator sets the rate.
   */
  readonly serverUsPerReq: number;
  readonly errors: number;
  readonly non2xx: number;
}

/** p50, p99 and p999 of `times` (ms, any order; sorted in place), 0 for none. */
export function percentiles(times: number[]): Pick<Row, 'p50' | 'p99' | 'p999'> {
  times.sort((a, b) => a - b);
  const pick = (q: number) => times[Math.floor(q * (times.length - 1))] ?? 0;
  return { p50: pick(0.5), p99: pick(0.99), p999: pick(0.999) };
}

/** CPU seconds (user + system) of `pid` and its descendants, from /proc; NaN elsewhere. */
export function treeCpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 per second here).
    let s = (Number(f[11]) + Number(f[12])) / 100;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const kids = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      for (const kid of kids === '' ? [] : kids.split(' ')) s += treeCpuSeconds(Number(kid));
    }
    return s;
  } catch {
    return Number.NaN;
  }
}
