/**
 * The one place a driver's failure becomes a typed store error: not migrated, credentials
 * refused, else `StoreUnavailableError` (unreachable, timed out, anything else). What a
 * driver's codes mean is told by the call site, which knows its backend: the
 * {@link Classify} of the backend's folder (`<name>/rules.ts`: PostgreSQL 42P01 / 3F000 and
 * 28P01 / 28000, MySQL 1146 and 1044 / 1045, SQLite "no such table", Redis NOAUTH / WRONGPASS,
 * etcd authentication). Not the registry's: it reaches every adapter, so an adapter's error
 * path that asked it would be an import circle. Typed idforge errors pass through unchanged.
 * The driver's error is kept as `cause`; `address` is already redacted. No driver is imported
 * here.
 */
import { IdforgeError } from 'idforge';
import { StoreUnavailableError } from 'idforge/coord';
import type { Classify, DriverFailure, FailureKind } from './backend.js';
import { StoreAuthError, StoreNotMigratedError, StorePathError } from './errors.js';

/** Where a call goes, for its errors. */
export interface CallSite {
  readonly backend: string;
  /** Redacted. */
  readonly address: string;
  /** What the backend's driver errors mean (its folder's `rules.ts`). */
  readonly classify: Classify;
}

/**
 * What a driver error says about its cause: 'not-migrated', 'auth', ... or null (anything
 * else), by the first error of its cause chain that `classify` recognises.
 */
export function storeFailureKind(classify: Classify, error: unknown): FailureKind {
  const seen = new Set<unknown>();
  for (let e = error; e !== null && typeof e === 'object' && !seen.has(e); ) {
    seen.add(e);
    const kind = classify(e as DriverFailure);
    if (kind !== null) return kind;
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/**
 * The typed error for `cause`, a failure of `operation` at `site`: the idforge error itself
 * when it is one, else by {@link storeFailureKind}.
 */
export function storeError(site: CallSite, operation: string, cause: unknown): IdforgeError {
  if (cause instanceof IdforgeError) return cause;
  const { backend, address } = site;
  switch (storeFailureKind(site.classify, cause)) {
    case 'not-migrated':
      return new StoreNotMigratedError(backend, address, operation, cause);
    case 'auth':
      return new StoreAuthError(backend, address, operation, cause);
    case 'no-database':
      return noDatabase(backend, address, operation, cause);
    case 'read-only':
      // Only file stores classify so: their address is `scheme:PATH[?namespace=...]`.
      return new StorePathError(backend, address.replace(/^\w+:|\?.*$/g, ''), 'read-only', cause);
    default:
      return new StoreUnavailableError(backend, address, operation, cause);
  }
}

/**
 * The server answered, but the database the URL names is not there: retrying will not create
 * it, and "is the server running" points the wrong way. Still `IDF_STORE_UNAVAILABLE` (the
 * store cannot serve until someone creates it), with the cause and the fix in its message.
 */
function noDatabase(backend: string, address: string, operation: string, cause: unknown) {
  let name = '';
  try {
    name = decodeURIComponent(new URL(address).pathname.slice(1));
  } catch {
    // An address that is no URL names no database: the message names the address only.
  }
  const db = name === '' ? 'the database of the URL' : `"${name}"`;
  const why = cause instanceof Error ? ` (${cause.message})` : '';
  return new StoreUnavailableError(
    backend,
    address,
    operation,
    cause,
    `the ${backend} server at ${address} has no database ${db}${why}. Create it ` +
      `(\`CREATE DATABASE ${name || 'NAME'}\` as a user allowed to), or correct the database ` +
      "name in the store URL; then create idforge's tables in it (`idforge migrate --store URL`).",
  );
}
