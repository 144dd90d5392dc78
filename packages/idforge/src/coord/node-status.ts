/**
 * The readiness and metrics part of a Snowflake node: what it reports (readiness for health
 * checks, counters for metrics) and the waits built on readiness (whenReady, batchAsync).
 * Reads the other parts' state, changes none of it: the fence (node-fence.ts) decides what is
 * admitted, and readiness only says whether a next() now would be.
 */
import type { IdforgeError, Layout } from '../core/index.js';
import { NotReadyError } from '../core/internal.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { sleep } from './sleep.js';
import { ceilToTick } from './watermark.js';

/** What `SnowflakeNode.readiness` reports (for health checks). */
export interface NodeReadiness {
  readonly ready: boolean;
  readonly leaseHeld: boolean;
  readonly pastMark: boolean;
  readonly workerId: number | null;
  /** Why it is not ready; '' when ready. */
  readonly reason: string;
  /** Lease deadline and mark reservation (node clock, unix ms); null without a lease. */
  readonly deadlineMs: number | null;
  readonly reservedMs: number | null;
  readonly markMs: number | null;
}

/** Counters for metrics. */
export interface NodeMetrics {
  readonly workerId: number | null;
  readonly issued: number;
  readonly leasesAcquired: number;
  readonly acquireRefusals: number;
  readonly renewals: number;
  readonly renewalFailures: number;
  readonly leasesLost: number;
  readonly duplicatesDetected: number;
  /** New ticks refused: fenced (deadline, duplicate) or not ready (mark). */
  readonly fencedRefusals: number;
  readonly exhaustionWaits: number;
  readonly rollbackWaits: number;
  /** Worker IDs switched after a large clock step back (`onLargeRollback: 'switch-worker'`). */
  readonly workerSwitches: number;
}

/** What the parts of a node share: whether it was closed, and why it cannot issue now. */
export class NodeStatus {
  closed = false;
  /** The last reason the node could not issue (a loss, a failed start); null once it can. */
  lastError: IdforgeError | null = null;

  /** The error of an issue call while no generator is built. */
  notReady(): IdforgeError {
    if (this.closed) return new NotReadyError('the node is closed');
    return this.lastError ?? new NotReadyError('no lease is held');
  }
}

/** The state {@link readinessOf} reads. */
export interface ReadinessState {
  readonly layout: Layout;
  readonly nowMs: number;
  readonly status: NodeStatus;
  readonly keeper: LeaseKeeper;
  /** Whether a generator is built (a lease activated). */
  readonly issuing: boolean;
  /** The refusal of a worker switch in flight, else null. */
  readonly switching: NotReadyError | null;
  readonly duplicate: boolean;
  /** Whether a tick starting at the given time is past the floor and below the reservation. */
  readonly pastMark: (tickStartMs: number, reservedMs: number) => boolean;
}

/** Whether a next() now would be admitted, and why not. Cheap: no I/O. */
export function readinessOf(r: ReadinessState): NodeReadiness {
  const k = r.keeper;
  const lease = k.lease;
  const tickStart = ceilToTick(r.layout, r.nowMs + 1) - r.layout.unitMs;
  const held = lease !== null && r.issuing && tickStart + r.layout.unitMs <= k.deadlineMs;
  const pastMark = r.pastMark(tickStart, k.reservedMs);
  let reason = '';
  if (r.status.closed) reason = 'closed';
  else if (r.switching !== null) reason = r.switching.message;
  else if (r.duplicate) reason = 'duplicate worker ID claim';
  else if (lease === null || !r.issuing) {
    reason = r.status.lastError?.message ?? 'acquiring a lease';
  } else if (!held) reason = 'lease deadline passed without renewal';
  else if (!pastMark) reason = 'mark reservation not persisted past the clock';
  return {
    ready: reason === '',
    leaseHeld: held,
    pastMark,
    workerId: lease?.workerId ?? null,
    reason,
    deadlineMs: lease === null ? null : k.deadlineMs,
    reservedMs: lease === null ? null : k.reservedMs,
    markMs: lease === null ? null : lease.previousMarkMs,
  };
}

/** What {@link waitReady} polls. */
export interface ReadyWaiter {
  readonly status: NodeStatus;
  readonly now: () => number;
  readonly readiness: () => NodeReadiness;
}

/**
 * Resolves once `w` reports ready; rejects after `timeoutMs` with the reason (the last error,
 * or `NotReadyError`), or at once when closed.
 */
export async function waitReady(w: ReadyWaiter, timeoutMs: number): Promise<void> {
  const until = w.now() + timeoutMs;
  for (;;) {
    const r = w.readiness();
    if (r.ready) return;
    if (w.status.closed || w.now() >= until) {
      throw w.status.lastError ?? new NotReadyError(r.reason);
    }
    await sleep(5);
  }
}

/**
 * `batch()`, and after a refusal waiting can help, `whenReady` and `batch()` again, until
 * `waitMs` has passed on `now`'s clock.
 */
export async function batchWhenReady(
  now: () => number,
  batch: () => bigint[],
  whenReady: (timeoutMs: number) => Promise<void>,
  waitMs: number,
): Promise<bigint[]> {
  const until = now() + waitMs;
  for (;;) {
    try {
      return batch();
    } catch (error) {
      const left = until - now();
      if (!isTransient(error) || left <= 0) throw error;
      try {
        await whenReady(left);
      } catch (waitError) {
        // A wait that merely ran out says less than the refusal that started it (a fenced
        // node: LeaseLostError), so that one is what the caller gets.
        const code = (waitError as { code?: string } | null)?.code;
        throw code === 'IDF_NOT_READY' ? error : waitError;
      }
    }
  }
}

/** Errors after which waiting can help. */
function isTransient(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'IDF_NOT_READY' || code === 'IDF_LEASE_LOST';
}
