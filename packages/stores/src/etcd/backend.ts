/** etcd v3 (etcd3): leases, with the clock check against a live peer (etcd has no clock). */
import { type Backend, serverOptions } from '../backend.js';
import { etcdRules } from './rules.js';

export const etcdBackend: Backend = {
  ...etcdRules,
  title: 'etcd',
  form: 'etcd://host:port',
  drivers: ['etcd3'],
  open: {
    leases: async (url, options) =>
      (await import('./lease-store.js')).openEtcdLeaseStore(url, serverOptions(options)),
  },
};
