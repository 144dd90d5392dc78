/** MariaDB or MySQL (mysql2): segments and ticket servers; bench, backfill and SQL functions (MariaDB 10.10+). */
import { type Backend, serverOptions } from '../backend.js';
import { mysqlRules } from './rules.js';

export const mysqlBackend: Backend = {
  ...mysqlRules,
  title: 'MariaDB/MySQL',
  form: 'mysql://...',
  drivers: ['mysql2'],
  open: {
    segments: async (url, options) =>
      (await import('./segment-store.js')).openMysqlSegmentStore(url, serverOptions(options)),
    tickets: async (url, options) =>
      (await import('./ticket-server.js')).openMysqlTicketServer(url, options),
    bench: async (url) => (await import('./bench-engine.js')).openMysqlBenchEngine(url),
    backfill: async (url) => (await import('./backfill-target.js')).openMysqlBackfillTarget(url),
    sql: async (url) => (await import('./sql-functions.js')).openMysqlSqlFunctions(url),
  },
};
