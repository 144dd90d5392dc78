/** PostgreSQL (pg): leases, segments, counter marks and ticket servers; bench, backfill and SQL functions. */
import { type Backend, serverOptions } from '../backend.js';

const NOT_MIGRATED = new Set(['42P01', '3F000']); // undefined_table, invalid_schema_name
const AUTH = new Set(['28P01', '28000']); // invalid_password, invalid_authorization_specification
const NO_DATABASE = '3D000'; // invalid_catalog_name: the URL's database does not exist

export const postgresBackend: Backend = {
  name: 'postgres',
  aliases: ['postgresql'],
  title: 'PostgreSQL',
  form: 'postgres://...',
  drivers: ['pg'],
  url: { toleratesStrayPercent: true },
  open: {
    leases: async (url, options) =>
      (await import('./lease-store.js')).openPostgresLeaseStore(url, serverOptions(options)),
    segments: async (url, options) =>
      (await import('./segment-store.js')).openPostgresSegmentStore(url, serverOptions(options)),
    marks: async (url, options) =>
      (await import('./mark-store.js')).openPostgresMarkStore(url, serverOptions(options)),
    tickets: async (url, options) =>
      (await import('./ticket-server.js')).openPostgresTicketServer(url, options),
    bench: async (url) => (await import('./bench-engine.js')).openPostgresBenchEngine(url),
    backfill: async (url) => (await import('./backfill-target.js')).openPostgresBackfillTarget(url),
    sql: async (url) => (await import('./sql-functions.js')).openPostgresSqlFunctions(url),
  },
  classify: ({ code }) =>
    NOT_MIGRATED.has(String(code))
      ? 'not-migrated'
      : AUTH.has(String(code))
        ? 'auth'
        : code === NO_DATABASE
          ? 'no-database'
          : null,
};
