/** etcd v3 (etcd3): leases, with the clock check against a live peer (etcd has no clock). */
import { type Backend, serverOptions } from '../backend.js';

const AUTH =
  /etcdserver: (authentication failed|invalid auth token|user name (is empty|not found))/;

export const etcdBackend: Backend = {
  name: 'etcd',
  title: 'etcd',
  form: 'etcd://host:port',
  drivers: ['etcd3'],
  url: { memberList: true },
  open: {
    leases: async (url, options) =>
      (await import('./lease-store.js')).openEtcdLeaseStore(url, serverOptions(options)),
  },
  classify: ({ message }) => (typeof message === 'string' && AUTH.test(message) ? 'auth' : null),
};
