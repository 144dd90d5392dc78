/**
 * The file store's URL, `file:PATH[?namespace=NAME]`: `file:./idforge-marks.json`
 * (relative to the working directory at open), `file:/var/lib/idforge/marks.json`, or the
 * standard `file:///var/lib/idforge/marks.json` (percent-decoded). The file is created by
 * `migrate()` or the first change; its directory must exist. Beside it live `PATH.lock`,
 * `PATH.lock.break` (for moments) and `PATH.tmp`.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { redactOwnUrl } from '../redact.js';
import { fileRules } from './rules.js';

/** Options of openFileLeaseStore (lease-store.ts). */
export interface FileStoreOptions {
  /** Open a missing file (created by `migrate()` or the first change). Default true; false: `StorePathError`. */
  readonly create?: boolean;
  /**
   * Bound on waiting for the file's lock, in ms, at open and in every later call (a change holds
   * the lock for one read and one fsynced write). Default 5000.
   */
  readonly connectTimeoutMs?: number;
  /**
   * Key of this store's state inside the file, so that fleets or test runs can share one file.
   * Takes precedence over the URL's `?namespace=`; default `idforge`. Letters, digits, `_`, `-`
   * and `.` only.
   */
  readonly namespace?: string;
}

/** A lock older than this is stale whatever its holder (a holder keeps it for milliseconds). */
export const STALE_LOCK_MS = 30_000;

const NAMESPACE = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * The absolute path and the namespace of a `file:` URL. Throws `RangeError` for another scheme,
 * an empty path, a `file://HOST/` URL naming another host, or a malformed namespace.
 */
export function parseFileUrl(
  url: string,
  namespaceOption: string | undefined,
): { readonly path: string; readonly namespace: string } {
  if (!/^file:/i.test(url)) {
    throw new RangeError(`store URL: expected file:PATH, got "${redactOwnUrl(url, fileRules)}"`);
  }
  const rest = url.slice('file:'.length);
  const q = rest.indexOf('?');
  const pathPart = q < 0 ? rest : rest.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : rest.slice(q + 1));
  let path = pathPart;
  if (pathPart.startsWith('//')) {
    try {
      path = fileURLToPath(`file:${pathPart}`);
    } catch (error) {
      throw new RangeError(
        `store URL: expected file:PATH or file:///PATH on this host, got "${redactOwnUrl(url, fileRules)}" (${(error as Error).message})`,
      );
    }
  }
  if (path === '')
    throw new RangeError(`store URL: expected file:PATH, got "${redactOwnUrl(url, fileRules)}"`);
  const namespace = namespaceOption ?? query.get('namespace') ?? 'idforge';
  if (!NAMESPACE.test(namespace)) {
    throw new RangeError(
      `store namespace: expected 1 to 100 of A-Z a-z 0-9 _ - ., got "${namespace}"`,
    );
  }
  return { path: resolve(path), namespace };
}
