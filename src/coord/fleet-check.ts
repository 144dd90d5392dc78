/**
 * The fleet clock check: at start a node compares its clock with the clocks of the other
 * live nodes, as reported with their last renewal, and refuses to start when the skew is
 * larger than a bound. Clocks are compared through the store's clock: each renewal records
 * the node's clock and the store's at the same write, so a peer's offset from the store is
 * `clockMs - storeClockMs`; this node measures its own offset with one round trip. Stores
 * without a readable clock (etcd) are compared by watching for a peer's next renewal.
 */
import { type Clock, ClockSkewError } from '../core/index.js';
import type { LeaseRecord, LeaseStore } from './ports.js';

/** One peer's clock compared with this node's. */
export interface PeerSkew {
  readonly workerId: number;
  readonly instanceId: string;
  /** This node's clock minus the peer's, in ms. */
  readonly skewMs: number;
  /** How uncertain the estimate is, in ms (round trip or polling interval). */
  readonly errorMs: number;
}

/** Options of {@link measureSkew}. */
export interface SkewOptions {
  /** Leave out this instance's own lease. */
  readonly selfInstanceId: string;
  /** For stores without a clock: how long to watch for peers' renewals. */
  readonly observeMs: number;
  /** For stores without a clock: polling interval. Default 50 ms. */
  readonly pollMs?: number;
  /** Async sleep (injected in tests). Default setTimeout. */
  readonly sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Measures this node's clock against every live peer that reported one. */
export async function measureSkew(
  store: LeaseStore,
  clock: Clock,
  options: SkewOptions,
): Promise<PeerSkew[]> {
  const before = clock.nowPrecise();
  const server = await store.serverTimeMs();
  const after = clock.nowPrecise();
  const peers = (await store.list()).filter(
    (r) => r.instanceId !== options.selfInstanceId && r.clockMs !== null,
  );
  if (peers.length === 0) return [];
  if (server !== null) {
    const selfOffset = (before + after) / 2 - server;
    return peers
      .filter((p) => p.storeClockMs !== null)
      .map((p) => ({
        workerId: p.workerId,
        instanceId: p.instanceId,
        skewMs: selfOffset - (p.clockMs! - p.storeClockMs!),
        errorMs: (after - before) / 2,
      }));
  }
  return observeSkew(store, clock, peers, options);
}

/**
 * Without a store clock: a peer's clockMs changes when it renews; the local time at which the
 * change is first seen is later than the renewal by at most the polling interval plus the
 * round trip, so `local - clockMs` over-estimates this node's lead by at most that much.
 */
async function observeSkew(
  store: LeaseStore,
  clock: Clock,
  peers: LeaseRecord[],
  options: SkewOptions,
): Promise<PeerSkew[]> {
  const sleep = options.sleep ?? defaultSleep;
  const pollMs = options.pollMs ?? 50;
  const seen = new Map(peers.map((p) => [p.instanceId, p.clockMs]));
  const out = new Map<string, PeerSkew>();
  const until = clock.now() + options.observeMs;
  let last = clock.nowPrecise();
  while (out.size < seen.size && clock.now() < until) {
    await sleep(pollMs);
    const t0 = clock.nowPrecise();
    const list = await store.list();
    const t1 = clock.nowPrecise();
    for (const r of list) {
      const prev = seen.get(r.instanceId);
      if (prev === undefined || r.clockMs === null || r.clockMs === prev || out.has(r.instanceId))
        continue;
      // The renewal happened after the previous poll started reading and before t1.
      const errorMs = (t1 - last) / 2;
      out.set(r.instanceId, {
        workerId: r.workerId,
        instanceId: r.instanceId,
        skewMs: (last + t1) / 2 - r.clockMs,
        errorMs,
      });
    }
    last = t0;
  }
  return [...out.values()];
}

/**
 * Throws {@link ClockSkewError} for the peer with the largest skew when, even allowing for
 * the measurement's uncertainty, it exceeds `maxSkewMs`.
 */
export function checkSkew(skews: readonly PeerSkew[], maxSkewMs: number): void {
  let worst: PeerSkew | undefined;
  for (const s of skews) {
    if (Math.abs(s.skewMs) - s.errorMs > maxSkewMs) {
      if (worst === undefined || Math.abs(s.skewMs) > Math.abs(worst.skewMs)) worst = s;
    }
  }
  if (worst !== undefined) {
    throw new ClockSkewError(
      Math.round(worst.skewMs),
      maxSkewMs,
      `worker ${worst.workerId} (instance ${worst.instanceId})`,
    );
  }
}
