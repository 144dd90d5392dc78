/**
 * The one place a driver's failure becomes a typed store error: not migrated (PostgreSQL
 * 42P01 / 3F000, MySQL ER_NO_SUCH_TABLE 1146, SQLite "no such table"), credentials refused
 * (PostgreSQL 28P01 / 28000, MySQL 1045 / 1044, Redis NOAUTH / WRONGPASS, etcd authentication),
 * else `StoreUnavailableError` (unreachable, timed out, anything else). Typed idforge errors
 * pass through unchanged. The driver's error is kept as `cause`; `address` is already redacted.
 * No driver is imported here.
 */
import {
  IdforgeError,
  StoreAuthError,
  StoreNotMigratedError,
  StoreUnavailableError,
} from 'idforge';

const NOT_MIGRATED_CODES = new Set(['42P01', '3F000', 'ER_NO_SUCH_TABLE']);
const AUTH_CODES = new Set([
  '28P01',
  '28000',
  'ER_ACCESS_DENIED_ERROR',
  'ER_DBACCESS_DENIED_ERROR',
]);
const NOT_MIGRATED_ERRNOS = new Set([1146]);
const AUTH_ERRNOS = new Set([1044, 1045]);
const AUTH_MESSAGE =
  /^(NOAUTH|WRONGPASS)\b|etcdserver: (authentication failed|invalid auth token|user name (is empty|not found))/;

/** What a driver error says about its cause: 'not-migrated', 'auth' or null (anything else). */
export function storeFailureKind(error: unknown): 'not-migrated' | 'auth' | null {
  const seen = new Set<unknown>();
  for (let e = error; e !== null && typeof e === 'object' && !seen.has(e); ) {
    seen.add(e);
    const { code, errno, message } = e as { code?: unknown; errno?: unknown; message?: unknown };
    if (NOT_MIGRATED_CODES.has(String(code)) || NOT_MIGRATED_ERRNOS.has(Number(errno))) {
      return 'not-migrated';
    }
    if (AUTH_CODES.has(String(code)) || AUTH_ERRNOS.has(Number(errno))) return 'auth';
    if (typeof message === 'string') {
      if (code === 'SQLITE_ERROR' && /^no such table\b/.test(message)) return 'not-migrated';
      if (AUTH_MESSAGE.test(message)) return 'auth';
    }
    e = (e as { cause?: unknown }).cause;
  }
  return null;
}

/**
 * The typed error for `cause`, a failure of `operation` on the store at `address`: the idforge
 * error itself when it is one, else by {@link storeFailureKind}.
 */
export function storeError(
  backend: string,
  address: string,
  operation: string,
  cause: unknown,
): IdforgeError {
  if (cause instanceof IdforgeError) return cause;
  switch (storeFailureKind(cause)) {
    case 'not-migrated':
      return new StoreNotMigratedError(backend, address, operation, cause);
    case 'auth':
      return new StoreAuthError(backend, address, operation, cause);
    default:
      return new StoreUnavailableError(backend, address, operation, cause);
  }
}
