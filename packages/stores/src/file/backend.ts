/**
 * A JSON file (no driver): leases and marks for a node without a coordination service, on one
 * host (atomic rename, fsync, an advisory lock file).
 */
import { existsSync } from 'node:fs';
import { type Backend, serverOptions } from '../backend.js';
import { fileRules } from './rules.js';

export const fileBackend: Backend = {
  ...fileRules,
  title: 'a file',
  form: 'file:PATH',
  drivers: [],
  open: {
    leases: async (url, options) => {
      const { openFileLeaseStore } = await import('./lease-store.js');
      const { parseFileUrl } = await import('./connect.js');
      const { path } = parseFileUrl(url, options.namespace);
      const existed = existsSync(path);
      const store = await openFileLeaseStore(url, {
        ...serverOptions(options),
        create: options.create ?? true,
      });
      if (options.autoMigrate ?? true) {
        await store.migrate();
        if (!existed && existsSync(path)) options.onCreate?.(path);
      }
      return store;
    },
  },
};
