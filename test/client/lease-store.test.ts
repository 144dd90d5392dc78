// httpLeaseStore against a fake fetch: its options, the requests it sends, the answers it
// refuses (a worker ID outside the range, a lease for another instance, a malformed body), and
// failover: one server failing, the next answers; every server failing is the port's
// StoreUnavailableError. Real service processes: test/contract/lease-store-http.test.ts and
// test/faults/lease-http.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { httpLeaseStore, ServiceResponseError } from '../../packages/idforge/src/client/index.js';
import { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';

const owner = { instanceId: 'i-1', host: 'h', pid: 7, startedAtMs: 1 };
const request = { min: 2, max: 5, ttlMs: 1000, owner, clockMs: 10, reserveMarkMs: 0 };

/** A fetch that answers each call with the next of `answers` (status, body) and records it. */
function fake(answers: readonly (readonly [number, unknown] | 'down')[]) {
  const calls: { url: string; method: string; body: unknown }[] = [];
  let i = 0;
  const f = async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({
      url: String(url),
      method: init?.method ?? 'GET',
      body: init?.body === undefined ? undefined : JSON.parse(String(init.body)),
    });
    const a = answers[i++] ?? 'down';
    if (a === 'down') throw new TypeError('fetch failed');
    return new Response(JSON.stringify(a[1]), { status: a[0] });
  };
  return { calls, fetch: f as typeof fetch };
}

test('options are validated under the name httpLeaseStore', () => {
  assert.throws(() => httpLeaseStore({ urls: [] }), /httpLeaseStore options\.urls: expected/);
  assert.throws(() => httpLeaseStore({ urls: ['ftp://x'] }), RangeError);
  assert.throws(
    () => httpLeaseStore({ urls: ['http://a'], segmentSize: 5 } as never),
    /httpLeaseStore options: expected only urls, token, timeoutMs, probeMs, fetch, now/,
  );
});

test('acquire posts the request and returns the grant; null when all are held', async () => {
  const lease = { workerId: 3, instanceId: 'i-1', previousMarkMs: null, markMs: 5 };
  const f = fake([
    [200, { lease }],
    [200, { lease: null }],
  ]);
  const s = httpLeaseStore({ urls: ['http://a'], token: 'tok-0123456789abcdef', fetch: f.fetch });
  assert.deepEqual(await s.acquire(request), lease);
  assert.equal(await s.acquire(request), null);
  assert.equal(f.calls[0]?.url, 'http://a/v1/worker-leases');
  assert.deepEqual(f.calls[0]?.body, {
    min: 2,
    max: 5,
    ttlMs: 1000,
    instanceId: 'i-1',
    host: 'h',
    pid: 7,
    startedAtMs: 1,
    clockMs: 10,
    reserveMarkMs: 0,
  });
  assert.equal(s.backend, 'http');
});

test('an answer outside the contract is a ServiceResponseError, never a lease', async () => {
  const base = { workerId: 3, instanceId: 'i-1', previousMarkMs: null, markMs: 5 };
  for (const body of [
    { lease: { ...base, workerId: 9 } },
    { lease: { ...base, instanceId: 'someone-else' } },
    { lease: { ...base, markMs: 'soon' } },
    { ids: [] },
  ]) {
    const s = httpLeaseStore({ urls: ['http://a'], fetch: fake([[200, body]]).fetch });
    await assert.rejects(s.acquire(request), ServiceResponseError, JSON.stringify(body));
  }
  const s = httpLeaseStore({ urls: ['http://a'], fetch: fake([[200, { held: 'yes' }]]).fetch });
  await assert.rejects(
    s.renew(base, { ttlMs: 1000, reserveMarkMs: 0, clockMs: 0, lastIssuedMs: null }),
    ServiceResponseError,
  );
});

test('a failing server fails over to the next; all failing is StoreUnavailableError', async () => {
  const f = fake(['down', [200, { workerId: 4, markMs: 77 }]]);
  const s = httpLeaseStore({ urls: ['http://a', 'http://b'], fetch: f.fetch });
  assert.equal(await s.readMark(4), 77);
  assert.deepEqual(
    f.calls.map((c) => c.url),
    ['http://a/v1/worker-leases/4/mark', 'http://b/v1/worker-leases/4/mark'],
  );
  const down = httpLeaseStore({
    urls: ['http://a', 'http://b'],
    fetch: fake(['down', [503, { error: { code: 'IDF_STORE_UNAVAILABLE', message: 'x' } }]]).fetch,
  });
  await assert.rejects(down.serverTimeMs(), (e) => {
    assert.ok(e instanceof StoreUnavailableError);
    assert.equal(e.address, 'http://a,http://b');
    assert.equal(e.operation, 'serverTimeMs');
    assert.match(e.message, /IDF_STORE_UNAVAILABLE/);
    return true;
  });
});
