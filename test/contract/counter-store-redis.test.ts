// The CounterStore contract on Redis (127.0.0.1:6379), a fresh key prefix per store: exact
// 64-bit values, raiseTo never lowering (also against concurrent INCRBYs), overflow as
// SequenceExhaustedError, failing fast when Redis is absent or silent, the EVAL fallback.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, Socket } from 'node:net';
import { after, describe, test } from 'node:test';
import {
  SequenceExhaustedError,
  StoreUnavailableError,
} from '../../packages/idforge/src/core/index.js';
import type { CounterStore } from '../../packages/idforge/src/sequences/ports.js';
import { openRedisCounterStore } from '../../packages/stores/src/redis/counter-store.js';
import { withRedis } from '../helpers/redis.js';
import { serviceSkip } from '../helpers/services.js';

const URL = 'redis://127.0.0.1:6379';
const MAX = (1n << 63n) - 1n;
const skip = await serviceSkip('Redis', '127.0.0.1', 6379);
const run = `idforge-test-${randomUUID().slice(0, 8)}`;
let n = 0;
const opened: CounterStore[] = [];

async function openFresh(ns = `${run}-${n++}`): Promise<CounterStore> {
  const store = await openRedisCounterStore(URL, { namespace: ns, connectTimeoutMs: 2000 });
  opened.push(store);
  return store;
}

after(async () => {
  await Promise.all(opened.map((s) => s.close()));
  if (skip !== false) return;
  await withRedis(URL, async (redis) => {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${run}-*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  });
});

describe('Redis counter store', { skip }, () => {
  test('INCRBY starts from 0 and returns the new value; keys and namespaces are apart', async () => {
    const ns = `${run}-${n++}`;
    const s = await openFresh(ns);
    const other = await openFresh();
    assert.equal(await s.incrBy('a', 10), 10n);
    assert.equal(await s.incrBy('a', 5), 15n);
    assert.equal(await s.incrBy('b', 1), 1n);
    assert.equal(await other.incrBy('a', 1), 1n, 'another namespace');
    assert.equal(await withRedis(URL, (r) => r.get(`${ns}:counter:a`)), '15');
  });

  test('values past 2^53 stay exact both ways', async () => {
    const s = await openFresh();
    const big = (1n << 60n) + 1n;
    assert.equal(await s.raiseTo('k', big), big);
    assert.equal(await s.incrBy('k', 3), big + 3n);
    assert.equal(await s.raiseTo('k', MAX - 1n), MAX - 1n);
    assert.equal(await s.incrBy('k', 1), MAX);
  });

  test('raiseTo never lowers: it compares as integers, not as strings or doubles', async () => {
    const ns = `${run}-${n++}`;
    const s = await openFresh(ns);
    assert.equal(await s.raiseTo('k', 99n), 99n, 'an absent counter is created');
    assert.equal(await s.raiseTo('k', 100n), 100n, 'longer is larger');
    assert.equal(await s.raiseTo('k', 99n), 100n, 'never lowered');
    assert.equal(await s.raiseTo('k', 0n), 100n);
    assert.equal(await s.raiseTo('k', 100n), 100n);
    // 2^60 + 1 and 2^60 + 2 are the same double: a comparison through numbers would fail.
    const base = (1n << 60n) + 1n;
    await s.raiseTo('d', base + 1n);
    assert.equal(await s.raiseTo('d', base), base + 1n);
    assert.equal(await s.raiseTo('d', base + 2n), base + 2n);
    await withRedis(URL, (r) => r.set(`${ns}:counter:neg`, '-5'));
    assert.equal(await s.raiseTo('neg', 0n), 0n, 'a negative counter is raised');
  });

  test('concurrent raiseTo and INCRBY over several connections: nothing lost, never lower', async () => {
    const ns = `${run}-${n++}`;
    const stores = await Promise.all([1, 2, 3, 4].map(() => openFresh(ns)));
    const targets = Array.from({ length: 200 }, (_, i) => BigInt((i * 7919) % 100_000));
    const results = await Promise.all(
      stores.flatMap((s, j) => [
        ...targets.map((t) => s.raiseTo('k', t + BigInt(j))),
        ...targets.map(() => s.incrBy('k', 1)),
      ]),
    );
    let max = 0n;
    for (const t of targets) if (t + 3n > max) max = t + 3n;
    const final = await stores[0]!.incrBy('k', 1);
    assert.ok(final > max, `final ${final}`);
    results.forEach((v, i) => {
      if (i % 400 < 200)
        assert.ok(v >= targets[i % 400]!, `raiseTo returned ${v}, below its target`);
    });
    const incs = results.filter((_, i) => i % 400 >= 200);
    assert.equal(new Set(incs).size, incs.length, 'every INCRBY returned its own value');
  });

  test('overflow past 2^63 - 1 is SequenceExhaustedError and adds nothing', async () => {
    const s = await openFresh();
    await s.raiseTo('k', MAX - 5n);
    await assert.rejects(s.incrBy('k', 10), (e: unknown) => {
      assert.ok(e instanceof SequenceExhaustedError, String(e));
      assert.equal(e.tag, 'k');
      assert.equal(e.maxId, MAX - 5n);
      return true;
    });
    assert.equal(await s.incrBy('k', 5), MAX);
  });

  test('a key holding a non-integer is StoreUnavailableError, left as it is', async () => {
    const ns = `${run}-${n++}`;
    const s = await openFresh(ns);
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

  test('the script is sent again after the server forgets it (SCRIPT FLUSH)', async () => {
    const s = await openFresh();
    assert.equal(await s.raiseTo('k', 5n), 5n);
    await withRedis(URL, (r) => r.script('FLUSH'));
    assert.equal(await s.raiseTo('k', 7n), 7n);
  });

  test('misuse is a RangeError and touches nothing', async () => {
    const ns = `${run}-${n++}`;
    const s = await openFresh(ns);
    await assert.rejects(s.incrBy('k', 0), RangeError);
    await assert.rejects(s.incrBy('k', 1.5), RangeError);
    await assert.rejects(s.incrBy('', 1), RangeError);
    await assert.rejects(s.raiseTo('k', -1n), RangeError);
    await assert.rejects(s.raiseTo('k', MAX + 1n), RangeError);
    await assert.rejects(s.raiseTo('k', 5 as unknown as bigint), RangeError);
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

  test('a Redis that stops answering fails each call within the timeout', { skip }, async () => {
    // A proxy that forwards until told to stall.
    const sockets: Socket[] = [];
    let stalled = false;
    const server = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(6379, '127.0.0.1');
      sockets.push(client, upstream);
      client.on('data', (d) => {
        if (!stalled) upstream.write(d);
      });
      upstream.pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const s = await openRedisCounterStore(`redis://127.0.0.1:${port}`, {
      namespace: `${run}-${n++}`,
      connectTimeoutMs: 300,
    });
    try {
      assert.equal(await s.incrBy('k', 1), 1n);
      stalled = true;
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
      for (const x of sockets) x.destroy();
      server.close();
    }
  });
});
