/**
 * What the PostgreSQL adapters know of their backend without the registry (backend.ts,
 * `BackendRules`): its schemes, how node-postgres reads a URL, what its error codes mean.
 */
import type { BackendRules, Classify } from '../backend.js';
import type { CallSite } from '../store-error.js';

export const postgresRules: BackendRules = {
  name: 'postgres',
  aliases: ['postgresql'],
  url: { toleratesStrayPercent: true },
};

const NOT_MIGRATED = new Set(['42P01', '3F000']); // undefined_table, invalid_schema_name
const AUTH = new Set(['28P01', '28000']); // invalid_password, invalid_authorization_specification
const NO_DATABASE = '3D000'; // invalid_catalog_name: the URL's database does not exist

export const classifyPostgres: Classify = ({ code }) =>
  NOT_MIGRATED.has(String(code))
    ? 'not-migrated'
    : AUTH.has(String(code))
      ? 'auth'
      : code === NO_DATABASE
        ? 'no-database'
        : null;

/** A call to the postgres store at `address` (redacted), for its errors. */
export function postgresSite(address: string): CallSite {
  return { backend: postgresRules.name, address, classify: classifyPostgres };
}
