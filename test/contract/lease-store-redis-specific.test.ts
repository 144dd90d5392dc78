// What the Redis lease store adds to the LeaseStore contract (lease-store.test.ts), on fresh
// key prefixes of the Redis fixture (test/helpers/backend-fixtures.ts): failing fast when it is
// down or silent, namespaces, TTLs by the server's clock, marks without TTL, the full sonyflake
// range, and the EVAL fallback.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';
import type { Lease, LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import { parseRedisUrl } from '../../packages/stores/src/redis/connect.js';
import { openRedisLeaseStore } from '../../packages/stores/src/redis/lease-store.js';
import { fixtureOf, namespaceOf } from '../helpers/backend-fixtures.js';
import { cachedScripts, ownRedis, withRedis } from '../helpers/redis.js';
import { openRetrying, rejectsUnavailable as rejectsAs } from '../helpers/store-errors.js';
import { silentServer, stallableProxy } from '../helpers/tcp.js';
import { owner, report, request } from './lease-store.js';

const fx = await fixtureOf('redis');
const { skip } = fx;
const URL = fx.server!.url;

/** A fresh key prefix of the fixture's (its keys deleted after the tests). */
const namespace = () => namespaceOf(fx.freshUrl('lease'));

async function openFresh(ns = namespace()): Promise<LeaseStore> {
  const store = await openRedisLeaseStore(URL, { namespace: ns, connectTimeoutMs: 2000 });
  await store.migrate();
  return store;
}

/** Asserts `p` rejects with StoreUnavailableError('redis', operation) in under `withinMs`. */
const rejectsUnavailable = (p: Promise<unknown>, operation: string, withinMs: number) =>
  rejectsAs(p, { backend: 'redis', operation }, withinMs);

describe('Redis lease store: connection failures', () => {
  test('an unreachable Redis fails fast with StoreUnavailableError naming it', async () => {
    const p = openRedisLeaseStore('redis://127.0.0.1:1', { connectTimeoutMs: 2000 });
    await rejectsUnavailable(p, 'connect', 2000);
    await p.catch((e: StoreUnavailableError) => {
      assert.equal(e.address, 'redis://127.0.0.1:1');
      assert.match(e.message, /redis store at redis:\/\/127\.0\.0\.1:1 failed during connect/);
      assert.match(String((e.cause as Error).message), /ECONNREFUSED/);
    });
  });

  test('the address in the error has no password', async () => {
    const p = openRedisLeaseStore('redis://user:hunter2@127.0.0.1:1', { connectTimeoutMs: 500 });
    await assert.rejects(p, (e: unknown) => {
      assert.ok(e instanceof StoreUnavailableError);
      assert.equal(e.address, 'redis://user:***@127.0.0.1:1');
      assert.doesNotMatch(e.message, /hunter2/);
      return true;
    });
  });

  test('a server that accepts but never answers times out within connectTimeoutMs', async () => {
    const silent = await silentServer();
    try {
      const p = openRedisLeaseStore(`redis://127.0.0.1:${silent.port}`, { connectTimeoutMs: 300 });
      await rejectsUnavailable(p, 'connect', 1500);
    } finally {
      await silent.close();
    }
  });

  test('malformed URLs and namespaces are RangeErrors', async () => {
    await assert.rejects(openRedisLeaseStore('postgres://x/y'), RangeError);
    await assert.rejects(openRedisLeaseStore('redis://h', { namespace: 'a*b' }), RangeError);
    await assert.rejects(openRedisLeaseStore('redis://h?namespace='), RangeError);
    await assert.rejects(openRedisLeaseStore(URL, { connectTimeoutMs: 0 }), RangeError);
    const parsed = parseRedisUrl('redis://h:1/2?namespace=fleet-a&family=4', undefined);
    assert.deepEqual(parsed, { url: 'redis://h:1/2?family=4', namespace: 'fleet-a' });
    assert.equal(parseRedisUrl('redis://h?namespace=x', 'y').namespace, 'y', 'the option wins');
    assert.equal(parseRedisUrl('redis://h', undefined).namespace, 'idforge');
  });
});

describe('Redis lease store: behaviour', { skip }, () => {
  test('a stalled Redis fails each call within the timeout instead of hanging', async (t) => {
    const p = await stallableProxy(fx.server!.host, fx.server!.port);
    t.after(() => p.close());
    const url = fx.freshUrl('lease', { port: p.port });
    const store = await openRetrying(() => openRedisLeaseStore(url, { connectTimeoutMs: 300 }));
    try {
      assert.equal(await store.readMark(1), null);
      p.stall();
      await rejectsUnavailable(store.acquire(request(owner(), 0, 3)), 'acquire', 1500);
      await p.close(); // cut: its connections closed, nothing listening
      await rejectsUnavailable(store.readMark(1), 'readMark', 500);
      await rejectsUnavailable(store.serverTimeMs(), 'serverTimeMs', 500);
    } finally {
      await store.close();
    }
  });

  test('namespaces isolate fleets; the URL may carry one', async () => {
    const ns = namespace();
    const a = await openRedisLeaseStore(`${URL}?namespace=${ns}`);
    const b = await openFresh();
    const a2 = await openRedisLeaseStore(URL, { namespace: ns });
    try {
      assert.equal((await a.acquire(request(owner(), 0, 9)))?.workerId, 0);
      assert.equal((await b.acquire(request(owner(), 0, 9)))?.workerId, 0, 'another namespace');
      assert.equal((await a2.acquire(request(owner(), 0, 9)))?.workerId, 1, 'the same one');
      assert.equal(await withRedis(URL, (r) => r.exists(`${ns}:lease:0`, `${ns}:lease:1`)), 2);
    } finally {
      await Promise.all([a.close(), b.close(), a2.close()]);
    }
  });

  test('concurrent acquires over separate connections never share an ID', async () => {
    const ns = namespace();
    const stores = await Promise.all([1, 2, 3, 4].map(() => openFresh(ns)));
    try {
      const got = await Promise.all(
        stores.flatMap((s) => [1, 2, 3, 4, 5].map(() => s.acquire(request(owner(), 0, 15)))),
      );
      const ids = got.filter((l): l is Lease => l !== null).map((l) => l.workerId);
      assert.deepEqual(
        [...ids].sort((x, y) => x - y),
        Array.from({ length: 16 }, (_, i) => i),
      );
      assert.equal(got.filter((l) => l === null).length, 4);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  test('leases and claims expire by Redis TTL; marks have none', async () => {
    const ns = namespace();
    const s = await openFresh(ns);
    try {
      const l = await s.acquire(request(owner(), 7, 7, 10_000));
      assert.ok(l);
      await withRedis(URL, async (r) => {
        const leaseTtl = await r.pttl(`${ns}:lease:7`);
        assert.ok(leaseTtl > 8000 && leaseTtl <= 10_000, `lease PTTL ${leaseTtl}`);
        const claimsTtl = await r.pttl(`${ns}:claims:7`);
        assert.ok(claimsTtl > 8000 && claimsTtl <= 10_001, `claims PTTL ${claimsTtl}`);
        assert.equal(await r.pttl(`${ns}:mark:7`), -1);
      });
      const r1 = await s.renew(l, { ...report(20_000, Date.now()), lastIssuedMs: 1234 });
      assert.equal(r1.held, true);
      const server = await s.serverTimeMs();
      assert.ok(server !== null);
      const [rec] = await s.list();
      assert.ok(rec);
      assert.ok(Math.abs(rec.expiresAtMs - (server + 20_000)) < 1000, `expiry ${rec.expiresAtMs}`);
      assert.equal(rec.lastIssuedMs, 1234);
      assert.ok(rec.clockMs !== null && Math.abs(rec.clockMs - Date.now()) < 5000);
      assert.ok(rec.storeClockMs !== null && Math.abs(rec.storeClockMs - server) < 1000);
      await s.renew(l, { ...report(20_000, Date.now()), lastIssuedMs: null });
      assert.equal((await s.list())[0]?.lastIssuedMs, null);
    } finally {
      await s.close();
    }
  });

  test('the full sonyflake range (0..65535) is scanned in one script, quickly', async (t) => {
    const ns = namespace();
    const s = await openFresh(ns);
    try {
      await withRedis(URL, async (r) => {
        const pipe = r.pipeline();
        for (let id = 0; id < 65_535; id++) {
          pipe.hset(`${ns}:lease:${id}`, 'instanceId', 'x').pexpire(`${ns}:lease:${id}`, 60_000);
        }
        await pipe.exec();
      });
      const start = performance.now();
      const l = await s.acquire(request(owner(), 0, 65_535));
      const took = performance.now() - start;
      t.diagnostic(`acquire scanned 65535 held IDs in ${took.toFixed(1)} ms`);
      assert.equal(l?.workerId, 65_535);
      assert.ok(took < 1000, `took ${took} ms`);
      assert.equal(await s.acquire(request(owner(), 0, 65_535)), null);
    } finally {
      await s.close();
    }
  });

  test('scripts are sent again after the server forgets them (SCRIPT FLUSH)', async (t) => {
    // SCRIPT FLUSH empties the whole server's cache: on a Redis of this test's own.
    const own = await ownRedis(t);
    const s = await openRedisLeaseStore(own, { namespace: 'flush', connectTimeoutMs: 2000 });
    try {
      await s.migrate();
      assert.ok((await cachedScripts(own)) > 0, 'migrate loads the scripts');
      await withRedis(own, (r) => r.script('FLUSH'));
      assert.equal(await cachedScripts(own), 0);
      const l = await s.acquire(request(owner(), 0, 0));
      assert.equal(l?.workerId, 0);
      assert.ok((await cachedScripts(own)) > 0, 'the store sent its script again');
      assert.equal((await s.list()).length, 1);
      await s.migrate();
    } finally {
      await s.close();
    }
  });
});
