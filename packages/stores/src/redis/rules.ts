/**
 * What the Redis adapters know of their backend without the registry (backend.ts,
 * `BackendRules`): its schemes, how ioredis reads a URL, which of its errors are refused
 * credentials.
 */
import type { BackendRules, Classify } from '../backend.js';
import type { CallSite } from '../store-error.js';

export const redisRules: BackendRules = {
  name: 'redis',
  shownSchemes: ['rediss'],
  url: { loneUserIsSecret: true },
};

export const classifyRedis: Classify = ({ message }) =>
  typeof message === 'string' && /^(NOAUTH|WRONGPASS)\b/.test(message) ? 'auth' : null;

/** A call to the redis store at `address` (redacted), for its errors. */
export function redisSite(address: string): CallSite {
  return { backend: redisRules.name, address, classify: classifyRedis };
}
