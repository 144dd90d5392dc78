/**
 * What the MariaDB/MySQL adapters know of their backend without the registry (backend.ts,
 * `BackendRules`): its schemes, and what mysql2's error codes mean.
 */
import type { BackendRules, Classify } from '../backend.js';
import type { CallSite } from '../store-error.js';

export const mysqlRules: BackendRules = { name: 'mysql', aliases: ['mariadb'] };

export const classifyMysql: Classify = ({ code, errno }) => {
  // ER_NO_SUCH_TABLE 1146; ER_DBACCESS_DENIED_ERROR 1044, ER_ACCESS_DENIED_ERROR 1045.
  if (code === 'ER_NO_SUCH_TABLE' || Number(errno) === 1146) return 'not-migrated';
  // ER_BAD_DB_ERROR 1049: the URL's database does not exist on the server.
  if (code === 'ER_BAD_DB_ERROR' || Number(errno) === 1049) return 'no-database';
  if (code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR') return 'auth';
  return Number(errno) === 1044 || Number(errno) === 1045 ? 'auth' : null;
};

/** A call to the mysql store at `address` (redacted), for its errors. */
export function mysqlSite(address: string): CallSite {
  return { backend: mysqlRules.name, address, classify: classifyMysql };
}
