/**
 * What the Redis stores (leases, counters) share: how one is built on an ioredis client, how
 * it closes, and how its opener hands it a client of its own. Each store adds only its keys,
 * its scripts and its methods.
 */
import type { RedisClient } from '../driver-types.js';
import { callerAddress, OWNED, type Ownership } from '../owned.js';
import {
  connectRedis,
  quitRedis,
  type RedisClientOptions,
  type RedisStoreOptions,
  redisPrefix,
} from './connect.js';

/**
 * A Redis store on an ioredis client. Two ways to build one, as every idforge store: on the
 * application's own client (`new RedisLeaseStore({ client, namespace })`), which `close()`
 * leaves connected (the caller closes it); or from a URL with its `open…` function
 * ({@link openRedisStore}), whose client the store opened and `close()` closes.
 */
export abstract class RedisStore {
  readonly backend = 'redis';
  readonly address: string;
  readonly #client: RedisClient;
  readonly #owned: boolean;
  readonly #prefix: string;

  /**
   * A store on `options.client`, the caller's (see {@link RedisClientOptions}): `close()`
   * leaves that client connected, unless the store's opener made it. Keys start with the
   * namespace and ':' (`NAME:`). Throws `RangeError` for a malformed namespace.
   */
  constructor(options: RedisClientOptions & Ownership) {
    this.#client = options.client;
    this.address = callerAddress('redis', options.address);
    this.#prefix = redisPrefix(options.namespace ?? 'idforge');
    this.#owned = options[OWNED] === true;
  }

  /** The prefix of every key of the store: the namespace and ':' (`NAME:`). */
  protected get prefix(): string {
    return this.#prefix;
  }

  /** Closes the connection (QUIT, or a plain disconnect when it is down). Never rejects. */
  async close(): Promise<void> {
    if (this.#owned) await quitRedis(this.#client);
  }
}

/**
 * The opener of every Redis store: {@link connectRedis} (`extra` adds ioredis options), then
 * `Store` on that client with the namespace of the option, else the URL's; the store owns the
 * client (`close()` quits it). Throws and rejects as connectRedis does.
 */
export async function openRedisStore<S>(
  Store: new (options: RedisClientOptions & Ownership) => S,
  url: string,
  options: RedisStoreOptions,
  extra?: { readonly stringNumbers?: boolean },
): Promise<S> {
  const { redis, address, prefix } = await connectRedis(url, options, extra);
  return new Store({ client: redis, address, namespace: prefix.slice(0, -1), [OWNED]: true });
}
