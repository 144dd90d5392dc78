// Buffered sequences of idforge/client over real HTTP (fake idforge nodes sharing one fake
// store, test/helpers/fake-id-service.ts): the prefetch point and the number of segment
// requests, one fetch shared by concurrent calls, and the promise that numbers are never
// repeated and always increase, across a node killed mid-run and answers lost on the way.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import {
  createClient,
  type IdforgeClient,
  ServiceResponseError,
  ServiceUnavailableError,
} from '../../packages/idforge/src/client/index.js';
import {
  type FakeService,
  type FakeStore,
  fakeStore,
  startFakeService,
} from '../helpers/fake-id-service.js';
import { waitFor } from '../helpers/wait.js';

const SEGMENTS = '/v1/sequences/orders/segments';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function nodes(n: number, store: FakeStore): Promise<FakeService[]> {
  const out: FakeService[] = [];
  for (let i = 0; i < n; i++) {
    const f = await startFakeService({ store });
    cleanups.push(() => f.stop());
    out.push(f);
  }
  return out;
}

function client(fs: FakeService[], options: Record<string, unknown> = {}) {
  const clock = { t: 0 };
  const c: IdforgeClient = createClient({
    urls: fs.map((f) => f.url),
    now: () => clock.t,
    probeMs: 100,
    ...options,
  });
  cleanups.push(() => c.close());
  return { c, clock };
}

/** Every number is above the one before it. */
function assertIncreasing(numbers: readonly bigint[]): void {
  for (let i = 1; i < numbers.length; i++) {
    assert.ok(numbers[i]! > numbers[i - 1]!, `#${i}: ${numbers[i]} after ${numbers[i - 1]}`);
  }
}

test('the next segment is fetched in the background when the current one is 20% used', async () => {
  const store = fakeStore({ orders: { start: 1001n } });
  const [f] = await nodes(1, store);
  const { c } = client([f!], { segmentSize: 100 });
  const orders = c.sequence('orders');
  assert.equal(c.sequence('orders'), orders, 'one object per tag');
  assert.equal(orders.tryNext(), undefined, 'empty: tryNext starts a fetch');
  assert.equal(orders.stats().fetches, 1);
  assert.equal(await orders.next(), 1001n, 'next() waits for the fetch in flight');
  assert.equal(orders.stats().fetches, 1);
  for (let i = 1; i < 20; i++) assert.equal(orders.tryNext(), 1001n + BigInt(i));
  assert.equal(orders.stats().fetches, 1, '20 numbers of 100 handed out: no fetch yet');
  assert.equal(orders.tryNext(), 1021n);
  assert.equal(orders.stats().fetches, 2, 'the 21st number starts the fetch, synchronously');
  await waitFor(() => orders.stats().segments === 2, 'the second segment');
  assert.equal(f!.count(SEGMENTS), 2);
  assert.equal(f!.requests[0]!.path, `${SEGMENTS}?size=100`);
  assert.equal(f!.requests[0]!.method, 'POST');

  const drawn = [1001n, ...Array.from({ length: 20 }, (_, i) => 1002n + BigInt(i))];
  while (drawn.length < 1000) drawn.push(await orders.next());
  assert.deepEqual(
    drawn,
    Array.from({ length: 1000 }, (_, i) => 1001n + BigInt(i)),
  );
  // 10 segments used, the 11th fetched when the 10th was 20% used: 11 requests for 1000.
  assert.equal(orders.stats().fetches, 11);
  await waitFor(() => orders.stats().segments === 11, 'the 11th segment');
  assert.equal(f!.count(SEGMENTS), 11);
  assert.deepEqual(
    { ...orders.stats(), waits: 0 },
    {
      tag: 'orders',
      served: 1000n,
      buffered: 100n,
      fetches: 11,
      segments: 11,
      failures: 0,
      waits: 0,
    },
  );
});

test('prefetchAt 0 fetches the next segment as the first number of one is handed out', async () => {
  const [f] = await nodes(1, fakeStore({ orders: {} }));
  const { c } = client([f!], { segmentSize: 10, prefetchAt: 0 });
  const orders = c.sequence('orders');
  assert.equal(await orders.next(), 1n);
  assert.equal(orders.stats().fetches, 2);
});

test('the server may round the size up to the tag step: the client uses the whole block', async () => {
  const [f] = await nodes(1, fakeStore({ orders: { step: 250 } }));
  const { c } = client([f!], { segmentSize: 100 });
  const orders = c.sequence('orders');
  assert.equal(await orders.next(), 1n);
  assert.equal(orders.stats().buffered, 249n);
  for (let i = 2; i <= 50; i++) assert.equal(orders.tryNext(), BigInt(i));
  assert.equal(orders.stats().fetches, 1, 'the trigger is 20% of the block received');
  assert.equal(orders.tryNext(), 51n);
  assert.equal(orders.stats().fetches, 2);
});

test('concurrent next() calls on an empty buffer share one fetch, in call order', async () => {
  const [f] = await nodes(1, fakeStore({ orders: {} }));
  const { c } = client([f!], { segmentSize: 100 });
  const orders = c.sequence('orders');
  const got = await Promise.all([orders.next(), orders.next(), orders.next(), orders.next()]);
  assert.deepEqual(got, [1n, 2n, 3n, 4n]);
  assert.equal(f!.count(SEGMENTS), 1);
  assert.equal(orders.stats().waits, 4);

  // More waiters than a segment holds: they queue on the fetches in turn.
  const [g] = await nodes(1, fakeStore({ orders: {} }));
  const { c: small } = client([g!], { segmentSize: 2 });
  const s = small.sequence('orders');
  const many = await Promise.all(Array.from({ length: 7 }, () => s.next()));
  assert.deepEqual(many, [1n, 2n, 3n, 4n, 5n, 6n, 7n]);
  assert.ok(g!.count(SEGMENTS) <= 5);
});

test('batch(n) takes what is buffered, then one segment of what is missing', async () => {
  const [f] = await nodes(1, fakeStore({ orders: {} }));
  const { c } = client([f!], { segmentSize: 100 });
  const orders = c.sequence('orders');
  const first = await orders.batch(250);
  assert.deepEqual(
    first,
    Array.from({ length: 250 }, (_, i) => BigInt(i + 1)),
  );
  assert.equal(f!.requests[0]!.path, `${SEGMENTS}?size=250`);
  assert.deepEqual(await orders.batch(0), []);
  const more = await orders.batch(30);
  assertIncreasing([...first, ...more]);
});

test('a background fetch that fails leaves every buffered number served; then it recovers', async () => {
  const [f] = await nodes(1, fakeStore({ orders: {} }));
  const { c, clock } = client([f!], { segmentSize: 10 });
  const orders = c.sequence('orders');
  assert.equal(await orders.next(), 1n);
  f!.fault = 503;
  const drawn = [1n, orders.tryNext()!, orders.tryNext()!]; // 3 is the 20% point
  await waitFor(() => orders.stats().failures === 1, 'the background fetch to fail');
  for (let v = orders.tryNext(); v !== undefined; v = orders.tryNext()) drawn.push(v);
  assert.deepEqual(
    drawn,
    Array.from({ length: 10 }, (_, i) => BigInt(i + 1)),
    'every buffered number, synchronously, none lost',
  );
  await assert.rejects(orders.next(), ServiceUnavailableError);
  const requests = f!.count(SEGMENTS);
  f!.fault = 'none';
  clock.t = 100; // past the back-off
  assert.equal(await orders.next(), 11n);
  assert.equal(f!.count(SEGMENTS), requests + 1);
});

test('an answer lost on the way: the segment is never used, the next server gives another', async () => {
  const store = fakeStore({ orders: {} });
  const [a, b] = await nodes(2, store);
  a!.fault = 'lose';
  const { c } = client([a!, b!], { segmentSize: 10 });
  const orders = c.sequence('orders');
  const drawn = await orders.batch(10);
  assert.deepEqual(
    store.allocated.map((s) => [s.port, s.first, s.last]),
    [
      [a!.port, 1n, 10n],
      [b!.port, 11n, 20n],
    ],
  );
  assert.deepEqual(
    drawn,
    Array.from({ length: 10 }, (_, i) => BigInt(i + 11)),
  );
});

test('a node killed mid-run: no number repeated, every one increasing, none lost', async () => {
  const store = fakeStore({ orders: {} });
  const [a, b] = await nodes(2, store);
  const { c, clock } = client([a!, b!], { segmentSize: 10 });
  const orders = c.sequence('orders');
  const drawn: bigint[] = [];
  for (let i = 0; i < 600; i++) {
    if (i === 200) await a!.stop();
    if (i === 400) {
      await a!.start();
      clock.t = 10_000;
    }
    drawn.push(await orders.next());
  }
  assertIncreasing(drawn);
  assert.ok(c.stats().servers[0]!.failures >= 1, 'A failed requests while it was down');
  assert.ok(
    store.allocated.some((s) => s.port === a!.port && s.first > drawn[400]!),
    'A is back',
  );
  // Every segment handed out was either drawn whole or never received (its answer lost);
  // only the last one received may still be partly in the buffer.
  const seen = new Set(drawn);
  const received = store.allocated.filter((s) => seen.has(s.first) || seen.has(s.last));
  for (const s of received.slice(0, -1)) {
    for (let n = s.first; n <= s.last; n++)
      assert.ok(seen.has(n), `${n} of [${s.first}, ${s.last}]`);
  }
  const inSegments = received.reduce((sum, s) => sum + Number(s.last - s.first + 1n), 0);
  assert.ok(drawn.length <= inSegments);
});

test('a segment not above the previous one (servers on different stores) is refused', async () => {
  const [a] = await nodes(1, fakeStore({ orders: {} }));
  const [b] = await nodes(1, fakeStore({ orders: {} }));
  const { c } = client([a!, b!], { segmentSize: 10 });
  const orders = c.sequence('orders');
  assert.equal(await orders.next(), 1n);
  for (let i = 2; i <= 10; i++) assert.equal(orders.tryNext(), BigInt(i)); // 3 fetched from B
  await assert.rejects(orders.next(), (e: unknown) => {
    assert.ok(e instanceof ServiceResponseError);
    assert.equal(e.url, b!.url);
    assert.match(e.reason, /segment \[1, 10\] is not above 10/);
    return true;
  });
});

test('tryNext() on a warm sequence returns a bigint, no promise', async () => {
  const [f] = await nodes(1, fakeStore({ orders: {} }));
  const { c } = client([f!], { segmentSize: 1000 });
  const orders = c.sequence('orders');
  await orders.next();
  const v = orders.tryNext();
  assert.equal(typeof v, 'bigint');
  assert.equal(v, 2n);
});

test('close() drops the buffered numbers and refuses later calls', async () => {
  const [f] = await nodes(1, fakeStore({ orders: {} }));
  const { c } = client([f!], { segmentSize: 10 });
  const orders = c.sequence('orders');
  await orders.batch(5);
  c.close();
  assert.equal(orders.tryNext(), undefined);
  await assert.rejects(orders.next(), { code: 'IDF_CLIENT_CLOSED' });
  assert.equal(orders.stats().served, 5n);
  assert.equal(orders.stats().buffered, 0n);
});
