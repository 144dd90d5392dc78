/** PostgreSQL (pg): leases, segments, counter marks and ticket servers; bench, backfill and SQL functions. */
import { type Backend, serverOptions } from '../backend.js';
import { postgresRules } from './rules.js';

export const postgresBackend: Backend = {
  ...postgresRules,
  title: 'PostgreSQL',
  form: 'postgres://...',
  drivers: ['pg'],
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
};
