/**
 * Picking a worker ID to switch to after a large clock step back (SnowflakeNode's
 * `onLargeRollback: 'switch-worker'`). The store grants the lowest free worker ID, whatever its
 * mark; a switch needs one whose mark is below the (stepped-back) clock, so that every ID it
 * issues lies above every ID ever issued under that worker ID. So candidates are leased one
 * after another, each under an owner of its own, and held while the next is asked for (the
 * store then grants a different one); the first whose mark is at or below `notAfterMs` is
 * kept, and the others are released at once with their marks untouched (a grant reserves
 * nothing ahead: `reserveMarkMs` 0). The node's current worker ID stays leased throughout, so
 * it is never a candidate.
 */
import type { Clock, Layout } from '../core/index.js';
import type { Lease, LeaseOwner, LeaseStore } from './ports.js';
import { ceilToTick } from './watermark.js';

/** What {@link leaseBelowMark} needs. */
export interface SwitchRequest {
  readonly store: LeaseStore;
  readonly clock: Clock;
  readonly layout: Layout;
  readonly min: number;
  readonly max: number;
  readonly ttlMs: number;
  /** A fresh owner (its own instance ID) for each candidate. */
  readonly owner: () => LeaseOwner;
  /** The first tick of a candidate's mark must start at or before this (unix ms). */
  readonly notAfterMs: number;
  /** Candidates asked for at most. */
  readonly maxTries: number;
}

/** The worker ID switched to: its lease, the owner it was granted to, and when it was asked. */
export interface SwitchGrant {
  readonly lease: Lease;
  readonly owner: LeaseOwner;
  readonly sentMs: number;
  /** Candidates leased and given back because their marks were too high. */
  readonly skipped: readonly number[];
}

/**
 * Leases a worker ID in [min, max] whose mark is at or below `notAfterMs` (or that has none),
 * or resolves null when the range holds none free within `maxTries` candidates. Rejects as the
 * store does (`StoreUnavailableError`), after giving back every candidate it held.
 */
export async function leaseBelowMark(r: SwitchRequest): Promise<SwitchGrant | null> {
  const held: Lease[] = [];
  try {
    for (let i = 0; i < r.maxTries; i++) {
      const owner = r.owner();
      const sentMs = r.clock.now();
      const lease = await r.store.acquire({
        min: r.min,
        max: r.max,
        ttlMs: r.ttlMs,
        owner,
        clockMs: sentMs,
        reserveMarkMs: 0,
      });
      if (lease === null) return null;
      const mark = lease.previousMarkMs;
      if (mark === null || ceilToTick(r.layout, mark) <= r.notAfterMs) {
        return { lease, owner, sentMs, skipped: held.map((l) => l.workerId) };
      }
      held.push(lease);
    }
    return null;
  } finally {
    // Given back with the mark as it was: nothing was issued, nothing reserved.
    await Promise.all(held.map((l) => r.store.release(l, null).catch(() => undefined)));
  }
}
