/** MariaDB or MySQL (mysql2): segments and ticket servers; bench, backfill and SQL functions (MariaDB 10.10+). */
import { type Backend, serverOptions } from '../backend.js';

export const mysqlBackend: Backend = {
  name: 'mysql',
  aliases: ['mariadb'],
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
  classify: ({ code, errno }) => {
    // ER_NO_SUCH_TABLE 1146; ER_DBACCESS_DENIED_ERROR 1044, ER_ACCESS_DENIED_ERROR 1045.
    if (code === 'ER_NO_SUCH_TABLE' || Number(errno) === 1146) return 'not-migrated';
    // ER_BAD_DB_ERROR 1049: the URL's database does not exist on the server.
    if (code === 'ER_BAD_DB_ERROR' || Number(errno) === 1049) return 'no-database';
    if (code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR') return 'auth';
    return Number(errno) === 1044 || Number(errno) === 1045 ? 'auth' : null;
  },
};
