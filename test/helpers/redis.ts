// A short-lived client of a real Redis, for a test that sets up or inspects keys beside the
// store under test (its own connection, closed after, so the store's is never borrowed).
import { Redis } from 'ioredis';

/** Runs `fn` on a new connection to `url`, disconnected after (also when `fn` throws). */
export async function withRedis<T>(url: string, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  await redis.connect();
  try {
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}
