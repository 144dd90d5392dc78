/**
 * {@link LeaseStore} on PostgreSQL (node-postgres), for fleets spread over several hosts.
 *
 * Atomicity: each acquire, renew and release is one transaction (READ COMMITTED) whose first
 * write locks the worker ID's lease row, so everything else it does to that worker ID (mark,
 * claims) happens while no other grant, renewal or release of the ID can interleave. A grant
 * is `INSERT ... ON CONFLICT DO UPDATE ... WHERE expired`: PostgreSQL re-checks the conflicting
 * row's latest committed version under its lock, so two hosts racing for one ID cannot both
 * win; the loser gets no row and tries the next candidate with a fresh snapshot. Grants in one
 * namespace also take turns on a transaction-scoped advisory lock (see schema.ts: without it,
 * losers holding each other's rows deadlock); renewals and releases never wait for it.
 *
 * Expiry: every time is taken from `clock_timestamp()` on the server, so leases expire by the
 * database's clock alone.
 *
 * Failures: every driver, connection or SQL error rejects with `StoreUnavailableError`
 * ('postgres', redacted URL, operation, cause); no call waits longer than the pool's connect
 * timeout plus the statement timeout per statement. Safe to share within a process.
 */

import type {
  Lease,
  LeaseRecord,
  LeaseRequest,
  LeaseStore,
  RenewReport,
  RenewResult,
} from 'idforge/coord';
import type { Ownership } from '../owned.js';
import type { PostgresClientOptions, PostgresStoreOptions } from './connect.js';
import { type LeaseSql, leaseSql } from './schema.js';
import { openPostgresStore, PostgresStore } from './store.js';

/** bigint columns arrive as decimal strings (node-postgres keeps int8 exact by default). */
type Int8 = string;

interface LeaseRow {
  worker_id: number;
  instance_id: string;
  host: string;
  pid: number;
  started_at_ms: Int8;
  expires_at_ms: Int8;
  last_issued_ms: Int8 | null;
  clock_ms: Int8 | null;
  store_clock_ms: Int8 | null;
  mark_ms: Int8 | null;
}

interface GrantRow {
  candidate: number;
  granted: number | null;
  expires_at_ms: Int8 | null;
}

/** A grant that loses its candidate this many times in a row gives up (never seen in practice). */
const MAX_GRANT_ATTEMPTS = 64;

function num(v: Int8): number;
function num(v: Int8 | null): number | null;
function num(v: Int8 | null): number | null {
  return v === null ? null : Number(v);
}

/**
 * Times go into bigint columns, so they must be integers: rounded up, which errs on the safe
 * side for a TTL (a lease never ends before the holder's own deadline) and for a mark (never
 * below what the holder asked for).
 */
function ms(v: number): number {
  return Math.ceil(v);
}

/**
 * The lease store on PostgreSQL (a node-postgres `pg.Pool`). Two ways to build it, as every idforge
 * store: on the application's own client, `new PostgresLeaseStore({ pool, namespace })`, which
 * `close()` leaves open (the caller closes it); or from a URL with {@link openPostgresLeaseStore},
 * whose client the store opened and `close()` closes.
 */
export class PostgresLeaseStore extends PostgresStore implements LeaseStore {
  readonly #sql: LeaseSql;

  /**
   * A store on `options.pool`, the caller's (see {@link PostgresClientOptions}): `close()`
   * leaves that pool open, unless the store's opener made it. Throws `RangeError` when the
   * namespace is not a valid schema name (see quoteNamespace).
   */
  constructor(options: PostgresClientOptions & Ownership) {
    super(options);
    this.#sql = leaseSql(this.namespace);
  }

  /** Creates the namespace's schema and tables; concurrent migrations take turns. Idempotent. */
  migrate(): Promise<void> {
    return this.db.migrate(this.#sql.migrateLock, [this.namespace], this.#sql.schema);
  }

  acquire(request: LeaseRequest): Promise<Lease | null> {
    const o = request.owner;
    const grantValues = [
      request.min,
      request.max,
      o.instanceId,
      o.host,
      o.pid,
      ms(o.startedAtMs),
      ms(request.ttlMs),
      ms(request.clockMs),
    ];
    return this.db.transaction('acquire', async (c) => {
      await c.query(this.#sql.acquireLock, [this.namespace]);
      let grant: GrantRow | undefined;
      for (let attempt = 1; ; attempt++) {
        grant = (await c.query<GrantRow>(this.#sql.grant, grantValues)).rows[0];
        if (grant === undefined) return null;
        if (grant.granted !== null) break;
        if (attempt === MAX_GRANT_ATTEMPTS) {
          throw this.db.fail(
            'acquire',
            new Error(`lost the race for a free worker ID ${attempt} times in a row`),
          );
        }
      }
      const workerId = grant.granted;
      const previous = (await c.query<{ mark_ms: Int8 }>(this.#sql.markForUpdate, [workerId]))
        .rows[0];
      const raised = await c.query<{ mark_ms: Int8 }>(this.#sql.raiseMark, [
        workerId,
        ms(request.reserveMarkMs),
      ]);
      await c.query(this.#sql.claim, [workerId, o.instanceId, grant.expires_at_ms]);
      return {
        workerId,
        instanceId: o.instanceId,
        previousMarkMs: previous === undefined ? null : num(previous.mark_ms),
        markMs: num(raised.rows[0]!.mark_ms),
      };
    });
  }

  renew(lease: Lease, report: RenewReport): Promise<RenewResult> {
    const { workerId, instanceId } = lease;
    return this.db.transaction('renew', async (c) => {
      const renewed = await c.query<{ expires_at_ms: Int8 }>(this.#sql.renew, [
        workerId,
        instanceId,
        ms(report.ttlMs),
        report.lastIssuedMs === null ? null : ms(report.lastIssuedMs),
        ms(report.clockMs),
      ]);
      const row = renewed.rows[0];
      if (row !== undefined) {
        await c.query(this.#sql.raiseMark, [workerId, ms(report.reserveMarkMs)]);
        await c.query(this.#sql.claim, [workerId, instanceId, row.expires_at_ms]);
      }
      const claimants = await c.query<{ instance_id: string }>(this.#sql.claimants, [workerId]);
      return { held: row !== undefined, claimants: claimants.rows.map((r) => r.instance_id) };
    });
  }

  release(lease: Lease, finalMarkMs: number | null): Promise<void> {
    const { workerId, instanceId } = lease;
    return this.db.transaction('release', async (c) => {
      // The lease row first, as in acquire and renew: one lock order, no deadlock.
      const dropped = await c.query<{ grant_mark_ms: Int8 | null }>(this.#sql.dropLease, [
        workerId,
        instanceId,
      ]);
      const row = dropped.rows[0];
      if (row !== undefined && finalMarkMs !== null) {
        // Never below the mark found at grant: it guards earlier holders' IDs (setMark).
        await c.query(this.#sql.setMark, [workerId, ms(finalMarkMs), row.grant_mark_ms]);
      }
      await c.query(this.#sql.dropClaim, [workerId, instanceId]);
    });
  }

  async list(): Promise<LeaseRecord[]> {
    const rows = await this.db.rows<LeaseRow>('list', this.#sql.list);
    return rows.map((r) => ({
      workerId: r.worker_id,
      instanceId: r.instance_id,
      host: r.host,
      pid: r.pid,
      startedAtMs: num(r.started_at_ms),
      expiresAtMs: num(r.expires_at_ms),
      markMs: num(r.mark_ms),
      lastIssuedMs: num(r.last_issued_ms),
      clockMs: num(r.clock_ms),
      storeClockMs: num(r.store_clock_ms),
    }));
  }

  async readMark(workerId: number): Promise<number | null> {
    const [row] = await this.db.rows<{ mark_ms: Int8 }>('readMark', this.#sql.readMark, [workerId]);
    return row === undefined ? null : num(row.mark_ms);
  }

  /** `clock_timestamp()` on the server, unix ms. */
  async serverTimeMs(): Promise<number | null> {
    const [row] = await this.db.rows<{ ms: Int8 }>('serverTimeMs', this.#sql.serverTime);
    return num(row!.ms);
  }
}

/**
 * Connects to PostgreSQL and checks that the server answers; does not create the schema (call
 * `migrate()`, as `idforge migrate --store URL` does). The store owns a small pool (4
 * connections); `close()` ends it.
 *
 * Throws `RangeError` for a malformed URL, namespace or option; rejects with
 * `StoreUnavailableError` ('postgres', redacted URL, 'connect', cause) when the server cannot
 * be reached, refuses the login or does not answer within the timeouts.
 */
export function openPostgresLeaseStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<LeaseStore> {
  return openPostgresStore(PostgresLeaseStore, url, options);
}
