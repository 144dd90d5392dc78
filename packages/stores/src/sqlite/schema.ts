/**
 * Schema of the SQLite stores, applied by `idforge migrate --store sqlite:PATH` (idempotent).
 * Kept as TypeScript strings rather than .sql files so the build has nothing to copy.
 */

/** Leases, marks and claims (src/coord/ports.ts). Times are unix ms integers. */
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
  store_clock_ms INTEGER
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
