/**
 * The fleet clock check, run at start before a worker ID is acquired.
 *
 * Where the store has a clock (PostgreSQL `clock_timestamp()`, Redis `TIME`; SQLite and file
 * stores read the host's own clock), that clock is the fleet's reference: the starting node
 * measures its own offset from it with one round trip (`mid - serverTime`, uncertain by half
 * the round trip) and is refused when that offset exceeds the bound, whether or not peers are
 * live, so the node that is off is the one refused whichever starts first. Live peers are
 * judged against the same clock: each renewal records the peer's clock and the store's in one
 * write, so a peer's offset is `clockMs - storeClockMs`; a peer off by more than the bound is
 * reported (a warning), never a reason to refuse this node.
 *
 * Stores without a readable clock (etcd) can only compare nodes with one another: the node
 * watches for each peer's next renewal and is refused when it differs from a peer by more than
 * the bound. There the first node to start is the reference, skewed or not.
 */
import type { Clock } from '../core/index.js';
import { ClockSkewError } from './errors.js';
import type { LeaseRecord, LeaseStore } from './ports.js';

/** One live peer's clock as the check measured it. */
export interface PeerSkew {
  readonly workerId: number;
  readonly instanceId: string;
  readonly host: string;
  /** This node's clock minus the peer's, in ms. */
  readonly skewMs: number;
  /** The peer's clock minus the store's at its last renewal, in ms; null without a store clock. */
  readonly offsetMs: number | null;
  /** How uncertain the estimate is, in ms (round trip or polling interval). */
  readonly errorMs: number;
}

/** What {@link measureSkew} found. */
export interface FleetClock {
  /** 'store': judged by the store's clock; 'peers': the store has none, peers compared. */
  readonly reference: 'store' | 'peers';
  /** How the store is named in messages: `BACKEND store ADDRESS`. */
  readonly store: string;
  /** This node's clock minus the store's, in ms, and its uncertainty; null for 'peers'. */
  readonly self: { readonly offsetMs: number; readonly errorMs: number } | null;
  /** Every live peer that reported a clock (for 'peers': those seen renewing in time). */
  readonly peers: readonly PeerSkew[];
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

/**
 * Measures this node's clock against the store's clock, or, when the store has none, against
 * every live peer's. Rejects with the store's `StoreUnavailableError` when it is down.
 */
export async function measureSkew(
  store: LeaseStore,
  clock: Clock,
  options: SkewOptions,
): Promise<FleetClock> {
  const name = `${store.backend} store ${store.address}`;
  const before = clock.nowPrecise();
  const server = await store.serverTimeMs();
  const after = clock.nowPrecise();
  const peers = (await store.list()).filter(
    (r) => r.instanceId !== options.selfInstanceId && r.clockMs !== null,
  );
  if (server !== null) {
    const self = { offsetMs: (before + after) / 2 - server, errorMs: (after - before) / 2 };
    return {
      reference: 'store',
      store: name,
      self,
      peers: peers
        .filter((p) => p.storeClockMs !== null)
        .map((p) => {
          const offsetMs = p.clockMs! - p.storeClockMs!;
          return { ...who(p), skewMs: self.offsetMs - offsetMs, offsetMs, errorMs: self.errorMs };
        }),
    };
  }
  const observed = peers.length === 0 ? [] : await observeSkew(store, clock, peers, options);
  return { reference: 'peers', store: name, self: null, peers: observed };
}

function who(r: LeaseRecord): Pick<PeerSkew, 'workerId' | 'instanceId' | 'host'> {
  return { workerId: r.workerId, instanceId: r.instanceId, host: r.host };
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
      out.set(r.instanceId, {
        ...who(r),
        skewMs: (last + t1) / 2 - r.clockMs,
        offsetMs: null,
        errorMs: (t1 - last) / 2,
      });
    }
    last = t0;
  }
  return [...out.values()];
}

/**
 * Judges what {@link measureSkew} found. Throws {@link ClockSkewError} when, even allowing for
 * the measurement's uncertainty, this node's clock is off by more than `maxSkewMs`: from the
 * store's clock where the store has one, else from the live peer it differs from most.
 * Returns one warning per live peer whose clock is off the store's by more than `maxSkewMs`
 * (the caller logs them); none for 'peers'.
 */
export function checkSkew(fleet: FleetClock, maxSkewMs: number): string[] {
  const self = fleet.self;
  if (self !== null) {
    if (Math.abs(self.offsetMs) - self.errorMs > maxSkewMs) {
      throw new ClockSkewError(
        self.offsetMs,
        maxSkewMs,
        `the clock of the ${fleet.store} (read with a round trip of ${Math.round(2 * self.errorMs)} ms)`,
        'store',
      );
    }
    return fleet.peers
      .filter((p) => Math.abs(p.offsetMs!) > maxSkewMs)
      .map(
        (p) =>
          `fleet clock check: live node worker ${p.workerId} (instance ${p.instanceId}, host ` +
          `${p.host}) is ${Math.abs(Math.round(p.offsetMs!))} ms ` +
          `${p.offsetMs! > 0 ? 'ahead of' : 'behind'} the clock of the ${fleet.store} at its ` +
          `last renewal, more than maxSkewMs ${maxSkewMs}; this node is within it and starts. Fix ` +
          `time synchronisation (NTP) on ${p.host}.`,
      );
  }
  let worst: PeerSkew | undefined;
  for (const s of fleet.peers) {
    if (Math.abs(s.skewMs) - s.errorMs > maxSkewMs) {
      if (worst === undefined || Math.abs(s.skewMs) > Math.abs(worst.skewMs)) worst = s;
    }
  }
  if (worst !== undefined) {
    throw new ClockSkewError(
      worst.skewMs,
      maxSkewMs,
      `worker ${worst.workerId} (instance ${worst.instanceId}, host ${worst.host})`,
      'peer',
      fleet.store,
    );
  }
  return [];
}
