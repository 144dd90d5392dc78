/**
 * Holds one worker-ID lease: acquires it, renews it in the background (with the mark
 * reservation in the same write), and keeps the two local bounds the issue path checks:
 *
 *   deadlineMs  the lease is certainly still ours before this (node clock): the time the last
 *               successful renewal was SENT + ttl - guard. The store measures expiry from when
 *               it RECEIVED the request, so the store's expiry is later than the deadline.
 *   reservedMs  the mark persisted ahead of the clock: no ID may be issued in a tick that
 *               starts at or after it.
 *
 * Renewal failures are retried quickly; the node keeps issuing until a bound is reached.
 * Timers are unref'd and stop on close() or the AbortSignal.
 */
import type { Clock } from '../core/index.js';
import { Backoff, StoreUnavailableError } from '../core/internal.js';
import { NoFreeWorkerError } from './errors.js';
import type { Lease, LeaseOwner, LeaseStore } from './ports.js';
import { sleep } from './sleep.js';

/** Counters for metrics. */
export interface LeaseCounters {
  acquired: number;
  refusals: number;
  renewals: number;
  renewalFailures: number;
  lost: number;
  duplicates: number;
}

/** What the keeper tells its node. */
export interface LeaseEvents {
  /**
   * The lease was lost: `holders` are the other live claimants (none: it simply expired), and
   * `duplicate` is set when it was taken while ours had not expired.
   */
  onLost(lease: Lease, duplicate: readonly string[] | null, holders: readonly string[]): void;
  /** A renewal saw more than one live claimant on our worker ID (or saw it resolved: null). */
  onDuplicate(claimants: readonly string[] | null): void;
  /** Tick start of the last ID issued, for the lease record. */
  lastIssuedMs(): number | null;
  log(level: 'info' | 'warn' | 'error', message: string): void;
}

/** Settings of a {@link LeaseKeeper}, validated by the node. */
export interface LeaseKeeperSettings {
  readonly store: LeaseStore;
  readonly clock: Clock;
  readonly owner: LeaseOwner;
  readonly min: number;
  readonly max: number;
  readonly ttlMs: number;
  readonly guardMs: number;
  /** How far ahead of the clock the mark is reserved (capped at the lease deadline). */
  readonly windowMs: number;
  readonly renewEveryMs: number;
  readonly retryMs: number;
}

export class LeaseKeeper {
  readonly counters: LeaseCounters = {
    acquired: 0,
    refusals: 0,
    renewals: 0,
    renewalFailures: 0,
    lost: 0,
    duplicates: 0,
  };
  readonly #s: LeaseKeeperSettings;
  readonly #events: LeaseEvents;
  #lease: Lease | null = null;
  #deadlineMs = Number.NEGATIVE_INFINITY;
  #reservedMs = Number.NEGATIVE_INFINITY;
  #lastRenewSentMs = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #busy: Promise<void> | null = null;
  #failingSince: number | null = null;
  #duplicate = false;
  // Failed renewals are retried after a jittered back-off from retryMs, capped well inside
  // the lease's margin (a quarter of ttl - guard), so a renewal still lands before the deadline.
  readonly #renewBackoff: Backoff;

  constructor(settings: LeaseKeeperSettings, events: LeaseEvents) {
    this.#s = settings;
    this.#events = events;
    this.#renewBackoff = new Backoff({
      initialMs: settings.retryMs,
      maxMs: Math.max(
        settings.retryMs,
        Math.min(settings.retryMs * 8, (settings.ttlMs - settings.guardMs) / 4),
      ),
    });
  }

  get lease(): Lease | null {
    return this.#lease;
  }

  get deadlineMs(): number {
    return this.#deadlineMs;
  }

  get reservedMs(): number {
    return this.#reservedMs;
  }

  /** The node clock when the last grant or renewal that set the deadline was sent. */
  get lastSentMs(): number {
    return this.#lastRenewSentMs;
  }

  /**
   * Takes over `lease`, granted by the store to this keeper's owner for a request sent at
   * `sentMs` (node clock), as if {@link acquire} had returned it: the deadline counts from
   * `sentMs`. For a node that picked its worker ID itself (a switch after a clock step).
   */
  adopt(lease: Lease, sentMs: number): void {
    this.#hold(lease, sentMs);
    this.#stopped = false;
  }

  /** Holds `lease`, granted for a request sent at `sentMs`: its deadline counts from then. */
  #hold(lease: Lease, sentMs: number): void {
    const s = this.#s;
    this.counters.acquired++;
    this.#lease = lease;
    this.#deadlineMs = sentMs + s.ttlMs - s.guardMs;
    this.#reservedMs = lease.markMs;
    this.#lastRenewSentMs = sentMs;
    this.#failingSince = null;
    this.#duplicate = false;
  }

  /** The reservation a write sent at `sentMs` asks for: now + window, capped at the deadline. */
  #reservation(sentMs: number): number {
    const s = this.#s;
    return Math.min(sentMs + s.windowMs, sentMs + s.ttlMs - s.guardMs);
  }

  /**
   * Acquires a worker ID, retrying after a jittered back-off (from `retryMs`, growing up to
   * 8 x `retryMs`) while the range is full, for at most
   * `waitMs`. A store that fails (`StoreUnavailableError`) is retried the same way within
   * `waitMs`. Rejects with {@link NoFreeWorkerError} when the wait runs out on a full range,
   * or with the store's `StoreUnavailableError` when it runs out on a store that is down
   * (at once when `waitMs` is 0). When `signal` aborts, rejects with its reason as soon as the
   * store call in flight returns, releasing a lease that call granted.
   */
  async acquire(waitMs: number, signal?: AbortSignal): Promise<Lease> {
    const s = this.#s;
    const started = s.clock.now();
    const backoff = new Backoff({ initialMs: s.retryMs, maxMs: s.retryMs * 8 });
    for (;;) {
      signal?.throwIfAborted();
      const sent = s.clock.now();
      let lease: Lease | null;
      try {
        lease = await s.store.acquire({
          min: s.min,
          max: s.max,
          ttlMs: s.ttlMs,
          owner: s.owner,
          clockMs: sent,
          // Nothing is reserved ahead at the grant: the node reserves with its first renewal,
          // once it has decided to issue, so a node refused at start leaves the mark as it was.
          reserveMarkMs: 0,
        });
      } catch (error) {
        // A store that is down is waited for like a full range, within the same bound.
        const waited = s.clock.now() - started;
        if (!(error instanceof StoreUnavailableError) || waited >= waitMs) throw error;
        await sleep(Math.min(backoff.next(), waitMs - waited), signal);
        continue;
      }
      if (lease !== null && signal?.aborted) {
        // Granted while the caller gave up: nothing was reserved at the grant, so the mark
        // stays as it was.
        await s.store.release(lease, null).catch(() => undefined);
        throw signal.reason;
      }
      if (lease !== null) {
        this.#hold(lease, sent);
        return lease;
      }
      this.counters.refusals++;
      const waited = s.clock.now() - started;
      if (waited >= waitMs) throw new NoFreeWorkerError(s.store.backend, s.min, s.max, waited);
      await sleep(Math.min(backoff.next(), waitMs - waited), signal);
    }
  }

  /** Renews now (one store round trip); resolves whether the lease is still held. */
  async renewNow(): Promise<boolean> {
    while (this.#busy !== null) await this.#busy;
    const lease = this.#lease;
    if (lease === null) return false;
    let done!: () => void;
    this.#busy = new Promise((r) => {
      done = r;
    });
    try {
      return await this.#renew(lease);
    } finally {
      this.#busy = null;
      done();
    }
  }

  async #renew(lease: Lease): Promise<boolean> {
    const s = this.#s;
    const sent = s.clock.now();
    const reserve = this.#reservation(sent);
    let result: Awaited<ReturnType<LeaseStore['renew']>>;
    try {
      result = await s.store.renew(lease, {
        ttlMs: s.ttlMs,
        reserveMarkMs: reserve,
        clockMs: sent,
        lastIssuedMs: this.#events.lastIssuedMs(),
      });
    } catch (error) {
      this.counters.renewalFailures++;
      if (this.#failingSince === null) {
        this.#failingSince = sent;
        const why = error instanceof StoreUnavailableError ? error.message : String(error);
        this.#events.log(
          'warn',
          `lease renewal of worker ID ${lease.workerId} failed; issuing continues until ` +
            `${new Date(Math.min(this.#deadlineMs, this.#reservedMs)).toISOString()}: ${why}`,
        );
      }
      return this.#lease === lease;
    }
    if (this.#lease !== lease) return false;
    this.#renewBackoff.reset();
    if (this.#failingSince !== null) {
      this.#events.log(
        'info',
        `lease renewal of worker ID ${lease.workerId} recovered after ${sent - this.#failingSince} ms`,
      );
      this.#failingSince = null;
    }
    const others = result.claimants.filter((c) => c !== lease.instanceId);
    if (!result.held) {
      // Another instance holds it. Only an answer received before our own deadline proves the
      // store refused a lease that was still ours (a duplicate); a later one may have been held
      // by a partition or a pause past a lawful expiry and takeover (issue 10's partition test).
      const live = s.clock.now() < this.#deadlineMs;
      const duplicate = live && others.length > 0 ? result.claimants : null;
      if (duplicate !== null) this.counters.duplicates++;
      this.counters.lost++;
      this.#lease = null;
      this.#deadlineMs = Number.NEGATIVE_INFINITY;
      this.#reservedMs = Number.NEGATIVE_INFINITY;
      this.#events.onLost(lease, duplicate, others);
      return false;
    }
    this.counters.renewals++;
    this.#deadlineMs = sent + s.ttlMs - s.guardMs;
    this.#reservedMs = Math.max(this.#reservedMs, reserve);
    this.#lastRenewSentMs = sent;
    if (others.length > 0 && !this.#duplicate) this.counters.duplicates++;
    this.#duplicate = others.length > 0;
    this.#events.onDuplicate(others.length > 0 ? result.claimants : null);
    return true;
  }

  /** Starts the background loop: renews every renewEveryMs, or sooner when a bound nears. */
  start(): void {
    this.#schedule(0);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), Math.max(0, ms));
    this.#timer.unref?.();
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    const s = this.#s;
    if (this.#lease === null) return; // the node re-acquires; it restarts the loop
    const now = s.clock.now();
    const due =
      now - this.#lastRenewSentMs >= s.renewEveryMs ||
      this.#reservedMs - now < s.windowMs / 2 ||
      this.#failingSince !== null;
    if (due) await this.renewNow().catch(() => undefined);
    if (this.#lease === null) return;
    const next = this.#failingSince !== null ? this.#renewBackoff.next() : this.#nextDueIn();
    this.#schedule(next);
  }

  #nextDueIn(): number {
    const s = this.#s;
    const now = s.clock.now();
    const byPeriod = this.#lastRenewSentMs + s.renewEveryMs - now;
    const byReservation = this.#reservedMs - s.windowMs / 2 - now;
    return Math.max(1, Math.min(byPeriod, byReservation));
  }

  /**
   * Stops the loop and releases the lease, setting the mark to `finalMark` (the exact mark;
   * null leaves it as it is), or to `finalMark(lease)`, computed once no renewal is in flight.
   * Idempotent. Rejects as the store's release.
   */
  async close(finalMark: number | null | ((lease: Lease) => number | null)): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    while (this.#busy !== null) await this.#busy;
    const lease = this.#lease;
    this.#lease = null;
    this.#deadlineMs = Number.NEGATIVE_INFINITY;
    this.#reservedMs = Number.NEGATIVE_INFINITY;
    if (lease === null) return;
    await this.#s.store.release(
      lease,
      typeof finalMark === 'function' ? finalMark(lease) : finalMark,
    );
  }

  /** Re-opens the loop after a loss so that {@link acquire} and {@link start} work again. */
  reset(): void {
    this.#stopped = false;
  }
}
