/**
 * The lease part of a Snowflake node: the keeper of its current worker-ID lease (a new keeper,
 * under an owner of its own, at each worker switch), what the keeper reports (a loss, a
 * duplicate claim) and the re-acquisition after a loss.
 *
 * The keeper (lease-keeper.ts) renews the lease and the mark reservation together and keeps
 * the two local bounds, deadlineMs and reservedMs; the fence (node-fence.ts) checks them
 * before each new tick. Only the current keeper's events reach the node: one replaced by a
 * switch may still report while it closes, and must not retire the new worker ID's generator.
 */
import { hostname } from 'node:os';
import type { Clock, IdforgeError } from '../core/index.js';
import { Backoff } from '../core/internal.js';
import { DuplicateWorkerError, LeaseLostError } from './errors.js';
import { LeaseKeeper } from './lease-keeper.js';
import type { NodeMarks } from './node-marks.js';
import type { NodeSettings } from './node-options.js';
import type { NodeStatus } from './node-status.js';
import type { Lease, LeaseOwner } from './ports.js';
import type { SwitchGrant } from './worker-switch.js';

/** What the lease part asks of the part that holds the node's generator (node-activation.ts). */
export interface LeaseHost {
  /** Tick start of the last ID issued (unix ms), for the lease record; null before the first. */
  lastIssuedMs(): number | null;
  /** Stops issuing: retires the generator, recording what it issued as this process's mark. */
  retire(): void;
  /** Waits out the mark of `lease`, reserves ahead and builds the generator for it. */
  activate(lease: Lease): Promise<void>;
}

const backgroundSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

export class NodeLease {
  readonly #s: NodeSettings;
  readonly #clock: Clock;
  readonly #status: NodeStatus;
  readonly #marks: NodeMarks;
  readonly #host: LeaseHost;
  readonly #startedAtMs = Date.now();
  #keeper: LeaseKeeper;
  #duplicate: readonly string[] | null = null;
  #reacquiring = false;

  constructor(
    s: NodeSettings,
    clock: Clock,
    status: NodeStatus,
    marks: NodeMarks,
    host: LeaseHost,
  ) {
    this.#s = s;
    this.#clock = clock;
    this.#status = status;
    this.#marks = marks;
    this.#host = host;
    this.#keeper = this.#newKeeper(this.ownerRecord(s.owner.instanceId));
  }

  /** The keeper of the node's current lease. */
  get keeper(): LeaseKeeper {
    return this.#keeper;
  }

  /** The live claimants of the worker ID while a renewal sees another besides us; else null. */
  get duplicate(): readonly string[] | null {
    return this.#duplicate;
  }

  /** Who holds a lease of this node: a new instance ID unless given (each switch takes one). */
  ownerRecord(instanceId?: string): LeaseOwner {
    const o = this.#s.owner;
    return {
      instanceId: instanceId ?? globalThis.crypto.randomUUID(),
      host: o.host ?? hostname(),
      pid: o.pid ?? process.pid,
      startedAtMs: this.#startedAtMs,
    };
  }

  /** Makes the switch's `grant` the current lease; returns the keeper it replaces. */
  replace(grant: SwitchGrant): LeaseKeeper {
    const old = this.#keeper;
    const next = this.#newKeeper(grant.owner);
    next.adopt(grant.lease, grant.sentMs);
    this.#keeper = next;
    return old;
  }

  /**
   * Stops `keeper` (default the current one) and releases its lease with the exact final mark
   * (node-marks.ts). Rejects as the store's release does.
   */
  release(keeper: LeaseKeeper = this.#keeper): Promise<void> {
    return keeper.close((lease) => this.#marks.finalMark(lease));
  }

  /** A keeper for `owner`'s leases whose events reach the node only while it is the current. */
  #newKeeper(owner: LeaseOwner): LeaseKeeper {
    const s = this.#s;
    const keeper: LeaseKeeper = new LeaseKeeper(
      {
        store: s.store,
        clock: this.#clock,
        owner,
        min: s.min,
        max: s.max,
        ttlMs: s.ttlMs,
        guardMs: s.guardMs,
        windowMs: s.markWindowMs,
        renewEveryMs: s.renewEveryMs,
        retryMs: s.retryMs,
      },
      {
        onLost: (lease, duplicate, holders) => {
          if (keeper === this.#keeper) this.#onLost(lease, duplicate, holders);
        },
        onDuplicate: (claimants) => {
          if (keeper === this.#keeper) this.#onDuplicate(claimants);
        },
        lastIssuedMs: () => (keeper === this.#keeper ? this.#host.lastIssuedMs() : null),
        log: (level, message) => s.logger[level](`idforge: ${message}`),
      },
    );
    return keeper;
  }

  #onLost(lease: Lease, duplicate: readonly string[] | null, holders: readonly string[]): void {
    const status = this.#status;
    this.#host.retire();
    if (duplicate !== null) {
      status.lastError = new DuplicateWorkerError(lease.workerId, duplicate);
      this.#s.logger.error(`idforge: DUPLICATE WORKER ID: ${status.lastError.message}`);
    } else {
      const why = holders.length > 0 ? 'taken' : 'expired';
      status.lastError = new LeaseLostError(lease.workerId, this.#s.store.backend, why);
      this.#s.logger.error(`idforge: ${status.lastError.message}`);
    }
    void this.#reacquire();
  }

  #onDuplicate(claimants: readonly string[] | null): void {
    const lease = this.#keeper.lease;
    if (claimants !== null && lease !== null && this.#duplicate === null) {
      const e = new DuplicateWorkerError(lease.workerId, claimants);
      this.#s.logger.error(`idforge: DUPLICATE WORKER ID: ${e.message}`);
      this.#status.lastError = e;
    } else if (claimants === null && this.#duplicate !== null) {
      this.#s.logger.warn('idforge: the other claim on our worker ID has expired; resuming');
      this.#status.lastError = null;
    }
    this.#duplicate = claimants;
  }

  async #reacquire(): Promise<void> {
    if (this.#reacquiring) return;
    this.#reacquiring = true;
    // A store that is down fails each attempt at once: back off (jittered, up to 8 x retryMs)
    // so the process is not kept busy, yet tries again within ~2 s of the store's return.
    const backoff = new Backoff({ initialMs: this.#s.retryMs, maxMs: this.#s.retryMs * 8 });
    try {
      while (!this.#status.closed) {
        // A worker switch that was under way when the lease was lost may replace the keeper
        // while this one acquires or activates: the switch stands, and what this one leased
        // goes back (its generator would carry a worker ID that no renewal keeps).
        const keeper = this.#keeper;
        const superseded = () => this.#status.closed || keeper !== this.#keeper;
        try {
          keeper.reset();
          const lease = await keeper.acquire(this.#s.ttlMs);
          if (superseded()) {
            await this.release(keeper).catch(() => undefined);
            return;
          }
          await this.#host.activate(lease);
          return;
        } catch (error) {
          if (superseded()) {
            await this.release(keeper).catch(() => undefined);
            return;
          }
          this.#status.lastError = error as IdforgeError;
          this.#host.retire();
          await this.release().catch(() => undefined);
          await backgroundSleep(backoff.next());
        }
      }
    } finally {
      this.#reacquiring = false;
    }
  }
}
