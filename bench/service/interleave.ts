/**
 * The rows `npm run bench:service` compares with each other (the bare server, the bare
 * Fastify route, the stack's floor, the service's count=1 and Leaf's routes), measured
 * interleaved: every server runs from the start, and each round gives each target a slice of
 * the duration, in an order that rotates from round to round. Measured one after another,
 * 10 s apiece, the ratios moved by up to 30 % between runs on a shared VM whose speed drifts
 * over a minute (the bare server alone went from 26 to 60 µs a request within a quarter of an
 * hour); interleaved, every target sees the same drift, and the ratios are what they claim
 * to be: figures of one run.
 */
import type { ChildProcess } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import autocannon from 'autocannon';
import { percentiles, type Row, treeCpuSeconds } from './row.js';

/** One target of the interleaved rows. */
export interface Target {
  readonly name: string;
  readonly url: string;
  readonly idsPerRequest: number;
  readonly headers: Record<string, string>;
  /** The server's process, for its CPU time per request. */
  readonly server: ChildProcess;
}

interface Tally {
  requests: number;
  seconds: number;
  serverSeconds: number;
  loadSeconds: number;
  errors: number;
  non2xx: number;
  /** Every response's latency (ms), all slices. */
  times: number[];
}

/** One slice of `t`: autocannon for `seconds`, added to `tally`. */
async function slice(t: Target, seconds: number, connections: number, tally: Tally) {
  const cpu = process.cpuUsage();
  const serverCpu = treeCpuSeconds(t.server.pid);
  const started = performance.now();
  // The instance is an emitter as well as the promise of its result (autocannon's types say
  // only the promise).
  const run = autocannon({ url: t.url, connections, duration: seconds, headers: t.headers });
  (run as unknown as EventEmitter).on(
    'response',
    (_client: unknown, _status: number, _bytes: number, ms: number) => tally.times.push(ms),
  );
  const r = await run;
  tally.serverSeconds += treeCpuSeconds(t.server.pid) - serverCpu;
  const used = process.cpuUsage(cpu);
  tally.loadSeconds += (used.user + used.system) / 1e6;
  tally.seconds += (performance.now() - started) / 1000;
  tally.requests += r.requests.total;
  tally.errors += r.errors + r.timeouts;
  tally.non2xx += r.non2xx;
}

/**
 * The targets' rows: `rounds` rounds of `seconds / rounds` per target after a one-second
 * warm-up each. Requests/s over the slices' own time; p50, p99 and p999 over every response
 * of every slice.
 */
export async function interleaved(
  targets: readonly Target[],
  seconds: number,
  rounds: number,
  connections: number,
): Promise<Row[]> {
  for (const t of targets)
    await autocannon({ url: t.url, connections, duration: 1, headers: t.headers });
  const tallies = targets.map(
    (): Tally => ({
      requests: 0,
      seconds: 0,
      serverSeconds: 0,
      loadSeconds: 0,
      errors: 0,
      non2xx: 0,
      times: [],
    }),
  );
  const each = Math.max(1, Math.round(seconds / rounds));
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < targets.length; k++) {
      const i = (k + r) % targets.length;
      await slice(targets[i] as Target, each, connections, tallies[i] as Tally);
    }
  }
  return targets.map((t, i) => {
    const y = tallies[i] as Tally;
    const reqPerSec = y.requests / y.seconds;
    return {
      name: t.name,
      reqPerSec,
      idsPerSec: reqPerSec * t.idsPerRequest,
      ...percentiles(y.times),
      loadCores: y.loadSeconds / y.seconds,
      serverUsPerReq: (y.serverSeconds * 1e6) / y.requests,
      errors: y.errors,
      non2xx: y.non2xx,
    };
  });
}
