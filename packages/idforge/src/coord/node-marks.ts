/**
 * The marks part of a Snowflake node (clock high-water marks, see watermark.ts): the mark to
 * wait out under a new lease, the floor issuing starts at, what this process issued itself
 * under each worker ID it held, and the exact mark to leave at a graceful release.
 *
 * Owns two of the fence's checks (node-fence.ts runs them, after the lease's, before the first
 * ID of each new tick):
 *
 *   reservation  the tick starts before the mark reservation the keeper persisted ahead of the
 *                clock: a crash then leaves a stored mark above every ID issued
 *   floor        the tick starts at or after the worker ID's mark found at the grant: no ID
 *                below one an earlier holder may have issued
 */
import type { IdforgeError, Layout } from '../core/index.js';
import { NotReadyError } from '../core/internal.js';
import type { Lease } from './ports.js';
import { ceilToTick, markAfterTick } from './watermark.js';

export class NodeMarks {
  readonly #layout: Layout;
  /** Exclusive marks this process issued up to, per worker ID: a floor the store cannot lower. */
  readonly #own = new Map<number, number>();
  /** The first tick start issuing may use under the current lease. */
  #floorMs = Number.NEGATIVE_INFINITY;

  constructor(layout: Layout) {
    this.#layout = layout;
  }

  /**
   * The mark to wait out before issuing under `lease`. A store that lost data (Redis without
   * persistence) may return no mark or an old one: what this process issued itself under the
   * ID still counts.
   */
  markOf(lease: Lease): number | null {
    const own = this.#own.get(lease.workerId);
    return own === undefined ? lease.previousMarkMs : Math.max(own, lease.previousMarkMs ?? own);
  }

  /** Issuing under the new lease starts at the first tick at or after `mark` (null: none). */
  enter(mark: number | null): void {
    this.#floorMs = mark === null ? Number.NEGATIVE_INFINITY : ceilToTick(this.#layout, mark);
  }

  /** Records that this process issued under `workerId` up to the tick at `lastIssuedMs`. */
  record(workerId: number, lastIssuedMs: number): void {
    const end = markAfterTick(this.#layout, lastIssuedMs);
    this.#own.set(workerId, Math.max(end, this.#own.get(workerId) ?? end));
  }

  /**
   * The exact mark to leave at a graceful release of `lease`: the end of the last tick this
   * process issued under its worker ID, or, when it issued nothing, the mark it found at the
   * grant. Never the reservation written ahead of the clock: that one only protects against a
   * crash, and left behind at a clean stop it made the next start wait for it, or fail with
   * BehindMarkError past markToleranceMs (issue 19). Call after the generator was retired
   * (its last tick {@link record}ed).
   */
  finalMark(lease: Lease): number {
    const own = this.#own.get(lease.workerId) ?? Number.NEGATIVE_INFINITY;
    const found = lease.previousMarkMs ?? Number.NEGATIVE_INFINITY;
    const mark = Math.max(own, found);
    // Nothing was ever issued under this worker ID: 0 (the epoch of unix time) bounds nothing.
    return mark === Number.NEGATIVE_INFINITY ? 0 : mark;
  }

  /** Whether a tick starting at `tickStartMs` lies at or past the floor and below `reservedMs`. */
  pastMark(tickStartMs: number, reservedMs: number): boolean {
    return tickStartMs >= this.#floorMs && tickStartMs < reservedMs;
  }

  /** The fence's reservation and floor checks (see the top of this file); null admits. */
  fence(tickStartMs: number, reservedMs: number): IdforgeError | null {
    if (tickStartMs >= reservedMs) {
      return new NotReadyError(
        `the high-water mark reservation (${new Date(reservedMs).toISOString()}) is not ` +
          'yet persisted past the clock: the store is slow',
      );
    }
    if (tickStartMs < this.#floorMs) {
      return new NotReadyError('the clock is not yet past the high-water mark');
    }
    return null;
  }
}
