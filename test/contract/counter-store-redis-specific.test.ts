// What the Redis counter store adds to the CounterStore contract (counter-store.test.ts), on
// fresh key prefixes of the Redis fixture (test/helpers/backend-fixtures.ts): the keys it
// writes, a key set by hand (a negative or non-integer value), the EVAL fallback, and failing
// fast when Redis is absent or stops answering.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';
import type { CounterStore } from '../../packages/idforge/src/sequences/ports.js';
import { openRedisCounterStore } from '../../packages/stores/src/redis/counter-store.js';
import { fixtureOf, namespaceOf } from '../helpers/backend-fixtures.js';
import { cachedScripts, ownRedis, withRedis } from '../helpers/redis.js';
import { openRetrying } from '../helpers/store-errors.js';
import { stallableProxy } from '../helpers/tcp.js';
import { counterMisuse } from './counter-store.js';

const fx = await fixtureOf('redis');
const { skip } = fx;
const URL = fx.server!.url;

/** A store on a fresh key prefix (or on `url`), closed when the test ends, and its prefix. */
async function openFresh(url = fx.freshUrl('ctr')): Promise<{ s: CounterStore; ns: string }> {
  const s = fx.keep(await openRedisCounterStore(url, { connectTimeoutMs: 2000 }));
  return { s, ns: namespaceOf(url) };
}

describe('Redis counter store', { skip }, () => {
  test('a counter is the string at <namespace>:counter:<key>', async () => {
    const { s, ns } = await openFresh();
    assert.equal(await s.incrBy('a', 10), 10n);
    assert.equal(await s.incrBy('a', 5), 15n);
    assert.equal(await withRedis(URL, (r) => r.get(`${ns}:counter:a`)), '15');
  });

  test('raiseTo raises a negative counter set by hand', async () => {
    const { s, ns } = await openFresh();
    await withRedis(URL, (r) => r.set(`${ns}:counter:neg`, '-5'));
    assert.equal(await s.raiseTo('neg', 0n), 0n, 'a negative counter is raised');
  });

  test('a key holding a non-integer is StoreUnavailableError, left as it is', async () => {
    const { s, ns } = await openFresh();
    await withRedis(URL, (r) => r.set(`${ns}:counter:k`, 'hello'));
    // Each call is made only once the previous one is awaited: a second promise made up
    // front would reject unobserved while the first is still pending.
    for (const call of [() => s.incrBy('k', 1), () => s.raiseTo('k', 5n)]) {
      await assert.rejects(call, (e: unknown) => e instanceof StoreUnavailableError);
    }
    await withRedis(URL, (r) => r.set(`${ns}:counter:k`, '007'));
    await assert.rejects(s.raiseTo('k', 5n), /does not hold an integer/);
    assert.equal(await withRedis(URL, (r) => r.get(`${ns}:counter:k`)), '007');
  });

  test('the script is sent again after the server forgets it (SCRIPT FLUSH)', async (t) => {
    // SCRIPT FLUSH empties the whole server's cache: on a Redis of this test's own (the store
    // closed before it stops, as the test ends).
    const own = await ownRedis(t);
    const s = await openRedisCounterStore(own, { connectTimeoutMs: 2000 });
    try {
      assert.equal(await s.raiseTo('k', 5n), 5n);
      assert.ok((await cachedScripts(own)) > 0, 'the first raise loads the script');
      await withRedis(own, (r) => r.script('FLUSH'));
      assert.equal(await cachedScripts(own), 0);
      assert.equal(await s.raiseTo('k', 7n), 7n);
      assert.ok((await cachedScripts(own)) > 0, 'the store sent its script again');
    } finally {
      await s.close();
    }
  });

  test('misuse writes no key', async () => {
    const { s, ns } = await openFresh();
    await counterMisuse(s);
    assert.equal(await withRedis(URL, (r) => r.exists(`${ns}:counter:k`)), 0);
  });
});

describe('Redis counter store: connection failures', () => {
  test('an unreachable Redis fails fast with StoreUnavailableError naming it', async () => {
    const started = Date.now();
    await assert.rejects(
      openRedisCounterStore('redis://user:secret@127.0.0.1:1', { connectTimeoutMs: 1000 }),
      (e: unknown) => {
        assert.ok(e instanceof StoreUnavailableError, String(e));
        assert.equal(e.backend, 'redis');
        assert.equal(e.operation, 'connect');
        assert.equal(e.address, 'redis://user:***@127.0.0.1:1');
        return true;
      },
    );
    assert.ok(Date.now() - started < 2000);
  });

  test('a Redis that stops answering fails each call within the timeout', { skip }, async (t) => {
    const proxy = await stallableProxy(fx.server!.host, fx.server!.port);
    t.after(() => proxy.close());
    const url = fx.freshUrl('ctr', { port: proxy.port });
    const s = await openRetrying(() => openRedisCounterStore(url, { connectTimeoutMs: 300 }));
    try {
      assert.equal(await s.incrBy('k', 1), 1n);
      proxy.stall();
      // Each call starts when its time starts, after the previous one was awaited: made up
      // front, the second would be timed from the wrong moment and reject unobserved.
      for (const [call, op] of [
        [() => s.incrBy('k', 1), 'incrBy'],
        [() => s.raiseTo('k', 9n), 'raiseTo'],
      ] as const) {
        const started = Date.now();
        await assert.rejects(call, (e: unknown) => {
          assert.ok(e instanceof StoreUnavailableError, String(e));
          assert.equal(e.operation, op);
          return true;
        });
        assert.ok(Date.now() - started < 1500, `${op} took ${Date.now() - started} ms`);
      }
    } finally {
      await s.close();
    }
  });
});
