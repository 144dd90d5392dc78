/**
 * A Snowflake node: the core generator, a worker-ID lease and the clock high-water mark.
 *
 *   createSnowflakeNode()  acquire a free worker ID ─▶ fleet clock check ─▶ wait until the
 *                          clock is past the ID's mark (or fail) ─▶ ready
 *   node.next()            synchronous; each new tick is admitted only if it ends before the
 *                          lease deadline and starts before the persisted mark reservation
 *   background             renew lease + reservation together; on loss stop, re-acquire
 *   node.close()           release the lease and set the exact final mark
 */
import { hostname } from 'node:os';
import {
  type Clock,
  ClockRollbackError,
  type IdforgeError,
  type Layout,
  type SnowflakeGeneOptions,
  SnowflakeGenerator,
} from '../core/index.js';
import { Backoff, defaultClock, NotReadyError, StoreUnavailableError } from '../core/internal.js';
import { BehindMarkError, DuplicateWorkerError, LeaseLostError } from './errors.js';
import { checkSkew, measureSkew } from './fleet-check.js';
import { LeaseKeeper } from './lease-keeper.js';
import {
  type NodeGenerator,
  type NodeSettings,
  resolveNodeOptions,
  type SnowflakeNodeOptions,
} from './node-options.js';
import type { Lease, LeaseOwner } from './ports.js';
import { sleep } from './sleep.js';
import { ceilToTick, markAfterTick, waitForMark } from './watermark.js';
import { leaseBelowMark, type SwitchGrant } from './worker-switch.js';

export type { NodeLogger, SnowflakeNodeOptions } from './node-options.js';

/** What {@link SnowflakeNode.readiness} reports (for health checks). */
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

/** The last switch of worker ID after a large clock step back. */
export interface WorkerSwitch {
  readonly fromWorkerId: number;
  readonly toWorkerId: number;
  /** How far the clock was behind: the last tick issued, or the old worker ID's mark. */
  readonly stepMs: number;
  /** When it happened, on the node's clock (unix ms). */
  readonly atMs: number;
}

/** Candidates a switch leases at most before it gives up (and the node refuses as before). */
const SWITCH_TRIES = 16;

const backgroundSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref?.());

/**
 * Acquires a worker ID from `options.store` and returns a node that issues Snowflake IDs
 * under it. Rejects with `StoreUnavailableError` (store down: backend and address named),
 * `NoFreeWorkerError` (range full after `acquireTimeoutMs`), `ClockSkewError` (the fleet
 * check) or `BehindMarkError` (the clock is behind the worker ID's mark by more than
 * `markToleranceMs`); in the last two cases the lease is released again.
 */
export async function createSnowflakeNode(options: SnowflakeNodeOptions): Promise<SnowflakeNode> {
  const node = new SnowflakeNode(resolveNodeOptions(options));
  await node._start();
  return node;
}

/**
 * Issues IDs under a leased worker ID; see {@link createSnowflakeNode}. Holds state and
 * background timers (unref'd); call close() on shutdown. One instance per process and
 * worker ID; synchronous issue path, safe within one JavaScript thread.
 */
export class SnowflakeNode {
  readonly #s: NodeSettings;
  #keeper: LeaseKeeper;
  readonly #layout: Layout;
  readonly #clock: Clock;
  #gen: NodeGenerator | null = null;
  #floorMs = Number.NEGATIVE_INFINITY;
  #duplicate: readonly string[] | null = null;
  #lastError: IdforgeError | null = null;
  #closed = false;
  #reacquiring = false;
  #issuedBefore = 0;
  #fencedRefusals = 0;
  /** Exclusive marks this process issued up to, per worker ID: a floor the store cannot lower. */
  readonly #ownMarks = new Map<number, number>();
  readonly #startedAtMs = Date.now();
  /** A switch of worker ID in flight, its step, and when a failed one may be tried again. */
  #switching: Promise<void> | null = null;
  #switchStepMs = 0;
  #switchRetryAtMs = Number.NEGATIVE_INFINITY;
  #switches = 0;
  #lastSwitch: WorkerSwitch | null = null;

  /** @internal Use {@link createSnowflakeNode}. */
  constructor(settings: NodeSettings) {
    this.#s = settings;
    this.#layout = settings.layout;
    this.#clock = settings.clock ?? defaultClock();
    this.#keeper = this.#newKeeper(this.#ownerRecord(settings.owner.instanceId));
    settings.signal?.addEventListener('abort', () => void this.close(), { once: true });
  }

  /** Who holds a lease of this node: a new instance ID unless given (each switch takes one). */
  #ownerRecord(instanceId?: string): LeaseOwner {
    const o = this.#s.owner;
    return {
      instanceId: instanceId ?? globalThis.crypto.randomUUID(),
      host: o.host ?? hostname(),
      pid: o.pid ?? process.pid,
      startedAtMs: this.#startedAtMs,
    };
  }

  /** A keeper for `owner`'s leases whose events reach the node only while it is the node's. */
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
        lastIssuedMs: () => (keeper === this.#keeper ? this.#lastIssuedMs() : null),
        log: (level, message) => s.logger[level](`idforge: ${message}`),
      },
    );
    return keeper;
  }

  /** @internal */
  async _start(): Promise<void> {
    const s = this.#s;
    this.#stopIfAborted();
    // acquireTimeoutMs bounds the whole start: a full range and a store that is down alike.
    const until = this.#clock.now() + s.acquireTimeoutMs;
    // The fleet check runs before acquiring, so a refused node leaves no trace in the store.
    if (s.maxSkewMs !== Number.POSITIVE_INFINITY) {
      const backoff = new Backoff({ initialMs: s.retryMs, maxMs: s.retryMs * 8 });
      for (;;) {
        try {
          const fleet = await measureSkew(s.store, this.#clock, {
            selfInstanceId: '',
            observeMs: s.renewEveryMs + 500,
          });
          // Peers off the store's clock are reported; only this node's own offset refuses it.
          for (const warning of checkSkew(fleet, s.maxSkewMs)) s.logger.warn(`idforge: ${warning}`);
          break;
        } catch (error) {
          const left = until - this.#clock.now();
          if (!(error instanceof StoreUnavailableError) || left <= 0) throw error;
          await sleep(Math.min(backoff.next(), left));
        }
      }
    }
    this.#stopIfAborted();
    const lease = await this.#keeper.acquire(Math.max(0, until - this.#clock.now()), s.signal);
    try {
      this.#stopIfAborted();
      await this.#activate(lease);
      this.#stopIfAborted();
    } catch (error) {
      this.#retire();
      await this.#keeper.close((l) => this.#finalMark(l)).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Waits out the mark (bounded), then builds the generator for the leased worker ID. Throws
   * NotReadyError when a worker switch replaced the keeper meanwhile (the switch stands).
   */
  async #activate(lease: Lease): Promise<void> {
    const s = this.#s;
    const keeper = this.#keeper;
    keeper.start();
    // A store that lost data (Redis without persistence) may return no mark or an old one:
    // what this process issued itself under the ID still counts.
    const own = this.#ownMarks.get(lease.workerId);
    const mark =
      own === undefined ? lease.previousMarkMs : Math.max(own, lease.previousMarkMs ?? own);
    let wait: number;
    try {
      wait = waitForMark(this.#layout, lease.workerId, mark, this.#clock.now(), s.markToleranceMs);
    } catch (error) {
      // Too far behind the mark to wait: with the switch, another worker ID instead.
      if (!(error instanceof BehindMarkError) || s.onLargeRollback !== 'switch-worker') throw error;
      const grant = await this.#findSwitch();
      if (grant === null) throw error;
      await this.#switchTo(grant, error.gapMs);
      return;
    }
    this.#floorMs = mark === null ? Number.NEGATIVE_INFINITY : ceilToTick(this.#layout, mark);
    const where = `${s.store.backend} store ${s.store.address}`;
    if (wait > 0) {
      s.logger.warn(
        `idforge: worker ID ${lease.workerId}: the clock is ${wait} ms behind its high-water ` +
          'mark; waiting before issuing',
      );
      await sleep(wait, s.signal);
      this.#stopIfAborted();
    }
    // The grant reserved nothing ahead (a node refused here must not push the mark up for the
    // next holder): reserve now, before the first ID.
    if (!(await keeper.renewNow())) throw new NotReadyError('the lease was lost at start');
    if (keeper !== this.#keeper) throw new NotReadyError('a worker switch took over meanwhile');
    const init = {
      layout: this.#layout,
      fields: { ...s.fields, [s.workerField]: lease.workerId },
      clock: this.#clock,
      toleranceMs: s.toleranceMs,
      warnYears: s.warnYears,
      onWarning: (m: string) => s.logger.warn(m),
      admit: (tickStartMs: number) => this.#admit(tickStartMs),
    };
    this.#gen = s.generator === undefined ? new SnowflakeGenerator(init) : s.generator(init);
    this.#lastError = null;
    s.logger.info(
      `idforge: worker ID ${lease.workerId} (${s.workerField} of layout "${this.#layout.name}") ` +
        `leased from ${where} as instance ${lease.instanceId}, range ${s.min}..${s.max}`,
    );
  }

  /**
   * Throws when the start must end: the abort signal fired (its reason, an AbortError by
   * default) or close() was called meanwhile. The caller releases what was leased.
   */
  #stopIfAborted(): void {
    this.#s.signal?.throwIfAborted();
    if (this.#closed) throw new NotReadyError('the node was closed during its start');
  }

  #admit(tickStartMs: number): void {
    const k = this.#keeper;
    const lease = k.lease;
    if (lease === null) throw this.#refuse(new NotReadyError('no lease is held'));
    if (this.#switching !== null) throw this.#refuse(this.#switchingError());
    // The deadline counts from the last renewal's send time: a clock gone back past it since
    // would stretch the lease by the step. Refused (or switched) like a rollback.
    const behindMs = k.lastSentMs - (tickStartMs + this.#layout.unitMs);
    if (behindMs > this.#s.toleranceMs) {
      throw this.#refuse(
        this.#largeRollback(new ClockRollbackError(behindMs, this.#s.toleranceMs)),
      );
    }
    if (this.#duplicate !== null) {
      throw this.#refuse(new DuplicateWorkerError(lease.workerId, this.#duplicate));
    }
    if (tickStartMs + this.#layout.unitMs > k.deadlineMs) {
      throw this.#refuse(new LeaseLostError(lease.workerId, this.#s.store.backend, 'deadline'));
    }
    if (tickStartMs >= k.reservedMs) {
      throw this.#refuse(
        new NotReadyError(
          `the high-water mark reservation (${new Date(k.reservedMs).toISOString()}) is not ` +
            'yet persisted past the clock: the store is slow',
        ),
      );
    }
    if (tickStartMs < this.#floorMs) {
      throw this.#refuse(new NotReadyError('the clock is not yet past the high-water mark'));
    }
  }

  #refuse(error: IdforgeError): IdforgeError {
    this.#fencedRefusals++;
    return error;
  }

  #lastIssuedMs(): number | null {
    const tick = this.#gen?.stats.lastTick ?? -1;
    return tick < 0 ? null : this.#layout.epochMs + tick * this.#layout.unitMs;
  }

  #retire(): void {
    const gen = this.#gen;
    if (gen === null) return;
    this.#issuedBefore += gen.stats.issued;
    const last = this.#lastIssuedMs();
    const worker = gen.nodeFields[this.#s.workerField]!;
    if (last !== null) {
      const end = markAfterTick(this.#layout, last);
      this.#ownMarks.set(worker, Math.max(end, this.#ownMarks.get(worker) ?? end));
    }
    this.#gen = null;
  }

  #onLost(lease: Lease, duplicate: readonly string[] | null, holders: readonly string[]): void {
    this.#retire();
    if (duplicate !== null) {
      this.#lastError = new DuplicateWorkerError(lease.workerId, duplicate);
      this.#s.logger.error(`idforge: DUPLICATE WORKER ID: ${this.#lastError.message}`);
    } else {
      const why = holders.length > 0 ? 'taken' : 'expired';
      this.#lastError = new LeaseLostError(lease.workerId, this.#s.store.backend, why);
      this.#s.logger.error(`idforge: ${this.#lastError.message}`);
    }
    void this.#reacquire();
  }

  #onDuplicate(claimants: readonly string[] | null): void {
    const lease = this.#keeper.lease;
    if (claimants !== null && lease !== null && this.#duplicate === null) {
      const e = new DuplicateWorkerError(lease.workerId, claimants);
      this.#s.logger.error(`idforge: DUPLICATE WORKER ID: ${e.message}`);
      this.#lastError = e;
    } else if (claimants === null && this.#duplicate !== null) {
      this.#s.logger.warn('idforge: the other claim on our worker ID has expired; resuming');
      this.#lastError = null;
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
      while (!this.#closed) {
        // A worker switch that was under way when the lease was lost may replace the keeper
        // while this one acquires or activates: the switch stands, and what this one leased
        // goes back (its generator would carry a worker ID that no renewal keeps).
        const keeper = this.#keeper;
        const superseded = () => this.#closed || keeper !== this.#keeper;
        try {
          keeper.reset();
          const lease = await keeper.acquire(this.#s.ttlMs);
          if (superseded()) {
            await keeper.close((l) => this.#finalMark(l)).catch(() => undefined);
            return;
          }
          await this.#activate(lease);
          return;
        } catch (error) {
          if (superseded()) {
            await keeper.close((l) => this.#finalMark(l)).catch(() => undefined);
            return;
          }
          this.#lastError = error as IdforgeError;
          this.#retire();
          await this.#keeper.close((l) => this.#finalMark(l)).catch(() => undefined);
          await backgroundSleep(backoff.next());
        }
      }
    } finally {
      this.#reacquiring = false;
    }
  }

  /** The leased worker ID, or null while none is held. */
  get workerId(): number | null {
    return this.#gen === null ? null : (this.#keeper.lease?.workerId ?? null);
  }

  get layout(): Layout {
    return this.#layout;
  }

  /** Whether a next() now would be admitted, and why not. Cheap: no I/O. */
  get readiness(): NodeReadiness {
    const k = this.#keeper;
    const lease = k.lease;
    const now = this.#clock.now();
    const tickStart = ceilToTick(this.#layout, now + 1) - this.#layout.unitMs;
    const held =
      lease !== null && this.#gen !== null && tickStart + this.#layout.unitMs <= k.deadlineMs;
    const pastMark = tickStart >= this.#floorMs && tickStart < k.reservedMs;
    let reason = '';
    if (this.#closed) reason = 'closed';
    else if (this.#switching !== null) reason = this.#switchingError().message;
    else if (this.#duplicate !== null) reason = 'duplicate worker ID claim';
    else if (lease === null || this.#gen === null) {
      reason = this.#lastError?.message ?? 'acquiring a lease';
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

  /**
   * The next ID. Throws `NotReadyError`, `LeaseLostError`, `DuplicateWorkerError`, or as the
   * generator. `gene`: on a layout with a gene field, as `SnowflakeGenerator.next(gene)`
   * (`{ geneFrom: userId }` shards the ID with its user; none draws a random gene).
   */
  next(gene?: SnowflakeGeneOptions): bigint {
    const g = this.#gen;
    if (g === null) throw this.#notReady();
    if (this.#s.onLargeRollback === 'refuse') return g.next(gene);
    try {
      return g.next(gene);
    } catch (error) {
      throw error instanceof ClockRollbackError ? this.#largeRollback(error) : error;
    }
  }

  /** {@link next} as a decimal string. */
  nextString(gene?: SnowflakeGeneOptions): string {
    return this.next(gene).toString();
  }

  /** `count` IDs in increasing order (all with `gene`); throws as {@link next}. */
  batch(count: number, gene?: SnowflakeGeneOptions): bigint[] {
    const g = this.#gen;
    if (g === null) throw this.#notReady();
    if (this.#s.onLargeRollback === 'refuse') return g.batch(count, gene);
    try {
      return g.batch(count, gene);
    } catch (error) {
      throw error instanceof ClockRollbackError ? this.#largeRollback(error) : error;
    }
  }

  /**
   * The error for a clock step back beyond the tolerance: with the switch, it starts one (once;
   * again only after a failed one's back-off) and says so (NotReadyError: waiting helps);
   * without, or while a failed switch backs off, the rollback itself.
   */
  #largeRollback(error: ClockRollbackError): IdforgeError {
    if (this.#s.onLargeRollback !== 'switch-worker') return error;
    if (this.#switching === null) {
      if (this.#clock.now() < this.#switchRetryAtMs) return error;
      this.#switchStepMs = error.driftMs;
      this.#switching = this.#switchRunning().finally(() => {
        this.#switching = null;
      });
    }
    return this.#switchingError();
  }

  #switchingError(): NotReadyError {
    return new NotReadyError(
      `switching worker ID: the clock stepped back ${Math.round(this.#switchStepMs)} ms, more ` +
        `than the ${this.#s.toleranceMs} ms waited out`,
    );
  }

  /** A running switch: find a worker ID below the clock, or back off and refuse as before. */
  async #switchRunning(): Promise<void> {
    const s = this.#s;
    try {
      const grant = await this.#findSwitch();
      if (grant !== null) {
        await this.#switchTo(grant, this.#switchStepMs);
        return;
      }
      s.logger.warn(
        `idforge: no worker ID in ${s.min}..${s.max} has a mark ${s.switchGuardMs} ms below the ` +
          'clock: refusing until the clock is past the last tick, as without the switch',
      );
    } catch (error) {
      this.#lastError = error as IdforgeError;
      s.logger.error(`idforge: switching worker ID failed: ${(error as Error).message}`);
    }
    this.#switchRetryAtMs = this.#clock.now() + s.retryMs * 8;
  }

  /** A free worker ID whose mark is at least switchGuardMs below the clock, leased; or null. */
  #findSwitch(): Promise<SwitchGrant | null> {
    const s = this.#s;
    return leaseBelowMark({
      store: s.store,
      clock: this.#clock,
      layout: this.#layout,
      min: s.min,
      max: s.max,
      ttlMs: s.ttlMs,
      owner: () => this.#ownerRecord(),
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
    const old = this.#keeper;
    const from = old.lease?.workerId ?? -1;
    this.#retire();
    const next = this.#newKeeper(grant.owner);
    next.adopt(grant.lease, grant.sentMs);
    this.#keeper = next;
    await old
      .close((l) => this.#finalMark(l))
      .catch((error: unknown) => {
        s.logger.warn(`idforge: releasing worker ID ${from} after the switch failed: ${error}`);
      });
    this.#switches++;
    const to = grant.lease.workerId;
    this.#lastSwitch = { fromWorkerId: from, toWorkerId: to, stepMs, atMs: this.#clock.now() };
    s.logger.warn(
      `idforge: the clock is ${Math.round(stepMs)} ms behind worker ID ${from}'s last tick or ` +
        `mark: switched to worker ID ${to} (mark below the clock${grant.skipped.length > 0 ? `; skipped ${grant.skipped.join(', ')}` : ''}). ` +
        'IDs stay unique; those issued from now may sort below the ones before the step',
    );
    await this.#activate(grant.lease);
  }

  /** The last switch of worker ID after a large clock step back, or null when none. */
  get lastSwitch(): WorkerSwitch | null {
    return this.#lastSwitch;
  }

  /** {@link batch}, waiting up to `waitMs` (default readyTimeoutMs) for readiness first. */
  async batchAsync(
    count: number,
    waitMs = this.#s.readyTimeoutMs,
    gene?: SnowflakeGeneOptions,
  ): Promise<bigint[]> {
    const until = this.#clock.now() + waitMs;
    for (;;) {
      try {
        return this.batch(count, gene);
      } catch (error) {
        const left = until - this.#clock.now();
        if (!isTransient(error) || left <= 0) throw error;
        try {
          await this.whenReady(left);
        } catch (waitError) {
          // A wait that merely ran out says less than the refusal that started it (a fenced
          // node: LeaseLostError), so that one is what the caller gets.
          const code = (waitError as { code?: string } | null)?.code;
          throw code === 'IDF_NOT_READY' ? error : waitError;
        }
      }
    }
  }

  /**
   * Resolves once the node can issue; rejects after `timeoutMs` with the reason (the last
   * error, or `NotReadyError`), or at once when closed.
   */
  async whenReady(timeoutMs = this.#s.readyTimeoutMs): Promise<void> {
    const until = this.#clock.now() + timeoutMs;
    for (;;) {
      const r = this.readiness;
      if (r.ready) return;
      if (this.#closed || this.#clock.now() >= until) {
        throw this.#lastError ?? new NotReadyError(r.reason);
      }
      await sleep(5);
    }
  }

  #notReady(): IdforgeError {
    if (this.#closed) return new NotReadyError('the node is closed');
    return this.#lastError ?? new NotReadyError('no lease is held');
  }

  /** Counters for metrics (a snapshot). */
  get metrics(): NodeMetrics {
    const c = this.#keeper.counters;
    const g = this.#gen?.stats;
    return {
      workerId: this.workerId,
      issued: this.#issuedBefore + (g?.issued ?? 0),
      leasesAcquired: c.acquired,
      acquireRefusals: c.refusals,
      renewals: c.renewals,
      renewalFailures: c.renewalFailures,
      leasesLost: c.lost,
      duplicatesDetected: c.duplicates,
      fencedRefusals: this.#fencedRefusals,
      exhaustionWaits: g?.exhaustionWaits ?? 0,
      rollbackWaits: g?.rollbackWaits ?? 0,
      workerSwitches: this.#switches,
    };
  }

  /**
   * The exact mark to leave at a graceful release of `lease`: the end of the last tick this
   * process issued under its worker ID, or, when it issued nothing, the mark it found at the
   * grant. Never the reservation written ahead of the clock: that one only protects against a
   * crash, and left behind at a clean stop it made the next start wait for it, or fail with
   * BehindMarkError past markToleranceMs (issue 19). Call after {@link #retire}.
   */
  #finalMark(lease: Lease): number {
    const own = this.#ownMarks.get(lease.workerId) ?? Number.NEGATIVE_INFINITY;
    const found = lease.previousMarkMs ?? Number.NEGATIVE_INFINITY;
    const mark = Math.max(own, found);
    // Nothing was ever issued under this worker ID: 0 (the epoch of unix time) bounds nothing.
    return mark === Number.NEGATIVE_INFINITY ? 0 : mark;
  }

  /**
   * Stops issuing, releases the lease and records the exact final mark (see {@link #finalMark}).
   * Idempotent. Rejects as the store's release does (`StoreUnavailableError`): the lease then
   * expires by itself after ttlMs, and the reservation stays in the store.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#retire();
    await this.#keeper.close((lease) => this.#finalMark(lease));
  }
}

/** Errors after which waiting can help. */
function isTransient(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'IDF_NOT_READY' || code === 'IDF_LEASE_LOST';
}
