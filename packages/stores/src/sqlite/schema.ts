/**
 * Schema of the SQLite stores, applied by `idforge migrate --store sqlite:PATH` (idempotent).
 * Kept as TypeScript strings rather than .sql files so the build has nothing to copy.
 */

/**
 * Leases, marks and claims (packages/idforge/src/coord/ports.ts). Times are unix ms integers. `grant_mark_ms` is
 * the worker ID's mark when the lease was granted: a release never sets the mark below it.
 */
export const SQLITE_LEASE_SCHEMA = `
CREATE TABLE IF NOT EXISTS idforge_leases (
  worker_id      INTEGER PRIMARY KEY,
  instance_id    TEXT    NOT NULL,
  host           TEXT    NOT NULL,
  pid            INTEGER NOT NULL,
  started_at_ms  INTEGER NOT NULL,
  expires_at_ms  INTEGER NOT NULL,
  last_issued_ms INTEGER,
  clock_ms       INTEGER,
  store_clock_ms INTEGER,
  grant_mark_ms  INTEGER
);
CREATE TABLE IF NOT EXISTS idforge_marks (
  worker_id INTEGER PRIMARY KEY,
  mark_ms   INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS idforge_claims (
  worker_id     INTEGER NOT NULL,
  instance_id   TEXT    NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  PRIMARY KEY (worker_id, instance_id)
);
`;

/**
 * Columns added to the lease table after its first release, for files made before them
 * (`CREATE TABLE IF NOT EXISTS` leaves an existing table as it is): name and type.
 */
export const SQLITE_LEASE_COLUMNS: readonly (readonly [string, string])[] = [
  ['grant_mark_ms', 'INTEGER'],
];
