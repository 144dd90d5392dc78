/**
 * Ports of the coordination layer: what a store must do so that Snowflake nodes never share a
 * worker ID and never reissue a timestamp after a restart. Adapters (src/stores/*) implement
 * {@link LeaseStore} on SQLite, PostgreSQL, Redis and etcd; the same contract suite
 * (test/contract/lease-store.ts) runs against each on the real server.
 *
 * Words used below:
 * - a **lease** is the exclusive right of one instance to one worker ID until it expires;
 *   the store measures expiry on its own clock (SQLite: the host's wall clock; PostgreSQL:
 *   `clock_timestamp()`; Redis: key TTL; etcd: lease TTL);
 * - the **mark** (clock high-water mark) of a worker ID is a unix-ms time that is an
 *   exclusive upper bound on the tick start of every ID ever issued under that worker ID.
 *   It is kept per worker ID, apart from leases, and survives them; it only moves forward,
 *   except that the holder may set it exactly at a graceful release, down to (never below)
 *   the mark found when its lease was granted;
 * - a **claim** is a heartbeat a holder writes for its worker ID with every grant and renewal,
 *   expiring with the lease, in a separate place that is not exclusive: when a lease is taken
 *   while its holder is alive (a store edited by hand), the new holder still sees the old
 *   holder's claim, and both know.
 *
 * Every method may reject with `StoreUnavailableError` (backend, address, operation, cause)
 * when the store cannot be reached or fails; no other rejection is expected. Methods are safe
 * to call concurrently from one process; stores are shared by many processes and hosts.
 */

/** Who holds a lease. */
export interface LeaseOwner {
  /** Unique per process start (a random UUID); the lease's fencing token. */
  readonly instanceId: string;
  readonly host: string;
  readonly pid: number;
  /** When the instance started, unix ms. */
  readonly startedAtMs: number;
}

/** A request for a worker ID. */
export interface LeaseRequest {
  /** Smallest acceptable worker ID (inclusive). */
  readonly min: number;
  /** Largest acceptable worker ID (inclusive). min = max asks for one specific ID. */
  readonly max: number;
  /** Lease duration in ms, measured by the store from when it handles the request. */
  readonly ttlMs: number;
  readonly owner: LeaseOwner;
  /** The node's clock (unix ms) when it sent the request; recorded for the fleet clock check. */
  readonly clockMs: number;
  /** Raise the worker ID's mark to at least this (a reservation ahead of the clock). */
  readonly reserveMarkMs: number;
}

/** A lease the store granted. */
export interface Lease {
  readonly workerId: number;
  readonly instanceId: string;
  /** The worker ID's mark before this grant raised it: the node must not issue below it. */
  readonly previousMarkMs: number | null;
  /** The mark after the grant: max(previous, request.reserveMarkMs). */
  readonly markMs: number;
}

/** What a node reports with each renewal. */
export interface RenewReport {
  readonly ttlMs: number;
  /** Raise the mark to at least this; applied only if the lease is still held. */
  readonly reserveMarkMs: number;
  /** The node's clock when it sent the renewal, unix ms. */
  readonly clockMs: number;
  /** Tick start of the last ID issued, unix ms; null before the first. */
  readonly lastIssuedMs: number | null;
}

/** The store's answer to a renewal. */
export interface RenewResult {
  /** True when the lease was still this instance's and has been extended (and the mark set). */
  readonly held: boolean;
  /** Instance IDs with a live claim on this worker ID, this one included when held. */
  readonly claimants: readonly string[];
}

/** One live lease as {@link LeaseStore.list} reports it. */
export interface LeaseRecord {
  readonly workerId: number;
  readonly instanceId: string;
  readonly host: string;
  readonly pid: number;
  readonly startedAtMs: number;
  /** When the lease expires, unix ms, by the store's clock. */
  readonly expiresAtMs: number;
  /** The worker ID's mark, unix ms. */
  readonly markMs: number | null;
  /** Tick start of the holder's last issued ID, from its last renewal. */
  readonly lastIssuedMs: number | null;
  /** The holder's clock at its last renewal (unix ms), and the store's at the same write. */
  readonly clockMs: number | null;
  readonly storeClockMs: number | null;
}

/** A store of worker-ID leases, claims and marks. */
export interface LeaseStore {
  /** 'sqlite', 'postgres', 'redis', 'etcd', ... */
  readonly backend: string;
  /** Where it is, with credentials removed: safe to log. */
  readonly address: string;
  /** Creates what the store needs (tables, scripts). Idempotent. */
  migrate(): Promise<void>;
  /**
   * Grants the lowest free worker ID in [min, max] (one with no live lease), atomically with
   * raising its mark to `reserveMarkMs`; resolves null when every ID in the range is held.
   * An expired lease counts as free. Never grants one ID to two live instances.
   */
  acquire(request: LeaseRequest): Promise<Lease | null>;
  /**
   * Extends the lease by `report.ttlMs` from now and raises the mark, both only if the lease
   * is still held by `lease.instanceId` (compared atomically with the write), and then
   * extends this instance's claim likewise; lists the live claimants of the worker ID in every
   * case (an instance that lost its lease sees who took it; a holder sees a stale claimant).
   */
  renew(lease: Lease, report: RenewReport): Promise<RenewResult>;
  /**
   * Ends the lease and this instance's claim if still held by it. With `finalMarkMs`, sets the
   * mark to exactly that value (lower than a reservation is allowed here, and only here: the
   * holder knows the last tick it issued), but never below the mark the store found when it
   * granted this lease (`Lease.previousMarkMs`, which the store keeps with the lease): that mark
   * guards IDs of earlier holders, which this holder cannot vouch for. Idempotent.
   */
  release(lease: Lease, finalMarkMs: number | null): Promise<void>;
  /** Live leases, ordered by worker ID. */
  list(): Promise<LeaseRecord[]>;
  /** The worker ID's mark, or null if none was ever stored. */
  readMark(workerId: number): Promise<number | null>;
  /**
   * The store's clock in unix ms, for the fleet clock check; null when the store has no clock
   * clients can read (etcd).
   */
  serverTimeMs(): Promise<number | null>;
  /** Closes connections. Leases are not released: call release first. */
  close(): Promise<void>;
}
