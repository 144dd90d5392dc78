// The HTTP API through inject(): every route, its validation, its errors and its auth, on a
// real SQLite store (leases, marks and segments).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  getLayout,
  isKsuid,
  isUlid,
  ManualClock,
  parseSnowflake,
  uuidv7Timestamp,
} from '../../packages/idforge/src/core/index.js';
import { uuidVersion } from '../../packages/idforge/src/uuid/index.js';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { openTestService, type TestService } from '../helpers/service.js';
import { serviceSkip } from '../helpers/services.js';
import { stallLoop, waitFor } from '../helpers/wait.js';

const ADMIN = 'admin-token-0123456789abcdef';
const ORDERS = 'orders-token-0123456789abcdef';
const UUIDS = 'uuid-only-token-0123456789ab';
const auth = (t: string) => ({ authorization: `Bearer ${t}` });

describe('service API (open: no tokens)', () => {
  let s: TestService;
  before(async () => {
    s = await openTestService();
  });
  after(() => s.close());

  test('GET /v1/ids/{scheme}: every scheme, count defaults to 1, IDs are strings', async () => {
    const checks: Record<string, (id: string) => boolean> = {
      uuidv4: (id) => uuidVersion(id) === 4,
      uuidv7: (id) => uuidVersion(id) === 7,
      ulid: (id) => isUlid(id),
      ksuid: (id) => isKsuid(id),
      snowflake: (id) => /^\d+$/.test(id) && parseSnowflake(id) > 0n,
    };
    for (const [scheme, valid] of Object.entries(checks)) {
      const one = await s.app.inject(`/v1/ids/${scheme}`);
      assert.equal(one.statusCode, 200, one.body);
      assert.match(String(one.headers['content-type']), /^application\/json/);
      const body = one.json() as { ids: unknown[] };
      assert.equal(body.ids.length, 1);
      const many = (await s.app.inject(`/v1/ids/${scheme}?count=500`)).json() as { ids: string[] };
      assert.equal(many.ids.length, 500);
      assert.equal(new Set(many.ids).size, 500, `${scheme}: 500 distinct`);
      for (const id of many.ids) assert.ok(typeof id === 'string' && valid(id), `${scheme}: ${id}`);
    }
  });

  test('Snowflake IDs carry the leased worker ID and increase', async () => {
    const node = s.deps.nodes.get('default');
    const ids = (
      (await s.app.inject('/v1/ids/snowflake?count=1000')).json() as { ids: string[] }
    ).ids.map(BigInt);
    const layout = getLayout('default');
    for (let i = 1; i < ids.length; i++) assert.ok((ids[i] as bigint) > (ids[i - 1] as bigint));
    const node0 = ((ids[0] as bigint) >> 12n) & 1023n;
    assert.equal(Number(node0), node?.workerId);
    assert.equal(layout.name, 'default');
  });

  test('UUIDv7s (and ULIDs) of one answer and of the next are strictly increasing (one clock read per answer)', async () => {
    const first = ((await s.app.inject('/v1/ids/uuidv7?count=10000')).json() as { ids: string[] })
      .ids;
    const second = ((await s.app.inject('/v1/ids/uuidv7?count=10')).json() as { ids: string[] })
      .ids;
    const all = [...first, ...second];
    for (let i = 1; i < all.length; i++)
      assert.ok((all[i] as string) > (all[i - 1] as string), `at ${i}`);
    assert.ok(Math.abs(uuidv7Timestamp(all.at(-1) as string) - Date.now()) < 60_000);
    const ulids = ((await s.app.inject('/v1/ids/ulid?count=5000')).json() as { ids: string[] }).ids;
    for (let i = 1; i < ulids.length; i++)
      assert.ok((ulids[i] as string) > (ulids[i - 1] as string), `ULID at ${i}`);
  });

  test('Accept: text/plain gives one ID per line', async () => {
    const r = await s.app.inject({
      url: '/v1/ids/ulid?count=3',
      headers: { accept: 'text/plain' },
    });
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    const lines = r.body.split('\n');
    assert.equal(lines.length, 4);
    assert.equal(lines[3], '');
    for (const l of lines.slice(0, 3)) assert.ok(isUlid(l));
  });

  test('bad counts, unknown schemes and layouts are 400 with a code and message', async () => {
    for (const q of ['count=0', 'count=-1', 'count=abc', 'count=1.5', 'count=10001', 'bogus=1']) {
      const r = await s.app.inject(`/v1/ids/uuidv7?${q}`);
      assert.equal(r.statusCode, 400, q);
      const e = (r.json() as { error: { code: string; message: string } }).error;
      assert.equal(e.code, 'IDF_BAD_REQUEST', q);
      assert.ok(e.message.length > 5, q);
    }
    const scheme = await s.app.inject('/v1/ids/uuidv9');
    assert.equal(scheme.statusCode, 400);
    const layout = await s.app.inject('/v1/ids/snowflake?layout=discord');
    assert.equal(layout.statusCode, 400);
    const nope = await s.app.inject('/v2/whatever');
    assert.equal(nope.statusCode, 404);
    assert.equal((nope.json() as { error: { code: string } }).error.code, 'IDF_NOT_FOUND');
  });

  test('sequences: unknown tag 404 naming it; admin routes refused without an admin token', async () => {
    const r = await s.app.inject('/v1/sequences/orders?count=2');
    assert.equal(r.statusCode, 404);
    const e = (r.json() as { error: { code: string; message: string } }).error;
    assert.equal(e.code, 'IDF_UNKNOWN_TAG');
    assert.match(e.message, /orders/);
    const create = await s.app.inject({
      method: 'POST',
      url: '/v1/sequences/orders',
      payload: { step: 10 },
    });
    assert.equal(create.statusCode, 401);
    assert.match(create.body, /admin token/);
  });

  test('inspect and the Leaf decode route read what the node issues', async () => {
    const id = ((await s.app.inject('/v1/ids/snowflake')).json() as { ids: string[] })
      .ids[0] as string;
    const worker = s.deps.nodes.get('default')?.workerId;
    const ins = (await s.app.inject(`/v1/inspect/${id}`)).json() as {
      scheme: string;
      fields: Record<string, number>;
      unixMs: number;
    };
    assert.equal(ins.scheme, 'snowflake');
    assert.equal(ins.fields.node, worker);
    assert.ok(Math.abs(ins.unixMs - Date.now()) < 60_000);
    const dec = (await s.app.inject(`/api/snowflake/decode?id=${id}`)).json() as {
      workerId: number;
      sequenceId: number;
    };
    assert.equal(dec.workerId, worker);
    assert.equal(typeof dec.sequenceId, 'number');
    const bad = await s.app.inject('/v1/inspect/not-an-id');
    assert.equal(bad.statusCode, 400);
    assert.equal((bad.json() as { error: { code: string } }).error.code, 'IDF_INVALID_ID');
  });

  test('Leaf: /api/snowflake/get answers a bare decimal; a segment failure is a 500 text body', async () => {
    const r = await s.app.inject('/api/snowflake/get/anything');
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    assert.match(r.body, /^\d{15,20}$/);
    const miss = await s.app.inject('/api/segment/get/missing');
    assert.equal(miss.statusCode, 500);
    assert.match(String(miss.headers['content-type']), /^text\/plain/);
    assert.match(miss.body, /^IDF_UNKNOWN_TAG: .*missing/);
  });

  test('/healthz, /readyz (each check named), /metrics, /openapi.json', async () => {
    assert.equal((await s.app.inject('/healthz')).statusCode, 200);
    const ready = await s.app.inject('/readyz');
    assert.equal(ready.statusCode, 200, ready.body);
    const checks = (ready.json() as { checks: { name: string; ok: boolean }[] }).checks;
    assert.deepEqual(
      checks.map((c) => c.name),
      ['lease:default', 'clock:default', 'wall-clock', 'sequences'],
    );
    const metrics = await s.app.inject('/metrics');
    assert.match(String(metrics.headers['content-type']), /^text\/plain/);
    for (const name of [
      'idforge_ids_issued_total{scheme="snowflake"}',
      'idforge_http_requests_total{',
      'idforge_http_request_duration_seconds_bucket{',
      'idforge_lease_seconds_to_expiry{layout="default"}',
      'idforge_worker_id{layout="default"}',
      'idforge_lease_renewals_total{layout="default"}',
      'idforge_snowflake_exhaustion_waits_total{layout="default"}',
      'idforge_clock_rollbacks_absorbed_total{layout="default"}',
      'idforge_clock_rollbacks_refused_total',
      'process_cpu_seconds_total',
    ]) {
      assert.ok(metrics.body.includes(name), `metrics include ${name}`);
    }
    const api = (await s.app.inject('/openapi.json')).json() as { paths: Record<string, unknown> };
    for (const p of [
      '/v1/ids/{scheme}',
      '/v1/sequences/{tag}',
      '/v1/sequences/{tag}/segments',
      '/v1/inspect/{id}',
      '/api/segment/get/{key}',
      '/api/snowflake/get/{key}',
    ]) {
      assert.ok(p in api.paths, `OpenAPI documents ${p}`);
    }
    const docs = await s.app.inject('/docs');
    assert.ok(docs.statusCode === 200 || docs.statusCode === 302, `docs page: ${docs.statusCode}`);
  });
});

describe('service API (tokens: scoped, admin)', () => {
  let s: TestService;
  before(async () => {
    s = await openTestService(
      {
        tokens: [
          { name: 'orders-app', token: ORDERS, schemes: ['snowflake'], tags: ['orders'] },
          { name: 'uuids', token: UUIDS, schemes: ['uuidv7'], tags: [] },
        ],
        rateLimit: 50,
        rateWindowMs: 60_000,
      },
      { IDFORGE_ADMIN_TOKEN: ADMIN },
    );
  });
  after(() => s.close());

  test('a token is needed; unknown or malformed ones are 401; out of scope 403', async () => {
    assert.equal((await s.app.inject('/v1/ids/uuidv7')).statusCode, 401);
    assert.equal(
      (await s.app.inject({ url: '/v1/ids/uuidv7', headers: auth('x'.repeat(30)) })).statusCode,
      401,
    );
    assert.equal(
      (await s.app.inject({ url: '/v1/ids/uuidv7', headers: { authorization: 'Basic abc' } }))
        .statusCode,
      401,
    );
    assert.equal(
      (await s.app.inject({ url: '/v1/ids/uuidv7', headers: auth(UUIDS) })).statusCode,
      200,
    );
    const scope = await s.app.inject({ url: '/v1/ids/snowflake', headers: auth(UUIDS) });
    assert.equal(scope.statusCode, 403);
    assert.match(scope.body, /uuids.*snowflake/);
    assert.equal((await s.app.inject('/healthz')).statusCode, 200, 'ops routes stay open');
  });

  test('admin: create a tag, change its step, list tags and leases; numbers and segments never overlap', async () => {
    assert.equal(
      (
        await s.app.inject({
          method: 'POST',
          url: '/v1/sequences/orders',
          headers: auth(ORDERS),
          payload: { step: 100 },
        })
      ).statusCode,
      403,
    );
    const created = await s.app.inject({
      method: 'POST',
      url: '/v1/sequences/orders',
      headers: auth(ADMIN),
      payload: { step: 100, start: '1000' },
    });
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual((created.json() as { maxId: string; step: number }).maxId, '999');
    const again = await s.app.inject({
      method: 'POST',
      url: '/v1/sequences/orders',
      headers: auth(ADMIN),
      payload: { step: 5 },
    });
    assert.equal(again.statusCode, 409);
    const nums = (
      (
        await s.app.inject({ url: '/v1/sequences/orders?count=150', headers: auth(ORDERS) })
      ).json() as { ids: string[] }
    ).ids;
    assert.equal(nums.length, 150);
    assert.equal(nums[0], '1000');
    for (let i = 1; i < nums.length; i++)
      assert.equal(BigInt(nums[i] as string), BigInt(nums[i - 1] as string) + 1n);
    const seg = (
      await s.app.inject({
        method: 'POST',
        url: '/v1/sequences/orders/segments?size=500',
        headers: auth(ORDERS),
      })
    ).json() as { first: string; last: string };
    assert.equal(BigInt(seg.last) - BigInt(seg.first) + 1n, 500n);
    const served = new Set(nums);
    assert.ok(!served.has(seg.first) && BigInt(seg.first) > BigInt(nums.at(-1) as string));
    const step = await s.app.inject({
      method: 'PATCH',
      url: '/v1/sequences/orders',
      headers: auth(ADMIN),
      payload: { step: 250 },
    });
    assert.equal(step.statusCode, 200, step.body);
    assert.equal((step.json() as { step: number }).step, 250);
    const list = (await s.app.inject({ url: '/v1/sequences', headers: auth(ADMIN) })).json() as {
      tags: { tag: string; step: number; buffer: unknown }[];
    };
    assert.equal(list.tags[0]?.tag, 'orders');
    assert.equal(list.tags[0]?.step, 250);
    assert.notEqual(list.tags[0]?.buffer, null);
    const leases = (await s.app.inject({ url: '/v1/leases', headers: auth(ADMIN) })).json() as {
      leases: { workerId: number; self: boolean }[];
    };
    assert.equal(leases.leases.length, 1);
    assert.equal(leases.leases[0]?.self, true);
    assert.equal(
      (await s.app.inject({ url: '/v1/sequences/other', headers: auth(ORDERS) })).statusCode,
      403,
    );
    assert.equal(
      (await s.app.inject({ url: '/v1/leases', headers: auth(ORDERS) })).statusCode,
      403,
    );
  });

  test('the rate limit answers 429 per token, with the code and Retry-After', async () => {
    let limited = null;
    for (let i = 0; i < 60 && limited === null; i++) {
      const r = await s.app.inject({ url: '/v1/ids/uuidv7', headers: auth(UUIDS) });
      if (r.statusCode === 429) limited = r;
    }
    assert.ok(limited !== null, '429 within 60 requests at a limit of 50');
    assert.equal((limited.json() as { error: { code: string } }).error.code, 'IDF_RATE_LIMITED');
    assert.ok(limited.headers['retry-after'] !== undefined);
    const other = await s.app.inject({ url: '/v1/ids/snowflake', headers: auth(ORDERS) });
    assert.equal(other.statusCode, 200, 'another token has its own budget');
  });
});

describe('service API (faults and limits)', () => {
  test('a clock stepped back beyond the tolerance: 503 IDF_CLOCK_ROLLBACK, counted as refused', async () => {
    const clock = new ManualClock(Date.now());
    const s = await openTestService({}, {}, clock);
    try {
      assert.equal((await s.app.inject('/v1/ids/snowflake?count=10')).statusCode, 200);
      clock.advance(-60_000);
      const r = await s.app.inject('/v1/ids/snowflake');
      assert.equal(r.statusCode, 503, r.body);
      assert.equal((r.json() as { error: { code: string } }).error.code, 'IDF_CLOCK_ROLLBACK');
      assert.equal(r.headers['retry-after'], '1');
      const metrics = (await s.app.inject('/metrics')).body;
      assert.match(metrics, /^idforge_clock_rollbacks_refused_total 1$/m);
      assert.match(
        metrics,
        /^idforge_http_requests_total\{route="\/v1\/ids\/:scheme",method="GET",status="503"\} 1$/m,
      );
      clock.advance(60_001);
      assert.equal(
        (await s.app.inject('/v1/ids/snowflake')).statusCode,
        200,
        'issues again once past',
      );
    } finally {
      await s.close();
    }
  });

  test('?layout= serves a configured second layout under its own worker ID; a body over the limit is 413', async () => {
    const s = await openTestService({ layouts: ['discord'], fields: 'process=3', bodyLimit: 64 });
    try {
      const ids = (
        (await s.app.inject('/v1/ids/snowflake?layout=discord&count=3')).json() as { ids: string[] }
      ).ids;
      const ins = (await s.app.inject(`/v1/inspect/${ids[0]}?layout=discord`)).json() as {
        layout: string;
        unixMs: number;
      };
      assert.equal(ins.layout, 'discord');
      assert.ok(Math.abs(ins.unixMs - Date.now()) < 60_000, 'decodes to now under its own layout');
      assert.equal(s.deps.nodes.size, 2);
      const big = await s.app.inject({
        method: 'POST',
        url: '/v1/sequences/x/segments',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ description: 'x'.repeat(200) }),
      });
      assert.equal(big.statusCode, 413);
      assert.equal((big.json() as { error: { code: string } }).error.code, 'IDF_BAD_REQUEST');
    } finally {
      await s.close();
    }
  });
});

test('an event loop lagging past maxEventLoopDelayMs answers 503 IDF_OVERLOADED, then recovers', async () => {
  const s = await openTestService({ maxEventLoopDelayMs: 50 });
  try {
    const overloaded = await waitFor(
      async () => {
        // The lag under test: the loop is held busy, as a CPU-bound handler or a long GC would.
        stallLoop(300);
        await new Promise((r) => setImmediate(r));
        const r = await s.app.inject('/v1/ids/uuidv7');
        return r.statusCode === 503 && r;
      },
      'a 503 while the loop lags',
      10_000,
    );
    assert.equal((overloaded.json() as { error: { code: string } }).error.code, 'IDF_OVERLOADED');
    assert.match(
      (overloaded.json() as { error: { message: string } }).error.message,
      /limit 50 ms/,
    );
    assert.equal(overloaded.headers['retry-after'], '1');
    // Liveness and scraping are never refused: a lagging node is alive, and its metrics
    // matter most then.
    stallLoop(300);
    assert.equal((await s.app.inject('/v1/ids/uuidv7')).statusCode, 503);
    assert.equal((await s.app.inject('/healthz')).statusCode, 200);
    assert.equal((await s.app.inject('/metrics')).statusCode, 200);
    await waitFor(
      async () => (await s.app.inject('/v1/ids/uuidv7')).statusCode === 200,
      'serving again once the loop is idle',
      { everyMs: 20 },
    );
  } finally {
    await s.close();
  }
});

test('a stall shorter than maxEventLoopDelayMs is served: a lag is measured, not assumed', async () => {
  const s = await openTestService({ maxEventLoopDelayMs: 5000 });
  try {
    for (let i = 0; i < 3; i++) {
      stallLoop(400);
      await new Promise((r) => setImmediate(r));
      assert.equal((await s.app.inject('/v1/ids/uuidv7')).statusCode, 200);
    }
  } finally {
    await s.close();
  }
});

test('--sequences redis://: any tag is a guarded counter; blocks and numbers never overlap', async (t) => {
  const skip = await serviceSkip('Redis', SERVERS.redis.host, SERVERS.redis.port);
  if (skip) return t.skip(skip);
  const url = freshNamespaceUrl('redis', 'svc_counter');
  const s = await openTestService({ sequences: url }, { IDFORGE_ADMIN_TOKEN: ADMIN });
  try {
    assert.equal(s.deps.config.marks, s.deps.config.store, 'marks default to the SQLite store');
    const nums = (
      (
        await s.app.inject({ url: '/v1/sequences/jobs?count=1500', headers: auth(ADMIN) })
      ).json() as { ids: string[] }
    ).ids.map(BigInt);
    const seg = (
      await s.app.inject({
        method: 'POST',
        url: '/v1/sequences/jobs/segments?size=300',
        headers: auth(ADMIN),
      })
    ).json() as { first: string; last: string };
    assert.equal(BigInt(seg.last) - BigInt(seg.first) + 1n, 300n);
    const all = new Set(nums);
    for (let v = BigInt(seg.first); v <= BigInt(seg.last); v++) all.add(v);
    assert.equal(all.size, 1800, 'no number twice');
    const create = await s.app.inject({
      method: 'POST',
      url: '/v1/sequences/jobs',
      headers: auth(ADMIN),
      payload: { step: 10 },
    });
    assert.equal(create.statusCode, 400);
    assert.match(create.body, /Redis counters have no stored tags/);
    const ready = (await s.app.inject('/readyz')).json() as {
      checks: { name: string; ok: boolean }[];
    };
    assert.deepEqual(ready.checks.find((c) => c.name === 'sequences')?.ok, true);
  } finally {
    await s.close();
    await dropNamespaces('redis', [url]);
  }
});
