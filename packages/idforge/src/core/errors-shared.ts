/**
 * The two operational errors more than one layer throws, so they stay in the core (exported to
 * users by the subpaths whose ports name them, never by the root): `StoreUnavailableError`
 * is the contract of every store port (idforge/coord's lease and mark stores,
 * idforge/sequences' segment, counter and gap-free stores, idforge/sql's and the backfill's
 * targets, the HTTP lease store of idforge/client), and `NotReadyError` is thrown by
 * idforge/coord's Snowflake node and by idforge/hlc's node clock. Part of the one catalogue:
 * codes in `errors.ts`, each documented in `docs/errors.md`.
 */
import { IdforgeError } from './errors.js';

/**
 * A store (SQLite, PostgreSQL, MariaDB, Redis, etcd, a file) could not be reached, did not
 * answer in time, or failed an operation for a reason that has no code of its own. `backend`
 * and `address` (credentials removed) say which; `cause` is the driver's error. Nothing was
 * issued on the strength of the failed call. The message states the failure only: whether
 * anyone retries depends on the caller (a running node does, the one-shot CLI does not).
 * A store that answers but is not migrated, refuses the credentials or has an unusable path
 * is `StoreNotMigratedError`, `StoreAuthError` or `StorePathError` (@idforge/stores).
 */
export class StoreUnavailableError extends IdforgeError {
  readonly backend: string;
  readonly address: string;
  /** What idforge was doing: 'connect', 'acquire', 'renew', ... */
  readonly operation: string;

  /**
   * `message` replaces the default ("BACKEND store at ADDRESS failed during OPERATION: cause.
   * Check that the server is running ...") when one store is not the whole story (a list of
   * ticket servers).
   */
  constructor(
    backend: string,
    address: string,
    operation: string,
    cause?: unknown,
    message?: string,
  ) {
    const why = cause instanceof Error ? `: ${cause.message}` : '';
    super(
      'IDF_STORE_UNAVAILABLE',
      message ??
        `${backend} store at ${address} failed during ${operation}${why}. Check that the ` +
          'server is running and reachable at that address.',
      { cause },
    );
    this.backend = backend;
    this.address = address;
    this.operation = operation;
  }
}

/**
 * The node cannot issue yet: it holds no lease, its clock has not passed the worker ID's
 * stored high-water mark, or the mark reservation ahead of the clock is not yet persisted.
 * Temporary: wait with `node.whenReady()`.
 */
export class NotReadyError extends IdforgeError {
  readonly reason: string;

  constructor(reason: string) {
    super(
      'IDF_NOT_READY',
      `the Snowflake node is not ready to issue: ${reason}. Wait with node.whenReady(); if it ` +
        'persists, check the store.',
    );
    this.reason = reason;
  }
}
