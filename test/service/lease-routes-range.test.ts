// The size limit of an acquire's range is on its size, wherever it lies (found by the mutation
// run, issue 34): at most 65,536 worker IDs, so [0, 65535] and a small range high up are
// served, and [0, 65536] is refused before the store sees it.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { openTestService, type TestService } from '../helpers/service.js';

const LEASE = 'lease-range-token-0123456789';
let svc: TestService;
let base = '';

before(async () => {
  svc = await openTestService({
    tokens: [{ name: 'fn-pool', token: LEASE, scopes: ['lease'] }],
  });
  base = await svc.app.listen({ host: '127.0.0.1', port: 0 });
});
after(() => svc.close());

const acquire = (min: number, max: number) =>
  fetch(`${base}/v1/worker-leases`, {
    method: 'POST',
    headers: { authorization: `Bearer ${LEASE}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      min,
      max,
      ttlMs: 5000,
      instanceId: randomUUID(),
      host: 'range-host',
      pid: 4242,
      startedAtMs: Date.now(),
      clockMs: Date.now(),
      reserveMarkMs: 0,
    }),
  });

test('a two-ID range far up is served: the limit is on the size, not the values', async () => {
  const res = await acquire(40_000, 40_001);
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal((await res.json()).lease.workerId, 40_000);
});

test('65,536 worker IDs are served, 65,537 refused with 400', async () => {
  const served = await acquire(0, 65_535);
  assert.equal(served.status, 200, await served.clone().text());
  const refused = await acquire(0, 65_536);
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /at most 65536 worker IDs/);
});
