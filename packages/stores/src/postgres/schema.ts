/**
 * SQL of the PostgreSQL lease store, kept as TypeScript strings so the build has nothing to
 * copy. Every table lives in the store's namespace, a PostgreSQL schema (default `idforge`),
 * so fleets and parallel test runs sharing one database stay apart.
 *
 * Times are unix ms in `bigint` columns, computed on the server from `clock_timestamp()` (the
 * real time of each statement, not the start of its transaction): a lease expires by the
 * server's clock, whatever the clocks of the nodes say.
 */

/** `[a-z_][a-z0-9_]*`, at most 63 bytes (PostgreSQL's identifier limit), not `pg_*` (reserved). */
const NAMESPACE = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The namespace as a quoted schema identifier. Throws `RangeError` unless it matches
 * `[a-z_][a-z0-9_]*` (at most 63 characters) and does not start with the reserved `pg_`.
 */
export function quoteNamespace(namespace: string): string {
  if (!NAMESPACE.test(namespace) || namespace.startsWith('pg_')) {
    throw new RangeError(
      `namespace: expected a PostgreSQL schema name matching [a-z_][a-z0-9_]* (at most 63 ` +
        `characters, not starting with pg_), got "${namespace}"`,
    );
  }
  return `"${namespace}"`;
}

/** The server's clock as unix ms (`clock_timestamp()` moves during a transaction; `now()` does not). */
export const NOW_MS = 'floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/** Every statement of the lease store for one namespace, built once per store. */
export interface LeaseSql {
  /** DDL, idempotent; run under {@link LeaseSql.migrateLock}. Several statements, no parameters. */
  readonly schema: string;
  /** $1 namespace. Serialises migrations of one namespace (`CREATE ... IF NOT EXISTS` races). */
  readonly migrateLock: string;
  /** $1 namespace. Serialises grants in one namespace until the transaction ends. */
  readonly acquireLock: string;
  /**
   * $1 min, $2 max, $3 instance, $4 host, $5 pid, $6 started, $7 ttl, $8 clock. Picks the lowest
   * worker ID in [min, max] with no live lease and inserts (or takes over an expired) lease row.
   * No row: the range is full. `granted` null: another transaction took the candidate first.
   */
  readonly grant: string;
  /** $1 worker: the mark, row-locked for the rest of the transaction. */
  readonly markForUpdate: string;
  /** $1 worker, $2 mark: raises the mark to at least $2, returns it. */
  readonly raiseMark: string;
  /** $1 worker, $2 mark, $3 floor (null: none): sets the mark to $2, or $3 when that is higher. */
  readonly setMark: string;
  /** $1 worker, $2 instance, $3 expiry: writes the claim and sweeps the worker's expired claims. */
  readonly claim: string;
  /** $1 worker, $2 instance, $3 ttl, $4 last issued, $5 clock: extends a live lease it holds. */
  readonly renew: string;
  /** $1 worker: the instance IDs of live claims. */
  readonly claimants: string;
  /** $1 worker, $2 instance: deletes the lease if this instance holds it; its grant mark. */
  readonly dropLease: string;
  /** $1 worker, $2 instance: deletes this instance's claim. */
  readonly dropClaim: string;
  /** Live leases with their marks, by worker ID. */
  readonly list: string;
  /** $1 worker. */
  readonly readMark: string;
  readonly serverTime: string;
}

/** The statements of the namespace `namespace` (validated by {@link quoteNamespace}). */
export function leaseSql(namespace: string): LeaseSql {
  const ns = quoteNamespace(namespace);
  const leases = `${ns}.leases`;
  const marks = `${ns}.marks`;
  const claims = `${ns}.claims`;
  return {
    schema: `
CREATE SCHEMA IF NOT EXISTS ${ns};
CREATE TABLE IF NOT EXISTS ${leases} (
  worker_id      integer PRIMARY KEY,
  instance_id    text    NOT NULL,
  host           text    NOT NULL,
  pid            integer NOT NULL,
  started_at_ms  bigint  NOT NULL,
  expires_at_ms  bigint  NOT NULL,
  last_issued_ms bigint,
  clock_ms       bigint,
  store_clock_ms bigint
);
ALTER TABLE ${leases} ADD COLUMN IF NOT EXISTS grant_mark_ms bigint;
CREATE TABLE IF NOT EXISTS ${marks} (
  worker_id integer PRIMARY KEY,
  mark_ms   bigint  NOT NULL
);
CREATE TABLE IF NOT EXISTS ${claims} (
  worker_id     integer NOT NULL,
  instance_id   text    NOT NULL,
  expires_at_ms bigint  NOT NULL,
  PRIMARY KEY (worker_id, instance_id)
);`,
    migrateLock: `SELECT pg_advisory_xact_lock(hashtext('idforge.migrate'), hashtext($1::text))`,
    acquireLock: `SELECT pg_advisory_xact_lock(hashtext('idforge.acquire'), hashtext($1::text))`,
    // The candidate comes from this statement's snapshot; ON CONFLICT then re-checks the row's
    // latest committed version under its row lock, so of two racing grants of one ID exactly
    // one sees it expired (or absent) and the other gets no row back. The loser keeps that row
    // locked until it commits (PostgreSQL locks the conflicting row even when the WHERE fails),
    // which is why grants run one at a time per namespace under acquireLock: two grants that
    // each kept one row and wanted the other's would deadlock.
    grant: `
WITH now AS (SELECT ${NOW_MS} AS ms),
candidate AS (
  SELECT g.id AS worker_id FROM generate_series($1::integer, $2::integer) AS g(id)
  WHERE NOT EXISTS (
    SELECT 1 FROM ${leases} l, now WHERE l.worker_id = g.id AND l.expires_at_ms > now.ms)
  ORDER BY g.id LIMIT 1
),
granted AS (
  INSERT INTO ${leases} AS l (worker_id, instance_id, host, pid, started_at_ms, expires_at_ms,
    last_issued_ms, clock_ms, store_clock_ms, grant_mark_ms)
  SELECT c.worker_id, $3::text, $4::text, $5::integer, $6::bigint, now.ms + $7::bigint,
    NULL, $8::bigint, now.ms, (SELECT m.mark_ms FROM ${marks} m WHERE m.worker_id = c.worker_id)
  FROM candidate c, now
  ON CONFLICT (worker_id) DO UPDATE SET instance_id = excluded.instance_id,
    host = excluded.host, pid = excluded.pid, started_at_ms = excluded.started_at_ms,
    expires_at_ms = excluded.expires_at_ms, last_issued_ms = NULL,
    clock_ms = excluded.clock_ms, store_clock_ms = excluded.store_clock_ms,
    grant_mark_ms = excluded.grant_mark_ms
  WHERE l.expires_at_ms <= excluded.store_clock_ms
  RETURNING l.worker_id, l.expires_at_ms
)
SELECT c.worker_id AS candidate, g.worker_id AS granted, g.expires_at_ms
FROM candidate c LEFT JOIN granted g ON true`,
    markForUpdate: `SELECT mark_ms FROM ${marks} WHERE worker_id = $1::integer FOR UPDATE`,
    raiseMark: `
INSERT INTO ${marks} AS m (worker_id, mark_ms) VALUES ($1::integer, $2::bigint)
ON CONFLICT (worker_id) DO UPDATE SET mark_ms = GREATEST(m.mark_ms, excluded.mark_ms)
RETURNING m.mark_ms`,
    setMark: `
INSERT INTO ${marks} AS m (worker_id, mark_ms)
VALUES ($1::integer, GREATEST($2::bigint, $3::bigint))
ON CONFLICT (worker_id) DO UPDATE SET mark_ms = excluded.mark_ms`,
    // The sweep skips this instance's own row, which the upsert then updates.
    claim: `
WITH swept AS (
  DELETE FROM ${claims} WHERE worker_id = $1::integer AND instance_id <> $2::text
    AND expires_at_ms <= ${NOW_MS}
)
INSERT INTO ${claims} AS c (worker_id, instance_id, expires_at_ms)
VALUES ($1::integer, $2::text, $3::bigint)
ON CONFLICT (worker_id, instance_id) DO UPDATE SET expires_at_ms = excluded.expires_at_ms`,
    renew: `
WITH now AS (SELECT ${NOW_MS} AS ms)
UPDATE ${leases} AS l SET expires_at_ms = now.ms + $3::bigint, last_issued_ms = $4::bigint,
  clock_ms = $5::bigint, store_clock_ms = now.ms
FROM now
WHERE l.worker_id = $1::integer AND l.instance_id = $2::text AND l.expires_at_ms > now.ms
RETURNING l.expires_at_ms`,
    claimants: `
SELECT instance_id FROM ${claims}
WHERE worker_id = $1::integer AND expires_at_ms > ${NOW_MS} ORDER BY instance_id`,
    dropLease: `
DELETE FROM ${leases} WHERE worker_id = $1::integer AND instance_id = $2::text
RETURNING worker_id, grant_mark_ms`,
    dropClaim: `DELETE FROM ${claims} WHERE worker_id = $1::integer AND instance_id = $2::text`,
    list: `
SELECT l.worker_id, l.instance_id, l.host, l.pid, l.started_at_ms, l.expires_at_ms,
  l.last_issued_ms, l.clock_ms, l.store_clock_ms, m.mark_ms
FROM ${leases} l LEFT JOIN ${marks} m ON m.worker_id = l.worker_id
WHERE l.expires_at_ms > ${NOW_MS} ORDER BY l.worker_id`,
    readMark: `SELECT mark_ms FROM ${marks} WHERE worker_id = $1::integer`,
    serverTime: `SELECT ${NOW_MS} AS ms`,
  };
}
