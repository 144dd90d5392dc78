/** Redis (ioredis): leases, and counters whose blocks are guarded by durable marks elsewhere. */
import { type Backend, serverOptions } from '../backend.js';
import { redisRules } from './rules.js';

export const redisBackend: Backend = {
  ...redisRules,
  title: 'Redis',
  form: 'redis://...',
  drivers: ['ioredis'],
  open: {
    leases: async (url, options) =>
      (await import('./lease-store.js')).openRedisLeaseStore(url, serverOptions(options)),
    counters: async (url, options) =>
      (await import('./counter-store.js')).openRedisCounterStore(url, serverOptions(options)),
  },
};
