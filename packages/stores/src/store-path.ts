/**
 * The path of a store that is a file (`sqlite:PATH`, `file:PATH`): whether opening it may
 * create it, who is told when it did, and why a path cannot be used (`StorePathError`).
 * A typo in `--store sqlite:PATH` must not silently start a second, empty fleet: read-only
 * callers pass `create: false`, the others learn of a new file through `onCreate`.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StorePathError } from './errors.js';

/** Options of the stores kept in a file (sqlite:, file:). */
export interface StoreFileOptions {
  /**
   * Create the file when it is missing. Default true. With false a missing file rejects with
   * `StorePathError` (reason 'missing') and nothing is written: for read-only commands.
   */
  readonly create?: boolean;
  /** Told the absolute path when this open created the file: a new, empty store. */
  readonly onCreate?: (path: string) => void;
}

const code = (e: unknown) => (e as { code?: unknown } | null)?.code;

/** Not a file of the file system: SQLite's in-memory and temporary databases. */
export function isInMemory(path: string): boolean {
  return path === ':memory:' || path === '' || path.startsWith('file::memory:');
}

/**
 * Checks `path` before opening: resolves whether the file exists already. Throws
 * `StorePathError` when it is a directory, its directory is missing, it cannot be looked at,
 * or it is missing and `create` is false.
 */
export function checkStorePath(backend: string, path: string, create: boolean): boolean {
  const full = resolve(path);
  try {
    if (statSync(full).isDirectory()) throw new StorePathError(backend, full, 'not-a-file');
    return true;
  } catch (error) {
    if (error instanceof StorePathError) throw error;
    if (code(error) === 'EACCES') throw new StorePathError(backend, full, 'permission', error);
    if (code(error) !== 'ENOENT' && code(error) !== 'ENOTDIR') throw error;
  }
  let dirOk = false;
  try {
    dirOk = statSync(dirname(full)).isDirectory();
  } catch (error) {
    if (code(error) === 'EACCES') throw new StorePathError(backend, full, 'permission', error);
  }
  if (!dirOk) throw new StorePathError(backend, full, 'no-directory');
  if (!create) throw new StorePathError(backend, full, 'missing');
  return false;
}

/**
 * Why a file that passed {@link checkStorePath} still could not be opened, or null when it is
 * not the path's fault: no permission on the file or its directory, or not a database.
 */
export function storePathFailure(
  backend: string,
  path: string,
  cause: unknown,
): StorePathError | null {
  const full = resolve(path);
  if (code(cause) === 'SQLITE_NOTADB')
    return new StorePathError(backend, full, 'not-a-store', cause);
  if (code(cause) === 'EACCES' || code(cause) === 'EPERM') {
    return new StorePathError(backend, full, 'permission', cause);
  }
  if (code(cause) === 'SQLITE_CANTOPEN' || code(cause) === 'SQLITE_READONLY') {
    try {
      accessSync(full, constants.R_OK | constants.W_OK);
      accessSync(dirname(full), constants.W_OK);
    } catch (error) {
      return new StorePathError(backend, full, 'permission', cause ?? error);
    }
  }
  return null;
}
