/** Redis (ioredis): leases, and counters whose blocks are guarded by durable marks elsewhere. */
import { type Backend, serverOptions } from '../backend.js';

export const redisBackend: Backend = {
  name: 'redis',
  shownSchemes: ['rediss'],
  title: 'Redis',
  form: 'redis://...',
  drivers: ['ioredis'],
  url: { loneUserIsSecret: true },
  open: {
    leases: async (url, options) =>
      (await import('./lease-store.js')).openRedisLeaseStore(url, serverOptions(options)),
    counters: async (url, options) =>
      (await import('./counter-store.js')).openRedisCounterStore(url, serverOptions(options)),
  },
  classify: ({ message }) =>
    typeof message === 'string' && /^(NOAUTH|WRONGPASS)\b/.test(message) ? 'auth' : null,
};
