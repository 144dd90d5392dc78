/**
 * Loading a driver when its backend is first used. pg, mysql2, ioredis and etcd3 are optional
 * peer dependencies: `import 'idforge/stores'` loads none of them, and an application installs
 * only the ones its URLs need. A driver that is not installed becomes `DriverMissingError`
 * naming the package, instead of Node's ERR_MODULE_NOT_FOUND from deep inside idforge.
 */
import { DriverMissingError } from '../core/index.js';

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
