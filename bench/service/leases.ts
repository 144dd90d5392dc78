/**
 * The lease rows of `npm run bench:service` (issue 23): a Snowflake node in this process on a
 * lease taken through the service (`httpLeaseStore`) against one on the store itself, each
 * issuing as fast as it can for the run's duration (both should reach the layout's cap: the
 * lease is off the issue path), and the lease round trip (one renewal) over HTTP against the
 * store's own.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setImmediate } from 'node:timers/promises';
import { createSnowflakeNode, type LeaseStore } from '../../packages/idforge/src/coord/index.js';
import { percentiles, type Row } from './row.js';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** IDs/s of a node on `store` over `seconds`, in batches of 4,096 with a yield between. */
export async function nodeRate(
  name: string,
  store: LeaseStore,
  workers: readonly [number, number],
  seconds: number,
): Promise<Row> {
  const node = await createSnowflakeNode({ store, workerIds: workers, logger: quiet });
  let n = 0;
  let errors = 0;
  try {
    node.batch(4096); // warm-up
    const started = performance.now();
    const until = started + seconds * 1000;
    while (performance.now() < until) {
      try {
        n += node.batch(4096).length;
      } catch {
        errors++;
      }
      // The renewals run on timers: the loop yields to them, as any application's would.
      await setImmediate();
    }
    const rate = n / ((performance.now() - started) / 1000);
    const none = { p50: 0, p99: 0, p999: 0, loadCores: Number.NaN, serverUsPerReq: Number.NaN };
    return { name, reqPerSec: Number.NaN, idsPerSec: rate, ...none, errors, non2xx: 0 };
  } finally {
    await node.close();
  }
}

/** One lease on `store`, renewed one call after another for `seconds`: the round trip's p50/p99. */
export async function renewRoundTrip(
  name: string,
  store: LeaseStore,
  workerId: number,
  seconds: number,
): Promise<Row> {
  const owner = {
    instanceId: randomUUID(),
    host: hostname(),
    pid: process.pid,
    startedAtMs: Date.now(),
  };
  const base = { ttlMs: 10_000, owner, reserveMarkMs: 0 };
  const lease = await store.acquire({ ...base, min: workerId, max: workerId, clockMs: Date.now() });
  if (lease === null) throw new Error(`worker ID ${workerId} is held`);
  const times: number[] = [];
  try {
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      const t = performance.now();
      const now = Date.now();
      await store.renew(lease, {
        ttlMs: 10_000,
        reserveMarkMs: now,
        clockMs: now,
        lastIssuedMs: null,
      });
      times.push(performance.now() - t);
    }
  } finally {
    await store.release(lease, null);
  }
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  return {
    name,
    reqPerSec: 1000 / mean,
    idsPerSec: Number.NaN,
    ...percentiles(times),
    loadCores: Number.NaN,
    serverUsPerReq: Number.NaN,
    errors: 0,
    non2xx: 0,
  };
}
