/**
 * Loading a driver when its backend is first used. pg, mysql2, ioredis, etcd3, better-sqlite3
 * and classic-level are optional peer dependencies: `import '@idforge/stores'` loads none of
 * them, and an application installs only the ones its URLs need. A driver that is not
 * installed becomes `DriverMissingError` naming the package, instead of Node's
 * ERR_MODULE_NOT_FOUND from deep inside idforge.
 */
import { DriverBindingError, DriverMissingError } from './errors.js';

/**
 * Resolves the module `load` imports; rejects with `DriverMissingError` (driver `pkg`, store
 * `backend`) when that package is not installed, and with the import's own error otherwise.
 */
export async function loadDriver<T>(
  pkg: string,
  backend: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissing(error, pkg)) throw new DriverMissingError(pkg, backend, error);
    throw error;
  }
}

/** Node's "Cannot find package 'pg' imported from ..." (ESM) or "Cannot find module 'pg'". */
function isMissing(error: unknown, pkg: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  const message = error instanceof Error ? error.message : '';
  return message.includes(`'${pkg}'`) || message.includes(`'${pkg}/`);
}

/**
 * The error of a native binding that cannot be loaded, or null for any other error:
 * `bindings`' "Could not locate the bindings file" (never built), Node's ERR_DLOPEN_FAILED
 * (built for another Node.js, a missing shared library) or a `.node` file that is not there.
 * The message carries the cause's first line only, not the paths `bindings` tried.
 */
export function bindingFailure(
  pkg: string,
  backend: string,
  error: unknown,
): DriverBindingError | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  const first = (error.message.split('\n')[0] ?? '').replace(/\s*Tried:$/, '').trim();
  const binding =
    error.message.startsWith('Could not locate the bindings file') ||
    code === 'ERR_DLOPEN_FAILED' ||
    (code === 'MODULE_NOT_FOUND' && /\.node'/.test(first));
  return binding ? new DriverBindingError(pkg, backend, first, error) : null;
}
