/**
 * {@link CounterStore} on Redis (ioredis): one counter per key, `P counter:<key>` under the
 * namespace prefix P (`NAME:`), a plain Redis integer without TTL.
 *
 * - `incrBy` is INCRBY, one round trip, atomic on the server;
 * - `raiseTo` is one Lua script (max(current, value)), so it never lowers a counter that
 *   another process moved past `value` in the meantime.
 *
 * Every value travels as a decimal string (ioredis `stringNumbers`, and string comparison in
 * the script): Lua numbers and JavaScript numbers are doubles, exact only below 2^53, and a
 * counter may go up to 2^63 - 1.
 *
 * Durability is NOT this store's business: a Redis without persistence (or a FLUSHALL) loses
 * the counter, and INCRBY then starts again at 0. The caller checks every block against a
 * durable high-water mark before serving it (packages/idforge/src/sequences/counter-source.ts).
 *
 * The client fails fast (no offline queue, no resend of a command in flight, a bounded
 * command timeout: see ./connect.ts), so a down or silent Redis rejects with
 * `StoreUnavailableError` instead of hanging. A resent INCRBY would only waste a block, but a
 * queued one would wait without bound. Safe to share within a process.
 */
import { createHash } from 'node:crypto';
import type { CounterStore } from 'idforge/sequences';
import {
  assertTag,
  MAX_SEQUENCE_VALUE,
  SequenceExhaustedError,
  TagExistsError,
} from 'idforge/sequences';
import type { Redis } from 'ioredis';
import { OWNED, type Ownership } from '../owned.js';
import { storeError } from '../store-error.js';
import type { RedisClientOptions, RedisStoreOptions } from './connect.js';
import { redisSite } from './rules.js';
import { openRedisStore, RedisStore } from './store.js';

/** The largest value of a Redis integer and of a sequence number. */

/** Largest INCRBY step accepted: a block size, far below Redis's 64-bit limit. */
const MAX_STEP = Number.MAX_SAFE_INTEGER;

/**
 * KEYS: counter. ARGV: value (a canonical decimal integer in [0, 2^63 - 1]). Sets the counter
 * to the value unless it already holds more; returns the counter afterwards, as a string.
 * Compares canonical decimal strings (a negative one is smaller; else the shorter; else by
 * characters) so that no value passes through a double. Rejects a counter that does not
 * hold a canonical integer (as INCRBY does).
 */
const RAISE_SOURCE = `
local function canonical(s)
  return s == '0' or string.match(s, '^%-?[1-9]%d*$') ~= nil
end
local function less(a, b)
  if string.sub(a, 1, 1) == '-' then return true end
  if #a ~= #b then return #a < #b end
  return a < b
end
local cur = redis.call('GET', KEYS[1])
if cur and not canonical(cur) then
  return redis.error_reply('ERR counter ' .. KEYS[1] .. ' does not hold an integer')
end
if (not cur) or less(cur, ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
  return ARGV[1]
end
return cur
`;
const RAISE_SHA = createHash('sha1').update(RAISE_SOURCE).digest('hex');

/** The integer Redis returned (a string, with `stringNumbers`), exactly. */
function int(reply: unknown): bigint {
  if (typeof reply === 'string' && /^-?\d+$/.test(reply)) return BigInt(reply);
  if (typeof reply === 'number' && Number.isSafeInteger(reply)) return BigInt(reply);
  throw new TypeError(`expected an integer reply, got ${String(reply)}`);
}

function overflow(error: unknown): boolean {
  return error instanceof Error && /overflow/i.test(error.message);
}

/**
 * The counter store on Redis (an ioredis client with `stringNumbers`). Two ways to build it, as
 * every idforge store: on the application's own client, `new RedisCounterStore({ client, namespace
 * })`, which `close()` leaves open (the caller closes it); or from a URL with {@link
 * openRedisCounterStore}, whose client the store opened and `close()` closes.
 */
export class RedisCounterStore extends RedisStore implements CounterStore {
  readonly #redis: Redis;

  /**
   * A store on `options.client`, the caller's (see {@link RedisClientOptions}): `close()`
   * leaves that client connected, unless the store's opener made it. Keys start with the
   * namespace and ':' (`NAME:`). Throws `RangeError` for a malformed namespace.
   */
  constructor(options: RedisClientOptions & Ownership) {
    if (options[OWNED] !== true && options.client.options?.stringNumbers !== true) {
      throw new RangeError(
        'client: expected an ioredis client created with stringNumbers: true, got one without',
      );
    }
    super(options);
    this.#redis = options.client as Redis; // an ioredis client: its own type inside (driver-types.ts)
  }

  /** The Redis key of the counter of `tag`. Throws `RangeError` for a malformed tag (sequences/tag.ts). */
  keyOf(tag: string): string {
    return `${this.prefix}counter:${assertTag(tag)}`;
  }

  /**
   * INCRBY: adds `by` (a positive safe integer) and returns the new value. Rejects with
   * `SequenceExhaustedError` when the sum would pass 2^63 - 1 (Redis refuses and nothing is
   * added), `StoreUnavailableError` ('incrBy') on any other failure.
   */
  async incrBy(tag: string, by: number): Promise<bigint> {
    const k = this.keyOf(tag);
    if (!Number.isSafeInteger(by) || by < 1 || by > MAX_STEP) {
      throw new RangeError(`incrBy by: expected a positive safe integer, got ${by}`);
    }
    try {
      return int(await this.#redis.incrby(k, by));
    } catch (error) {
      if (overflow(error)) throw new SequenceExhaustedError(tag, await this.#current(k));
      throw storeError(redisSite(this.address), 'incrBy', error);
    }
  }

  /**
   * Raises the counter to at least `value` (an integer in [0, 2^63 - 1]) and returns what it
   * holds afterwards; never lowers it. Rejects with `StoreUnavailableError` ('raiseTo').
   */
  async raiseTo(tag: string, value: bigint): Promise<bigint> {
    const k = this.keyOf(tag);
    if (typeof value !== 'bigint' || value < 0n || value > MAX_SEQUENCE_VALUE) {
      throw new RangeError(`raiseTo value: expected a bigint in [0, 2^63 - 1], got ${value}`);
    }
    const v = value.toString();
    try {
      try {
        return int(await this.#redis.evalsha(RAISE_SHA, 1, k, v));
      } catch (error) {
        if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
        return int(await this.#redis.eval(RAISE_SOURCE, 1, k, v));
      }
    } catch (error) {
      throw storeError(redisSite(this.address), 'raiseTo', error);
    }
  }

  /**
   * Creates the counter of `tag` holding `value` (an integer in [0, 2^63 - 1]; the next block
   * starts above it) unless it exists (SET NX, atomic); returns `value`. Rejects with
   * `TagExistsError` when it exists, leaving it unchanged (as a table store refuses an existing
   * tag), `StoreUnavailableError` ('create') on any other failure.
   */
  async create(tag: string, value: bigint): Promise<bigint> {
    const k = this.keyOf(tag);
    if (typeof value !== 'bigint' || value < 0n || value > MAX_SEQUENCE_VALUE) {
      throw new RangeError(`create value: expected a bigint in [0, 2^63 - 1], got ${value}`);
    }
    let reply: unknown;
    try {
      reply = await this.#redis.set(k, value.toString(), 'NX');
    } catch (error) {
      throw storeError(redisSite(this.address), 'create', error);
    }
    if (reply === null) throw new TagExistsError(tag);
    return value;
  }

  /** The counter's value for an error message; the limit itself when it cannot be read. */
  async #current(k: string): Promise<bigint> {
    try {
      return int(await this.#redis.get(k));
    } catch {
      return MAX_SEQUENCE_VALUE;
    }
  }
}

/**
 * Opens the counter store of a `redis://host:port[/db][?namespace=NAME]` URL (namespace: the
 * key prefix, default `idforge`; the option wins over the URL). Nothing to migrate: the
 * script is sent on first use. Rejects with `RangeError` for a malformed URL, namespace or
 * timeout, `StoreUnavailableError` ('connect') when Redis does not answer PING within
 * `connectTimeoutMs` (default 5000, also the bound on every command).
 */
export function openRedisCounterStore(
  url: string,
  options: RedisStoreOptions = {},
): Promise<RedisCounterStore> {
  return openRedisStore(RedisCounterStore, url, options, { stringNumbers: true });
}
