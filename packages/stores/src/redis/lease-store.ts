/**
 * {@link LeaseStore} on Redis (ioredis), for fleets of several hosts. Every key lives under the
 * namespace prefix `NAME:` (see ./scripts.ts for the key layout).
 *
 * Atomicity: acquire, renew, release and list are each one Lua script (./scripts.ts), and Redis
 * runs a script with no other command in between, so two processes can never both see a worker
 * ID free and both take it, nor renew a lease another has taken.
 *
 * Expiry is by the server's clock: a lease is a key with a PEXPIRE TTL, claims are scored by
 * `TIME` read inside the script, and `list` reports expiresAtMs as server time + PTTL. No client
 * clock is ever compared with a stored time.
 *
 * Durability, which decides what the marks protect:
 * - marks are keys without a TTL. A Redis without persistence (the default `save ""` and
 *   `appendonly no` of many installations) loses them when Redis restarts: a mark then protects
 *   a worker ID across restarts of the nodes but not across a restart of Redis. Run Redis with
 *   `appendonly yes` and `appendfsync everysec` (a mark may lose its last second of raises:
 *   nodes reserve further ahead than that) or `appendfsync always`;
 * - set `maxmemory-policy noeviction` (or a `volatile-*` policy): an `allkeys-*` policy may
 *   evict a mark, and any policy but noeviction may evict a live lease;
 * - replication is asynchronous: after a failover the new primary may lack a recent grant, so
 *   one worker ID can be granted twice. The claims (which every holder renews) let both holders
 *   see each other at their next renewal; use a single primary, or Sentinel with that in mind.
 *
 * Standalone Redis 5 or later; not Redis Cluster (the acquire script computes the keys it
 * scans, so they cannot be declared for slot routing). Safe to share within a process: ioredis
 * pipelines concurrent commands over one connection.
 */

import type {
  Lease,
  LeaseRecord,
  LeaseRequest,
  LeaseStore,
  RenewReport,
  RenewResult,
} from 'idforge/coord';
import type { Redis } from 'ioredis';
import { storeCall } from '../call.js';
import type { Ownership } from '../owned.js';
import type { RedisClientOptions, RedisStoreOptions } from './connect.js';
import { redisSite } from './rules.js';
import { ACQUIRE, LIST, type LuaScript, RELEASE, RENEW, SCRIPTS } from './scripts.js';
import { openRedisStore, RedisStore } from './store.js';

/** A number the store returned as a string or integer reply; false or null when absent. */
function nullableNumber(v: unknown): number | null {
  if (v === null || v === undefined || v === false) return null;
  const n = typeof v === 'string' || typeof v === 'number' ? Number(v) : Number.NaN;
  if (!Number.isFinite(n)) throw new TypeError(`expected a number in the reply, got "${v}"`);
  return n;
}

function requiredNumber(v: unknown): number {
  const n = nullableNumber(v);
  if (n === null) throw new TypeError('expected a number in the reply, got nothing');
  return n;
}

function requiredString(v: unknown): string {
  if (typeof v !== 'string') throw new TypeError(`expected a string in the reply, got ${v}`);
  return v;
}

function array(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new TypeError(`expected an array reply, got ${v}`);
  return v;
}

/** Integer arguments as exact decimal strings ('' for none). */
function arg(n: number | null): string {
  return n === null ? '' : n.toFixed(0);
}

/**
 * The lease store on Redis (an ioredis client). Two ways to build it, as every idforge store: on
 * the application's own client, `new RedisLeaseStore({ client, namespace })`, which `close()`
 * leaves open (the caller closes it); or from a URL with {@link openRedisLeaseStore}, whose client
 * the store opened and `close()` closes.
 */
export class RedisLeaseStore extends RedisStore implements LeaseStore {
  readonly #redis: Redis;

  /**
   * A store on `options.client`, the caller's (see {@link RedisClientOptions}): `close()`
   * leaves that client connected, unless the store's opener made it. Keys start with the
   * namespace and ':' (`NAME:`). Throws `RangeError` for a malformed namespace.
   */
  constructor(options: RedisClientOptions & Ownership) {
    super(options);
    this.#redis = options.client as Redis; // an ioredis client: its own type inside (driver-types.ts)
  }

  /** Runs a script by SHA1, sending its source when the server does not have it (NOSCRIPT). */
  async #eval(script: LuaScript, keys: readonly string[], args: readonly string[]) {
    try {
      return await this.#redis.evalsha(script.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw error;
      return await this.#redis.eval(script.source, keys.length, ...keys, ...args);
    }
  }

  #key(kind: 'lease' | 'mark' | 'claims', workerId: number): string {
    return `${this.prefix}${kind}:${workerId}`;
  }

  /** Loads the scripts into the server's script cache. Idempotent; nothing else to create. */
  migrate(): Promise<void> {
    return storeCall(redisSite(this.address), 'migrate', async () => {
      for (const s of SCRIPTS) {
        const sha = await this.#redis.script('LOAD', s.source);
        if (sha !== s.sha)
          throw new Error(`script ${s.name}: server SHA1 ${sha}, expected ${s.sha}`);
      }
    });
  }

  acquire(request: LeaseRequest): Promise<Lease | null> {
    return storeCall(redisSite(this.address), 'acquire', async () => {
      const o = request.owner;
      const reply = await this.#eval(
        ACQUIRE,
        [],
        [
          this.prefix,
          arg(request.min),
          arg(request.max),
          arg(request.ttlMs),
          o.instanceId,
          o.host,
          arg(o.pid),
          arg(o.startedAtMs),
          arg(request.clockMs),
          arg(request.reserveMarkMs),
        ],
      );
      if (reply === null || reply === false) return null;
      const [workerId, previous, mark] = array(reply);
      return {
        workerId: requiredNumber(workerId),
        instanceId: o.instanceId,
        previousMarkMs: nullableNumber(previous),
        markMs: requiredNumber(mark),
      };
    });
  }

  renew(lease: Lease, report: RenewReport): Promise<RenewResult> {
    return storeCall(redisSite(this.address), 'renew', async () => {
      const w = lease.workerId;
      const reply = await this.#eval(
        RENEW,
        [this.#key('lease', w), this.#key('mark', w), this.#key('claims', w)],
        [
          lease.instanceId,
          arg(report.ttlMs),
          arg(report.reserveMarkMs),
          arg(report.clockMs),
          arg(report.lastIssuedMs),
        ],
      );
      const [held, claimants] = array(reply);
      return {
        held: requiredNumber(held) === 1,
        claimants: array(claimants).map(requiredString).sort(),
      };
    });
  }

  release(lease: Lease, finalMarkMs: number | null): Promise<void> {
    return storeCall(redisSite(this.address), 'release', async () => {
      const w = lease.workerId;
      await this.#eval(
        RELEASE,
        [
          this.#key('lease', w),
          this.#key('mark', w),
          this.#key('claims', w),
          `${this.prefix}index`,
        ],
        [lease.instanceId, arg(finalMarkMs), arg(w)],
      );
    });
  }

  list(): Promise<LeaseRecord[]> {
    return storeCall(redisSite(this.address), 'list', async () => {
      const reply = await this.#eval(LIST, [`${this.prefix}index`], [this.prefix]);
      return array(reply).map((row): LeaseRecord => {
        const [id, instanceId, host, pid, startedAt, expiresAt, mark, lastIssued, clock, store] =
          array(row);
        return {
          workerId: requiredNumber(id),
          instanceId: requiredString(instanceId),
          host: requiredString(host),
          pid: requiredNumber(pid),
          startedAtMs: requiredNumber(startedAt),
          expiresAtMs: requiredNumber(expiresAt),
          markMs: nullableNumber(mark),
          lastIssuedMs: nullableNumber(lastIssued),
          clockMs: nullableNumber(clock),
          storeClockMs: nullableNumber(store),
        };
      });
    });
  }

  readMark(workerId: number): Promise<number | null> {
    return storeCall(redisSite(this.address), 'readMark', async () =>
      nullableNumber(await this.#redis.get(this.#key('mark', workerId))),
    );
  }

  /** Redis's `TIME`, in unix ms. */
  serverTimeMs(): Promise<number | null> {
    return storeCall(redisSite(this.address), 'serverTimeMs', async () => {
      const [seconds, micros] = await this.#redis.time();
      return requiredNumber(seconds) * 1000 + Math.floor(requiredNumber(micros) / 1000);
    });
  }
}

/**
 * Connects to Redis and checks that it answers (PING). Resolves a {@link LeaseStore} whose
 * scripts load on `migrate()` (or on first use). Rejects with `RangeError` for a malformed URL
 * or namespace, and with `StoreUnavailableError` (operation 'connect') when the server cannot
 * be reached or does not answer within `connectTimeoutMs`.
 *
 * The client fails fast rather than queueing: commands sent while the connection is down
 * reject at once (no offline queue), and a command in flight when the connection drops is
 * rejected rather than resent (a resent acquire could take a second worker ID). ioredis keeps
 * reconnecting in the background, so a later call succeeds once Redis is back.
 */
export function openRedisLeaseStore(
  url: string,
  options: RedisStoreOptions = {},
): Promise<LeaseStore> {
  return openRedisStore(RedisLeaseStore, url, options);
}
