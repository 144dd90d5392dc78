/** Redis (ioredis): leases, and counters whose blocks are guarded by durable marks elsewhere. */
import { type Backend, CONNECT_TIMEOUT_MS, withNamespace } from '../backend.js';

const base = (options: { connectTimeoutMs?: number; namespace?: string }) =>
  withNamespace({ connectTimeoutMs: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS }, options);

export const redisBackend: Backend = {
  name: 'redis',
  shownSchemes: ['rediss'],
  title: 'Redis',
  form: 'redis://...',
  drivers: ['ioredis'],
  url: { loneUserIsSecret: true },
  open: {
    leases: async (url, options) =>
      (await import('./lease-store.js')).openRedisLeaseStore(url, base(options)),
    counters: async (url, options) =>
      (await import('./counter-store.js')).openRedisCounterStore(url, base(options)),
  },
  classify: ({ message }) =>
    typeof message === 'string' && /^(NOAUTH|WRONGPASS)\b/.test(message) ? 'auth' : null,
};
