/** Redis connections for the idforge stores (ioredis), from `redis://host:port[/db][?namespace=NAME]` URLs. */
import { loadDriver } from '../driver.js';
import type { RedisClient } from '../driver-types.js';
import { redactOwnUrl, type ServerUrlForm, splitServerUrl } from '../redact.js';
import { storeError } from '../store-error.js';
import { redisRules, redisSite } from './rules.js';

/** Options of the Redis stores' `open…` functions. */
export interface RedisStoreOptions {
  /**
   * Bound on connecting (TCP connect and Redis's ready check) and on every command's reply,
   * in ms. Default 5000.
   */
  readonly connectTimeoutMs?: number;
  /**
   * Key prefix (`NAME:`) that isolates fleets and test runs on one server. Takes precedence
   * over the URL's `?namespace=`; default `idforge`. Letters, digits, `_`, `-` and `.` only.
   */
  readonly namespace?: string;
}

const NAMESPACE = /^[A-Za-z0-9_.-]{1,100}$/;

/** Checks a Redis key-prefix namespace; returns the prefix `NAME:`. */
export function redisPrefix(namespace: string): string {
  if (typeof namespace !== 'string' || !NAMESPACE.test(namespace)) {
    throw new RangeError(
      `store namespace: expected 1 to 100 of A-Z a-z 0-9 _ - ., got "${String(namespace)}"`,
    );
  }
  return `${namespace}:`;
}

/**
 * What a Redis store is built from when the application has its own ioredis client:
 * `new RedisLeaseStore({ client, namespace })`. The store never quits that client; the
 * application does, after `store.close()`. For the fail-fast behaviour of the stores idforge
 * opens, create it with `enableOfflineQueue: false`, `maxRetriesPerRequest: 0` and
 * `autoResendUnfulfilledCommands: false` (a resent acquire could take a second worker ID);
 * the counter store needs `stringNumbers: true` and refuses a client without it.
 */
export interface RedisClientOptions {
  /** The caller's ioredis client (see {@link RedisClient}). */
  readonly client: RedisClient;
  /** The key prefix `NAME:`. Default `idforge`. */
  readonly namespace?: string;
  /** How the store names the server in errors. Default "redis (the caller's client)". */
  readonly address?: string;
}

const REDIS_URL: ServerUrlForm = {
  rules: redisRules,
  form: 'redis://host:port[/db]',
  schemes: 'redis:// or rediss://',
};

/** The namespace and the URL ioredis should see (without `namespace`, which it would misread). */
export function parseRedisUrl(
  url: string,
  namespaceOption: string | undefined,
): { readonly url: string; readonly namespace: string } {
  const { parsed, namespace: fromUrl } = splitServerUrl(url, REDIS_URL);
  const namespace = namespaceOption ?? fromUrl ?? 'idforge';
  if (!NAMESPACE.test(namespace)) {
    throw new RangeError(
      `store namespace: expected 1 to 100 of A-Z a-z 0-9 _ - ., got "${namespace}"`,
    );
  }
  return { url: parsed.toString(), namespace };
}

/** A connected, answering client, its redacted address and its key prefix (`NAME:`). */
export interface RedisConnection {
  readonly redis: RedisClient;
  readonly address: string;
  readonly prefix: string;
}

/**
 * Connects a fail-fast client (see openRedisLeaseStore in lease-store.ts) and checks it answers PING
 * within `connectTimeoutMs`; `extra` adds ioredis options (the counter store asks for
 * `stringNumbers`). Throws and rejects as openRedisLeaseStore does (lease-store.ts).
 */
export async function connectRedis(
  url: string,
  options: RedisStoreOptions,
  extra: { readonly stringNumbers?: boolean } = {},
): Promise<RedisConnection> {
  const address = redactOwnUrl(url, redisRules);
  const timeoutMs = options.connectTimeoutMs ?? 5000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`connectTimeoutMs: expected a positive integer, got ${timeoutMs}`);
  }
  const target = parseRedisUrl(url, options.namespace);
  const { Redis } = await loadDriver('ioredis', 'redis', () => import('ioredis'));
  const redis = new Redis(target.url, {
    ...extra,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    // Reconnects back off (jittered, 50 ms doubling to 0.5-1 s), so a restarted Redis is used
    // again within about a second; ioredis's default grows by 50 ms a try up to 2 s.
    retryStrategy: (times: number) => {
      const step = Math.min(50 * 2 ** Math.min(times - 1, 5), 1000);
      return step / 2 + Math.random() * (step / 2);
    },
    protocol: 2,
  });
  let lastError: unknown = null;
  // Without a listener ioredis prints every connection error; the store reports them instead.
  redis.on('error', (error: unknown) => {
    lastError = error;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${timeoutMs} ms (connectTimeoutMs)`)),
        timeoutMs,
      );
    });
    const ready = redis.connect().then(() => redis.ping());
    ready.catch(() => {}); // settled by the race; a later rejection must not go unhandled
    await Promise.race([ready, timeout]);
  } catch (error) {
    redis.disconnect();
    const cause = lastError instanceof Error ? lastError : error;
    throw storeError(redisSite(address), 'connect', cause);
  } finally {
    clearTimeout(timer);
  }
  return { redis, address, prefix: `${target.namespace}:` };
}

/**
 * Closes a client the store opened: QUIT when connected (replies in flight arrive first), else
 * drops the socket. A store built on the caller's client never calls this.
 */
export async function quitRedis(redis: RedisClient): Promise<void> {
  if (redis.status === 'ready') {
    try {
      await redis.quit();
      return;
    } catch {
      // fall through: drop the socket
    }
  }
  redis.disconnect();
}
