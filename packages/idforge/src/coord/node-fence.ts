/**
 * The fence of a Snowflake node: the checks before the first ID of each new tick. The node's
 * generator calls {@link Fence.admit} with the tick's start and issues nothing in a tick it
 * refused (node-options.ts, NodeGenerator), so every ID handed out passed these, here and
 * nowhere else. In this order, the first that fails is the refusal:
 *
 *   held         a lease is held (node-lease.ts) and no worker switch is in flight
 *                (node-switch.ts: NotReadyError while it runs)
 *   clock        the tick is not more than toleranceMs behind the send time of the renewal
 *                that set the deadline: the deadline counts from that time, so a clock gone
 *                back past it would stretch the lease by the step (refused, or switched, like
 *                a rollback)
 *   claim        no other live claimant of the worker ID (DuplicateWorkerError)
 *   deadline     the tick ENDS at or before the lease deadline, the last renewal's send time
 *                + ttl - guard on the node's clock; the store counts the lease from when it
 *                received that renewal, later, so until then no other instance can hold the
 *                worker ID (LeaseLostError 'deadline')
 *   reservation  the tick STARTS before the mark reservation persisted in the store
 *   floor        the tick starts at or after the worker ID's mark found at the grant
 *                (the last two are the marks' own: node-marks.ts)
 *
 * The bounds themselves move only in the keeper (lease-keeper.ts): a renewal that succeeds
 * pushes the deadline and the reservation; a loss or close sets both to -Infinity.
 */
import { ClockRollbackError, type IdforgeError } from '../core/index.js';
import { NotReadyError } from '../core/internal.js';
import { DuplicateWorkerError, LeaseLostError } from './errors.js';
import type { NodeLease } from './node-lease.js';
import type { NodeMarks } from './node-marks.js';
import type { NodeSettings } from './node-options.js';
import type { WorkerSwitcher } from './node-switch.js';

export class Fence {
  readonly #s: NodeSettings;
  readonly #lease: NodeLease;
  readonly #marks: NodeMarks;
  readonly #switcher: WorkerSwitcher;
  #refusals = 0;

  constructor(s: NodeSettings, lease: NodeLease, marks: NodeMarks, switcher: WorkerSwitcher) {
    this.#s = s;
    this.#lease = lease;
    this.#marks = marks;
    this.#switcher = switcher;
  }

  /** New ticks refused (for metrics). */
  get refusals(): number {
    return this.#refusals;
  }

  /** Admits the tick starting at `tickStartMs` (unix ms), or throws why not (counted). */
  admit(tickStartMs: number): void {
    const refusal = this.#check(tickStartMs);
    if (refusal === null) return;
    this.#refusals++;
    throw refusal;
  }

  /** The checks in the order of the top of this file; null admits. */
  #check(tickStartMs: number): IdforgeError | null {
    const s = this.#s;
    const k = this.#lease.keeper;
    const lease = k.lease;
    if (lease === null) return new NotReadyError('no lease is held');
    const switching = this.#switcher.refusal();
    if (switching !== null) return switching;
    const tickEndMs = tickStartMs + s.layout.unitMs;
    const behindMs = k.lastSentMs - tickEndMs;
    if (behindMs > s.toleranceMs) {
      return this.#switcher.onRollback(new ClockRollbackError(behindMs, s.toleranceMs));
    }
    const duplicate = this.#lease.duplicate;
    if (duplicate !== null) return new DuplicateWorkerError(lease.workerId, duplicate);
    if (tickEndMs > k.deadlineMs) {
      return new LeaseLostError(lease.workerId, s.store.backend, 'deadline');
    }
    return this.#marks.fence(tickStartMs, k.reservedMs);
  }
}
