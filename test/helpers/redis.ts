// A short-lived client of a real Redis, for a test that sets up or inspects keys beside the
// store under test (its own connection, closed after, so the store's is never borrowed); and a
// Redis of a test's own, for what would change the shared server as a whole.
import type { TestContext } from 'node:test';
import { Redis } from 'ioredis';
import { freePort, ownServer } from './server.js';

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

/**
 * A Redis for the test `t` alone, stopped and its directory deleted when the test ends
 * (scripts/services/redis.sh start --no-persist, on a port from the OS): for a test that
 * changes the whole server, such as its script cache (SCRIPT FLUSH), which the shared Redis
 * on 6379 must never see, as other test files use it at the same time. Resolves with its URL.
 */
export async function ownRedis(t: TestContext): Promise<string> {
  const port = await freePort();
  const server = ownServer('redis', port, ['--no-persist']);
  t.after(() => server.stop(false, true));
  await server.start();
  return `redis://127.0.0.1:${port}`;
}

/** How many scripts the server at `url` holds (INFO memory): on a Redis of the test's own. */
export async function cachedScripts(url: string): Promise<number> {
  const info = await withRedis(url, (r) => r.info('memory'));
  const count = /^number_of_cached_scripts:(\d+)/m.exec(info)?.[1];
  if (count === undefined) throw new Error(`no number_of_cached_scripts in INFO memory:\n${info}`);
  return Number(count);
}
