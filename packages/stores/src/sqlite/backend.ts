/**
 * SQLite (better-sqlite3): the embedded default. One file holds leases, marks and segments; a
 * missing file is created unless `create: false`, and its tables with it unless
 * `autoMigrate: false`.
 */
import {
  type Backend,
  CONNECT_TIMEOUT_MS,
  fileOptions,
  type OpenStoreOptions,
  serverOptions,
  withNamespace,
} from '../backend.js';
import { sqliteRules } from './rules.js';

const timeout = (options: OpenStoreOptions) => options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;

export const sqliteBackend: Backend = {
  ...sqliteRules,
  title: 'SQLite',
  form: 'sqlite:PATH',
  drivers: ['better-sqlite3'],
  open: {
    leases: async (url, options) => {
      const { openSqliteLeaseStore } = await import('./lease-store.js');
      return openSqliteLeaseStore(url, { ...options, connectTimeoutMs: timeout(options) });
    },
    segments: async (url, options) => {
      const { openSqliteSegmentStore } = await import('./segment-store.js');
      const store = await openSqliteSegmentStore(url, {
        ...serverOptions(options),
        ...fileOptions(options),
      });
      if (options.autoMigrate ?? true) await store.migrate();
      return store;
    },
    marks: async (url, options) => {
      const { openSqliteMarkStore } = await import('./mark-store.js');
      return openSqliteMarkStore(
        url,
        withNamespace(
          {
            busyTimeoutMs: timeout(options),
            autoMigrate: options.autoMigrate ?? true,
            ...fileOptions(options),
          },
          options,
        ),
      );
    },
    bench: async (url) => (await import('./bench-engine.js')).openSqliteBenchEngine(url),
    backfill: async (url) => (await import('./backfill-target.js')).openSqliteBackfillTarget(url),
  },
  refusals: {
    sql:
      'SQLite has no stored functions, so nothing can be installed in the file: register them ' +
      'on each connection your application opens with registerIdforgeFunctions(db, { layout, ' +
      'node }) from @idforge/stores (docs/in-database.md)',
  },
};
