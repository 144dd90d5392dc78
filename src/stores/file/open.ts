/**
 * Opens the file lease store from a `file:PATH[?namespace=NAME]` URL: `file:./idforge-marks.json`
 * (relative to the working directory at open), `file:/var/lib/idforge/marks.json`, or the
 * standard `file:///var/lib/idforge/marks.json` (percent-decoded). The file is created by
 * `migrate()` or the first change; its directory must exist. Beside it live `PATH.lock`,
 * `PATH.lock.break` (for moments) and `PATH.tmp`.
 */
import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LeaseStore } from '../../coord/ports.js';
import { StoreUnavailableError } from '../../core/index.js';
import { redactUrl } from '../url.js';
import { FileLeaseStore } from './lease-store.js';
import { StateFile } from './state-file.js';

/** Options of {@link openFileLeaseStore}. */
export interface FileStoreOptions {
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
    throw new RangeError(`store URL: expected file:PATH, got "${redactUrl(url)}"`);
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
        `store URL: expected file:PATH or file:///PATH on this host, got "${redactUrl(url)}" (${(error as Error).message})`,
      );
    }
  }
  if (path === '') throw new RangeError(`store URL: expected file:PATH, got "${redactUrl(url)}"`);
  const namespace = namespaceOption ?? query.get('namespace') ?? 'idforge';
  if (!NAMESPACE.test(namespace)) {
    throw new RangeError(
      `store namespace: expected 1 to 100 of A-Z a-z 0-9 _ - ., got "${namespace}"`,
    );
  }
  return { path: resolve(path), namespace };
}

/**
 * Checks that the file's directory exists, that its lock can be taken within `connectTimeoutMs`
 * and that the file, if present, is an idforge file store; resolves a {@link LeaseStore} (not
 * yet migrated: `migrate()` creates the file, though any change would). Rejects with
 * `RangeError` for a malformed URL, namespace or timeout, and with `StoreUnavailableError`
 * ('file', the URL, 'connect') otherwise: missing directory, no permission, lock timeout, a
 * file that is not a store.
 */
export async function openFileLeaseStore(
  url: string,
  options: FileStoreOptions = {},
): Promise<LeaseStore> {
  const { path, namespace } = parseFileUrl(url, options.namespace);
  const timeoutMs = options.connectTimeoutMs ?? 5000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`connectTimeoutMs: expected a positive number, got ${timeoutMs}`);
  }
  const address = redactUrl(url);
  const file = new StateFile(path, { timeoutMs, staleMs: STALE_LOCK_MS });
  try {
    const dir = dirname(path);
    if (!statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
    await file.update(() => undefined);
  } catch (error) {
    throw new StoreUnavailableError('file', address, 'connect', error);
  }
  return new FileLeaseStore(file, address, namespace);
}
