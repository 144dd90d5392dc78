/**
 * {@link LeaseStore} on SQLite (better-sqlite3): the embedded default. One database file is
 * shared safely by every process on one host: each change runs in a `BEGIN IMMEDIATE`
 * transaction (one writer at a time, others wait up to `busyTimeoutMs`), in WAL mode. Expiry
 * is measured on the host's wall clock, which every process of the host shares.
 *
 * Not for several hosts: a SQLite file on a network file system does not lock reliably.
 */
import type Database from 'better-sqlite3';
import type {
  Lease,
  LeaseRecord,
  LeaseRequest,
  LeaseStore,
  RenewReport,
  RenewResult,
} from 'idforge/coord';
import type { Ownership } from '../owned.js';
import type { SqliteClientOptions } from './connect.js';
import { SQLITE_LEASE_COLUMNS, SQLITE_LEASE_SCHEMA } from './schema.js';
import { openSqliteStore, type SqliteMigratingOptions, SqliteStore } from './store.js';

interface LeaseRow {
  worker_id: number;
  instance_id: string;
  host: string;
  pid: number;
  started_at_ms: number;
  expires_at_ms: number;
  last_issued_ms: number | null;
  clock_ms: number | null;
  store_clock_ms: number | null;
  mark_ms: number | null;
}

/**
 * The lease store on SQLite (a better-sqlite3 `Database`). Two ways to build it, as every idforge
 * store: on the application's own client, `new SqliteLeaseStore({ database, namespace })`, which
 * `close()` leaves open (the caller closes it); or from a URL with {@link openSqliteLeaseStore},
 * whose client the store opened and `close()` closes.
 */
export class SqliteLeaseStore extends SqliteStore implements LeaseStore {
  readonly #db: Database.Database;
  readonly #now: () => number;

  /**
   * A store on `options.database`, the caller's (see {@link SqliteClientOptions}): `close()`
   * leaves that database open, unless the store's opener made it. `namespace` prefixes the
   * tables (default `idforge`; `RangeError` unless `[a-z_][a-z0-9_]*`, at most 31
   * characters); `now` is the store's clock (default `Date.now`; tests inject one to expire
   * leases).
   */
  constructor(options: SqliteClientOptions & Ownership) {
    super(options);
    this.#db = options.database as Database.Database; // its own type inside (driver-types.ts)
    this.#now = options.now ?? Date.now;
  }

  /** The statement with the tables of this namespace. */
  #prepare(sql: string): Database.Statement {
    return this.#db.prepare(this.tables(sql));
  }

  migrate(): Promise<void> {
    return this.run('migrate', () => {
      this.#db.transaction(() => {
        this.#db.exec(this.tables(SQLITE_LEASE_SCHEMA));
        const table = this.tables('idforge_leases');
        const have = new Set(
          this.#db
            .prepare(`PRAGMA table_info(${table})`)
            .all()
            .map((c) => (c as { name: string }).name),
        );
        for (const [name, type] of SQLITE_LEASE_COLUMNS) {
          if (!have.has(name)) this.#db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${type}`);
        }
      })();
    });
  }

  acquire(request: LeaseRequest): Promise<Lease | null> {
    return this.run('acquire', () =>
      this.#db
        .transaction((): Lease | null => {
          const now = this.#now();
          this.#prepare('DELETE FROM idforge_leases WHERE expires_at_ms <= ?').run(now);
          const held = new Set(
            this.#prepare(
              'SELECT worker_id FROM idforge_leases WHERE worker_id BETWEEN ? AND ? ORDER BY worker_id',
            )
              .pluck()
              .all(request.min, request.max) as number[],
          );
          let workerId = -1;
          for (let id = request.min; id <= request.max; id++) {
            if (!held.has(id)) {
              workerId = id;
              break;
            }
          }
          if (workerId < 0) return null;
          const o = request.owner;
          const previous = this.#prepare('SELECT mark_ms FROM idforge_marks WHERE worker_id = ?')
            .pluck()
            .get(workerId) as number | undefined;
          this.#prepare(
            `INSERT INTO idforge_leases (worker_id, instance_id, host, pid, started_at_ms,
               expires_at_ms, last_issued_ms, clock_ms, store_clock_ms, grant_mark_ms)
             VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)`,
          ).run(
            workerId,
            o.instanceId,
            o.host,
            o.pid,
            o.startedAtMs,
            now + request.ttlMs,
            request.clockMs,
            now,
            previous ?? null,
          );
          const markMs = Math.max(previous ?? Number.NEGATIVE_INFINITY, request.reserveMarkMs);
          this.#prepare(
            `INSERT INTO idforge_marks (worker_id, mark_ms) VALUES (?, ?)
             ON CONFLICT (worker_id) DO UPDATE SET mark_ms = max(mark_ms, excluded.mark_ms)`,
          ).run(workerId, markMs);
          this.#claim(workerId, o.instanceId, now + request.ttlMs, now);
          return { workerId, instanceId: o.instanceId, previousMarkMs: previous ?? null, markMs };
        })
        .immediate(),
    );
  }

  #claim(workerId: number, instanceId: string, expiresAtMs: number, now: number): void {
    this.#prepare('DELETE FROM idforge_claims WHERE expires_at_ms <= ?').run(now);
    this.#prepare(
      `INSERT INTO idforge_claims (worker_id, instance_id, expires_at_ms) VALUES (?, ?, ?)
       ON CONFLICT (worker_id, instance_id) DO UPDATE SET expires_at_ms = excluded.expires_at_ms`,
    ).run(workerId, instanceId, expiresAtMs);
  }

  renew(lease: Lease, report: RenewReport): Promise<RenewResult> {
    return this.run('renew', () =>
      this.#db
        .transaction((): RenewResult => {
          const now = this.#now();
          const changed = this.#prepare(
            `UPDATE idforge_leases SET expires_at_ms = ?, last_issued_ms = ?, clock_ms = ?,
                 store_clock_ms = ?
               WHERE worker_id = ? AND instance_id = ? AND expires_at_ms > ?`,
          ).run(
            now + report.ttlMs,
            report.lastIssuedMs,
            report.clockMs,
            now,
            lease.workerId,
            lease.instanceId,
            now,
          ).changes;
          const held = changed === 1;
          if (held) {
            this.#prepare(
              'UPDATE idforge_marks SET mark_ms = max(mark_ms, ?) WHERE worker_id = ?',
            ).run(report.reserveMarkMs, lease.workerId);
            this.#claim(lease.workerId, lease.instanceId, now + report.ttlMs, now);
          } else {
            this.#prepare('DELETE FROM idforge_claims WHERE expires_at_ms <= ?').run(now);
          }
          const claimants = this.#prepare(
            'SELECT instance_id FROM idforge_claims WHERE worker_id = ? ORDER BY instance_id',
          )
            .pluck()
            .all(lease.workerId) as string[];
          return { held, claimants };
        })
        .immediate(),
    );
  }

  release(lease: Lease, finalMarkMs: number | null): Promise<void> {
    return this.run('release', () =>
      this.#db
        .transaction(() => {
          const deleted = this.#prepare(
            'DELETE FROM idforge_leases WHERE worker_id = ? AND instance_id = ? RETURNING grant_mark_ms',
          ).get(lease.workerId, lease.instanceId) as { grant_mark_ms: number | null } | undefined;
          this.#prepare('DELETE FROM idforge_claims WHERE worker_id = ? AND instance_id = ?').run(
            lease.workerId,
            lease.instanceId,
          );
          if (deleted !== undefined && finalMarkMs !== null) {
            // Exactly the holder's final mark, but never below the mark found at grant: that
            // one guards IDs of earlier holders, which this holder cannot vouch for.
            this.#prepare('UPDATE idforge_marks SET mark_ms = max(?, ?) WHERE worker_id = ?').run(
              finalMarkMs,
              deleted.grant_mark_ms ?? finalMarkMs,
              lease.workerId,
            );
          }
        })
        .immediate(),
    );
  }

  list(): Promise<LeaseRecord[]> {
    return this.run('list', () => {
      const rows = this.#prepare(
        `SELECT l.*, m.mark_ms FROM idforge_leases l
           LEFT JOIN idforge_marks m ON m.worker_id = l.worker_id
           WHERE l.expires_at_ms > ? ORDER BY l.worker_id`,
      ).all(this.#now()) as LeaseRow[];
      return rows.map((r) => ({
        workerId: r.worker_id,
        instanceId: r.instance_id,
        host: r.host,
        pid: r.pid,
        startedAtMs: r.started_at_ms,
        expiresAtMs: r.expires_at_ms,
        markMs: r.mark_ms,
        lastIssuedMs: r.last_issued_ms,
        clockMs: r.clock_ms,
        storeClockMs: r.store_clock_ms,
      }));
    });
  }

  readMark(workerId: number): Promise<number | null> {
    return this.run('readMark', () => {
      const v = this.#prepare('SELECT mark_ms FROM idforge_marks WHERE worker_id = ?')
        .pluck()
        .get(workerId) as number | undefined;
      return v ?? null;
    });
  }

  serverTimeMs(): Promise<number | null> {
    return Promise.resolve(this.#now());
  }

  close(): Promise<void> {
    if (this.owned) this.#db.close();
    return Promise.resolve();
  }
}

/** Options of {@link openSqliteLeaseStore}. */
export interface SqliteLeaseStoreOptions extends SqliteMigratingOptions {
  /** How long a call waits for another process's write lock, in ms. Default 5000. */
  readonly connectTimeoutMs?: number;
}

/**
 * Opens (creating if missing, unless `create` is false; `onCreate` is told) the database of a
 * `sqlite:PATH[?namespace=NAME]` URL and its lease tables (unless `autoMigrate` is false).
 * Throws `RangeError` for a malformed URL or namespace; `StorePathError` for a path that
 * cannot be used; `StoreUnavailableError` ('sqlite', 'connect') when the file cannot be opened.
 */
export async function openSqliteLeaseStore(
  url: string,
  options: SqliteLeaseStoreOptions = {},
): Promise<SqliteLeaseStore> {
  const busyTimeoutMs = () => options.connectTimeoutMs ?? 5000;
  return openSqliteStore(
    SqliteLeaseStore,
    url,
    options,
    busyTimeoutMs,
    options.autoMigrate ?? true,
  );
}
