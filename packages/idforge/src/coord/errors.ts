/**
 * Operational errors of the coordination layer (worker-ID leases, clock high-water marks),
 * exported by idforge/coord. Part of the one catalogue: the codes are in the core's
 * `errors.ts`, every one documented in `docs/errors.md`. The store failure every port shares
 * (`StoreUnavailableError`) and `NotReadyError` (also thrown by idforge/hlc) are in the core's
 * `errors-shared.ts`.
 */
import { IdforgeError } from '../core/index.js';

/** Every worker ID in the range is held by a live lease, and the wait for one ran out. */
export class NoFreeWorkerError extends IdforgeError {
  readonly backend: string;
  readonly min: number;
  readonly max: number;
  readonly waitedMs: number;

  constructor(backend: string, min: number, max: number, waitedMs: number) {
    super(
      'IDF_NO_FREE_WORKER',
      `no free worker ID in ${min}..${max} on the ${backend} store after waiting ${waitedMs} ms: ` +
        `all ${max - min + 1} are held by live leases. Stop a node, widen the range, or wait ` +
        'for the lease of a crashed node to expire (its TTL); `idforge leases --store URL` ' +
        'lists the holders.',
    );
    this.backend = backend;
    this.min = min;
    this.max = max;
    this.waitedMs = waitedMs;
  }
}

/**
 * The node stopped issuing because it can no longer prove it holds its worker ID: its local
 * lease deadline passed without a successful renewal (the store is slow or down, or the
 * process was paused), the lease expired in the store before a renewal reached it (nobody
 * holds it now), or the store says another instance holds the ID now. It resumes by itself
 * once it holds a valid lease again (possibly under another worker ID).
 */
export class LeaseLostError extends IdforgeError {
  readonly workerId: number;
  readonly backend: string;
  /**
   * 'deadline' (no renewal in time), 'expired' (the store let the lease expire; no other
   * holder) or 'taken' (the store has another holder).
   */
  readonly reason: 'deadline' | 'expired' | 'taken';

  constructor(workerId: number, backend: string, reason: 'deadline' | 'expired' | 'taken') {
    const what =
      reason === 'deadline'
        ? 'its lease deadline passed without a successful renewal'
        : reason === 'expired'
          ? 'its lease expired in the store before a renewal reached it (no other instance holds it)'
          : 'the store reports that another instance holds it now';
    super(
      'IDF_LEASE_LOST',
      `worker ID ${workerId} is fenced: ${what} (${backend} store). No ID is issued until the ` +
        'node holds a valid lease again; check the store and the process (paused, overloaded). ' +
        'Retry after node.whenReady().',
    );
    this.workerId = workerId;
    this.backend = backend;
    this.reason = reason;
  }
}

/**
 * The clock is behind the worker ID's stored high-water mark by more than the tolerance the
 * node waits out: issuing now could repeat IDs issued before a restart.
 */
export class BehindMarkError extends IdforgeError {
  readonly workerId: number;
  readonly markMs: number;
  readonly nowMs: number;
  readonly gapMs: number;
  readonly toleranceMs: number;

  constructor(workerId: number, markMs: number, nowMs: number, toleranceMs: number) {
    const gapMs = markMs - nowMs;
    super(
      'IDF_BEHIND_MARK',
      `the clock (${new Date(nowMs).toISOString()}) is ${gapMs} ms behind the high-water mark ` +
        `${new Date(markMs).toISOString()} of worker ID ${workerId}, more than the tolerance of ` +
        `${toleranceMs} ms: IDs up to the mark may already exist. Fix the clock (NTP) and ` +
        'restart, or raise markToleranceMs to wait that long.',
    );
    this.workerId = workerId;
    this.markMs = markMs;
    this.nowMs = nowMs;
    this.gapMs = gapMs;
    this.toleranceMs = toleranceMs;
  }
}

/**
 * At start, the node's clock differs by more than the configured bound from the store's clock
 * (`reference: 'store'`, where the store has one) or, on a store without a clock, from a live
 * peer's (`reference: 'peer'`).
 */
export class ClockSkewError extends IdforgeError {
  /** This node's clock minus the reference's, in ms (positive: this node is ahead). */
  readonly skewMs: number;
  readonly boundMs: number;
  /** What the clock was compared with: the store's clock, or a live peer's. */
  readonly reference: 'store' | 'peer';
  /** That clock as the message names it (the store, or the peer's worker, instance and host). */
  readonly against: string;
  /** The peer compared with (its worker ID and instance ID); null when it was the store. */
  readonly peer: string | null;

  /**
   * `against` names the clock compared with; for `reference: 'peer'`, `store` names the store
   * that has no clock (for the message).
   */
  constructor(
    skewMs: number,
    boundMs: number,
    against: string,
    reference: 'store' | 'peer' = 'peer',
    store = 'the store',
  ) {
    const off = `this node's clock is ${Math.abs(Math.round(skewMs))} ms ${skewMs > 0 ? 'ahead of' : 'behind'}`;
    super(
      'IDF_CLOCK_SKEW',
      reference === 'store'
        ? `${off} ${against}, more than the bound of ${boundMs} ms; refusing to start. The ` +
            "store's clock is the fleet's reference: fix time synchronisation (NTP) on this " +
            "host (or on the store's host, if that is the one that is off), or raise maxSkewMs."
        : `${off} live node ${against}, more than the bound of ${boundMs} ms; refusing to ` +
            `start. The ${store} has no clock to read, so this node was compared with its live ` +
            'peers (watching their renewals) and the first node to start is the reference: fix ' +
            'time synchronisation (NTP) on the host that is off (if it is the peer, restart it ' +
            'after the fix), or raise maxSkewMs.',
    );
    this.skewMs = skewMs;
    this.boundMs = boundMs;
    this.reference = reference;
    this.against = against;
    this.peer = reference === 'peer' ? against : null;
  }
}

/** Two live instances claim the same worker ID: both stop issuing. */
export class DuplicateWorkerError extends IdforgeError {
  readonly workerId: number;
  readonly instances: readonly string[];

  constructor(workerId: number, instances: readonly string[]) {
    super(
      'IDF_DUPLICATE_WORKER',
      `worker ID ${workerId} is claimed by ${instances.length} live instances ` +
        `(${instances.join(', ')}): their IDs may collide, so this node stopped issuing. Find ` +
        'who wrote the lease store by hand or shares the wrong configuration, and restart them.',
    );
    this.workerId = workerId;
    this.instances = instances;
  }
}
