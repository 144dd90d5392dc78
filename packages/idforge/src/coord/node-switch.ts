/**
 * The switching part of a Snowflake node: after a clock step back larger than it waits out
 * (`onLargeRollback: 'switch-worker'`; docs/coordination.md, "Large clock steps"), it leases
 * another worker ID whose mark is below the clock (worker-switch.ts), releases the old one
 * with its exact final mark and activates the new one. IDs stay unique; those issued after a
 * switch may sort below those before it.
 *
 * While a switch is in flight the fence (node-fence.ts) refuses every new tick with the
 * switch's NotReadyError (waiting helps). A switch that finds no worker ID, or fails, backs
 * off 8 x retryMs; meanwhile the node refuses as without the switch (ClockRollbackError).
 */
import type { Clock, ClockRollbackError, IdforgeError } from '../core/index.js';
import { NotReadyError } from '../core/internal.js';
import type { BehindMarkError } from './errors.js';
import type { NodeLease } from './node-lease.js';
import type { NodeSettings } from './node-options.js';
import type { NodeStatus } from './node-status.js';
import type { Lease } from './ports.js';
import { leaseBelowMark, type SwitchGrant } from './worker-switch.js';

/** The last switch of worker ID after a large clock step back. */
export interface WorkerSwitch {
  readonly fromWorkerId: number;
  readonly toWorkerId: number;
  /** How far the clock was behind: the last tick issued, or the old worker ID's mark. */
  readonly stepMs: number;
  /** When it happened, on the node's clock (unix ms). */
  readonly atMs: number;
}

/** What a switch asks of the part that holds the node's generator (node-activation.ts). */
export interface SwitchHost {
  /** Stops issuing under the old worker ID, recording what was issued as its mark. */
  retire(): void;
  /** Waits out the mark of `lease`, reserves ahead and builds the generator for it. */
  activate(lease: Lease): Promise<void>;
}

/** Candidates a switch leases at most before it gives up (and the node refuses as before). */
const SWITCH_TRIES = 16;

export class WorkerSwitcher {
  readonly #s: NodeSettings;
  readonly #clock: Clock;
  readonly #status: NodeStatus;
  readonly #lease: NodeLease;
  readonly #host: SwitchHost;
  /** A switch of worker ID in flight, its step, and when a failed one may be tried again. */
  #running: Promise<void> | null = null;
  #stepMs = 0;
  #retryAtMs = Number.NEGATIVE_INFINITY;
  #count = 0;
  #last: WorkerSwitch | null = null;

  constructor(
    s: NodeSettings,
    clock: Clock,
    status: NodeStatus,
    lease: NodeLease,
    host: SwitchHost,
  ) {
    this.#s = s;
    this.#clock = clock;
    this.#status = status;
    this.#lease = lease;
    this.#host = host;
  }

  /** Switches done. */
  get count(): number {
    return this.#count;
  }

  /** The last switch, or null when none. */
  get last(): WorkerSwitch | null {
    return this.#last;
  }

  /** The refusal while a switch is in flight, else null. */
  refusal(): NotReadyError | null {
    return this.#running === null ? null : this.#error();
  }

  /**
   * The error for a clock step back beyond the tolerance: with the switch, it starts one (once;
   * again only after a failed one's back-off) and says so (NotReadyError: waiting helps);
   * without, or while a failed switch backs off, the rollback itself.
   */
  onRollback(error: ClockRollbackError): IdforgeError {
    if (this.#s.onLargeRollback !== 'switch-worker') return error;
    if (this.#running === null) {
      if (this.#clock.now() < this.#retryAtMs) return error;
      this.#stepMs = error.driftMs;
      this.#running = this.#run().finally(() => {
        this.#running = null;
      });
    }
    return this.#error();
  }

  /**
   * A grant too far behind its worker ID's mark to wait (`error`): with the switch, leases
   * another worker ID and activates it instead. Resolves false when the policy is to refuse or
   * no worker ID below the clock is free: the caller then throws `error`.
   */
  async fromMark(error: BehindMarkError): Promise<boolean> {
    if (this.#s.onLargeRollback !== 'switch-worker') return false;
    const grant = await this.#find();
    if (grant === null) return false;
    await this.#switchTo(grant, error.gapMs);
    return true;
  }

  #error(): NotReadyError {
    return new NotReadyError(
      `switching worker ID: the clock stepped back ${Math.round(this.#stepMs)} ms, more ` +
        `than the ${this.#s.toleranceMs} ms waited out`,
    );
  }

  /** A running switch: find a worker ID below the clock, or back off and refuse as before. */
  async #run(): Promise<void> {
    const s = this.#s;
    try {
      const grant = await this.#find();
      if (grant !== null) {
        await this.#switchTo(grant, this.#stepMs);
        return;
      }
      s.logger.warn(
        `idforge: no worker ID in ${s.min}..${s.max} has a mark ${s.switchGuardMs} ms below the ` +
          'clock: refusing until the clock is past the last tick, as without the switch',
      );
    } catch (error) {
      this.#status.lastError = error as IdforgeError;
      s.logger.error(`idforge: switching worker ID failed: ${(error as Error).message}`);
    }
    this.#retryAtMs = this.#clock.now() + s.retryMs * 8;
  }

  /** A free worker ID whose mark is at least switchGuardMs below the clock, leased; or null. */
  #find(): Promise<SwitchGrant | null> {
    const s = this.#s;
    return leaseBelowMark({
      store: s.store,
      clock: this.#clock,
      layout: s.layout,
      min: s.min,
      max: s.max,
      ttlMs: s.ttlMs,
      owner: () => this.#lease.ownerRecord(),
      notAfterMs: this.#clock.now() - s.switchGuardMs,
      maxTries: SWITCH_TRIES,
    });
  }

  /**
   * Moves to the worker ID of `grant`: retires the generator, releases the old worker ID with
   * its exact final mark (kept, if the store is down, as this process's own floor), and
   * activates the new one. `stepMs`: how far behind the clock was, for the log and status.
   */
  async #switchTo(grant: SwitchGrant, stepMs: number): Promise<void> {
    const s = this.#s;
    const from = this.#lease.keeper.lease?.workerId ?? -1;
    this.#host.retire();
    const old = this.#lease.replace(grant);
    await this.#lease.release(old).catch((error: unknown) => {
      s.logger.warn(`idforge: releasing worker ID ${from} after the switch failed: ${error}`);
    });
    this.#count++;
    const to = grant.lease.workerId;
    this.#last = { fromWorkerId: from, toWorkerId: to, stepMs, atMs: this.#clock.now() };
    s.logger.warn(
      `idforge: the clock is ${Math.round(stepMs)} ms behind worker ID ${from}'s last tick or ` +
        `mark: switched to worker ID ${to} (mark below the clock${grant.skipped.length > 0 ? `; skipped ${grant.skipped.join(', ')}` : ''}). ` +
        'IDs stay unique; those issued from now may sort below the ones before the step',
    );
    await this.#host.activate(grant.lease);
  }
}
