// The lease routes over real HTTP (a listening app on a SQLite store): the `lease` scope both
// ways (a lease token mints no ID and calls no admin route; an ids token takes no lease), a
// node leasing through httpLeaseStore shown with its holder by /v1/leases and `idforge leases`,
// and the requests the service refuses before its store sees them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { httpLeaseStore, ServiceAuthError } from '../../packages/idforge/src/client/index.js';
import {
  ClockSkewError,
  createSnowflakeNode,
  type LeaseStore,
  StoreUnavailableError,
} from '../../packages/idforge/src/coord/index.js';
import { blockingSleep } from '../../packages/idforge/src/core/internal.js';
import { buildApp, ConfigError, resolveConfig } from '../../packages/server/src/service/index.js';
import { openLeaseStore } from '../../packages/stores/src/open.js';
import { cli } from '../helpers/cli.js';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { openTestService, type TestService } from '../helpers/service.js';
import { serviceSkip } from '../helpers/services.js';
import { closedPort } from '../helpers/tcp.js';

const LEASE = 'lease-only-token-0123456789';
const IDS = 'ids-only-token-0123456789ab';
const ADMIN = 'admin-token-0123456789abcdef';
const SMALL = 'small-lease-token-0123456789';
const ONE = 'one-lease-token-0123456789ab';
const pgSkip = await serviceSkip('PostgreSQL', SERVERS.postgres.host, SERVERS.postgres.port);
let svc: TestService;

/** Runs `fn` on an app whose lease store is a fresh PostgreSQL namespace, dropped after. */
async function onPostgres(fn: (app: FastifyInstance, direct: LeaseStore) => Promise<void>) {
  const url = freshNamespaceUrl('postgres', 'lease_routes');
  const direct = await openLeaseStore(url);
  await direct.migrate();
  const app = await buildApp({ ...svc.deps, leaseStore: direct });
  try {
    await fn(app, direct);
  } finally {
    await app.close();
    await direct.close();
    await dropNamespaces('postgres', [url]);
  }
}
let base = '';

const call = (method: string, path: string, token: string, body?: unknown) =>
  fetch(base + path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const acquireBody = (over: Record<string, unknown> = {}) => ({
  min: 0,
  max: 3,
  ttlMs: 5000,
  instanceId: randomUUID(),
  host: 'fn-host',
  pid: 4242,
  startedAtMs: Date.now(),
  clockMs: Date.now(),
  reserveMarkMs: 0,
  ...over,
});

before(async () => {
  svc = await openTestService({
    workers: '100-101',
    tokens: [
      { name: 'fn-pool', token: LEASE, scopes: ['lease'] },
      { name: 'api', token: IDS },
      { name: 'ops', token: ADMIN, admin: true },
      { name: 'fn-small', token: SMALL, scopes: ['lease'], workers: '200-203', maxLeases: 2 },
      { name: 'fn-one', token: ONE, scopes: ['lease'], maxLeases: 1 },
    ],
  });
  base = await svc.app.listen({ host: '127.0.0.1', port: 0 });
});
after(() => svc.close());

describe('the lease scope', () => {
  test('a token has scopes ["ids"] by default; others are refused by name', () => {
    const values = (scopes?: unknown) => ({
      file: { path: 'idforge.json', values: { tokens: [{ name: 'a', token: LEASE, scopes }] } },
    });
    assert.deepEqual(resolveConfig(values()).tokens[0]?.scopes, ['ids']);
    assert.deepEqual(resolveConfig(values(['lease', 'ids'])).tokens[0]?.scopes, ['lease', 'ids']);
    for (const bad of [[], ['admin'], 'lease', [1]]) {
      assert.throws(
        () => resolveConfig(values(bad)),
        (e: unknown) =>
          e instanceof ConfigError &&
          e.key.endsWith('tokens[0].scopes') &&
          /a list of ids, lease/.test(e.message),
        JSON.stringify(bad),
      );
    }
  });

  test('a lease token mints no ID, draws no number and calls no admin route', async () => {
    for (const [method, path] of [
      ['GET', '/v1/ids/snowflake'],
      ['GET', '/v1/ids/uuidv7?count=2'],
      ['GET', '/v1/sequences/orders'],
      ['GET', '/api/snowflake/get/x'],
      ['GET', '/v1/leases'],
      ['GET', '/v1/sequences'],
    ] as const) {
      const res = await call(method, path, LEASE);
      assert.equal(res.status, 403, `${method} ${path}`);
      assert.match(await res.text(), /IDF_FORBIDDEN/);
    }
    assert.equal((await call('GET', '/v1/worker-leases', LEASE)).status, 200);
  });

  test('an ids token (and an admin token without the scope) takes no lease', async () => {
    for (const token of [IDS, ADMIN]) {
      const res = await call('POST', '/v1/worker-leases', token, acquireBody());
      assert.equal(res.status, 403);
      assert.match(await res.text(), /may not take worker-ID leases/);
      assert.equal((await call('GET', '/v1/worker-leases', token)).status, 403);
    }
    assert.equal((await call('GET', '/v1/ids/snowflake', IDS)).status, 200);
    const store = httpLeaseStore({ urls: [base], token: IDS });
    await assert.rejects(
      store.acquire({ ...acquireBody(), owner: ownerOf(), ttlMs: 5000 } as never),
      ServiceAuthError,
    );
    await store.close();
  });

  test('the service refuses a reversed or huge range and a mark far ahead', async () => {
    const far = Date.now() + 10 * 3_600_000;
    for (const body of [
      acquireBody({ min: 5, max: 4 }),
      acquireBody({ min: 0, max: 70_000 }),
      acquireBody({ reserveMarkMs: far }),
      acquireBody({ instanceId: 'a@b' }),
    ]) {
      const res = await call('POST', '/v1/worker-leases', LEASE, body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    const listed = await call('GET', '/v1/worker-leases', LEASE).then((r) => r.json());
    assert.deepEqual(
      listed.leases.map((l: { workerId: number }) => l.workerId),
      [100],
      'only the service node itself holds a lease',
    );
  });
});

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function ownerOf() {
  return { instanceId: randomUUID(), host: hostname(), pid: process.pid, startedAtMs: Date.now() };
}

describe('a node leasing through the service', () => {
  test('issues IDs, is listed with its holder, and releases its exact mark at close', async () => {
    const store = httpLeaseStore({ urls: [base], token: LEASE });
    const node = await createSnowflakeNode({ store, workerIds: [0, 3], logger: quiet });
    try {
      const ids = node.batch(1000);
      assert.equal(new Set(ids).size, 1000);
      const listed = await (await call('GET', '/v1/leases', ADMIN)).json();
      const mine = listed.leases.find((l: { workerId: number }) => l.workerId === node.workerId);
      assert.equal(mine.token, 'fn-pool');
      assert.equal(mine.host, hostname());
      assert.equal(mine.pid, process.pid);
      assert.match(mine.instanceId, /^[0-9a-f-]{36}@fn-pool$/);
      const own = (await store.list()).find((l) => l.workerId === node.workerId);
      assert.match(own!.instanceId, /^[0-9a-f-]{36}$/, 'its own instance ID, as it sent it');
      const out = await cli(['leases', '--store', svc.deps.leaseStore.address]);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, new RegExp(`${mine.instanceId}\\s+${hostname()}\\s+${process.pid}`));
    } finally {
      const workerId = node.workerId!;
      await node.close();
      const mark = await svc.deps.leaseStore.readMark(workerId);
      assert.ok(mark !== null && mark <= Date.now() + 1, `the exact mark at close, ${mark}`);
      await store.close();
    }
  });

  test("the fleet clock check reads the store's clock through the service", async () => {
    const store = httpLeaseStore({ urls: [base], token: LEASE });
    const ahead = {
      now: () => Date.now() + 5000,
      nowPrecise: () => Date.now() + 5000,
      sleep: blockingSleep,
    };
    try {
      await assert.rejects(
        createSnowflakeNode({
          store,
          workerIds: [0, 3],
          clock: ahead,
          maxSkewMs: 1000,
          logger: quiet,
        }),
        ClockSkewError,
      );
      const left = await call('GET', '/v1/worker-leases', LEASE).then((r) => r.json());
      assert.deepEqual(
        left.leases.map((l: { workerId: number }) => l.workerId),
        [100],
        'the refused node released what it leased',
      );
    } finally {
      await store.close();
    }
  });

  test('every URL down is the port StoreUnavailableError (backend http)', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const store = httpLeaseStore({ urls: [url], token: LEASE, timeoutMs: 500 });
    await assert.rejects(store.list(), (e) => {
      assert.ok(e instanceof StoreUnavailableError);
      assert.equal(e.backend, 'http');
      assert.equal(e.address, url);
      assert.equal(e.operation, 'list');
      return true;
    });
    await store.close();
  });
});

describe('what a lease token can do to a mark (issue 32)', () => {
  const release = (workerId: number, instanceId: string, finalMarkMs: number | null) =>
    call('POST', `/v1/worker-leases/${workerId}/release`, LEASE, { instanceId, finalMarkMs });

  test('a release to 0 leaves the mark a former holder left (item 8)', async () => {
    const holder = acquireBody({ min: 981, max: 981, reserveMarkMs: Date.now() + 2000 });
    const got = await call('POST', '/v1/worker-leases', LEASE, holder).then((r) => r.json());
    assert.equal(got.lease?.workerId, 981);
    const left = Date.now() + 1000;
    assert.equal((await release(981, holder.instanceId, left)).status, 200);
    const eraser = acquireBody({ min: 981, max: 981, instanceId: 'eraser' });
    const taken = await call('POST', '/v1/worker-leases', LEASE, eraser).then((r) => r.json());
    assert.equal(taken.lease?.previousMarkMs, left);
    assert.equal((await release(981, 'eraser', 0)).status, 200);
    const read = await call('GET', '/v1/worker-leases/981/mark', LEASE).then((r) => r.json());
    assert.equal(read.markMs, left, 'the mark found at grant stays');
  });
});

describe('what one lease token can hold (issue 32 item 9)', () => {
  const acquire = (token: string, over: Record<string, unknown>) =>
    call('POST', '/v1/worker-leases', token, acquireBody(over));

  test('a TTL past leaseMaxTtlMs and a mark past leaseMaxMarkAheadMs are 400s naming them', async () => {
    const day = await acquire(LEASE, { min: 900, max: 900, ttlMs: 86_400_000 });
    assert.equal(day.status, 400);
    assert.match(await day.text(), /ttlMs 86400000 is more than leaseMaxTtlMs \(60000\)/);
    const ahead = await acquire(LEASE, { min: 900, max: 900, reserveMarkMs: Date.now() + 600_000 });
    assert.equal(ahead.status, 400);
    assert.match(await ahead.text(), /reserveMarkMs .* leaseMaxMarkAheadMs \(90000\)/);
    const ok = await acquire(LEASE, { min: 900, max: 900, ttlMs: 60_000 });
    const { lease } = await ok.json();
    assert.equal(lease?.workerId, 900);
    const renew = (body: Record<string, unknown>) =>
      call('POST', '/v1/worker-leases/900/renew', LEASE, {
        instanceId: lease.instanceId,
        ttlMs: 5000,
        reserveMarkMs: Date.now(),
        clockMs: Date.now(),
        ...body,
      });
    assert.equal((await renew({ ttlMs: 3_600_000 })).status, 400);
    assert.equal((await renew({ reserveMarkMs: Date.now() + 86_400_000 })).status, 400);
    const mark = await call('GET', '/v1/worker-leases/900/mark', LEASE).then((r) => r.json());
    assert.ok(mark.markMs < Date.now() + 90_000, `the mark stayed near the clock: ${mark.markMs}`);
    assert.equal((await renew({})).status, 200);
  });

  test("a token's workers range and maxLeases bound what it takes", async () => {
    const outside = await acquire(SMALL, { min: 0, max: 203 });
    assert.equal(outside.status, 403);
    assert.match(
      (await outside.json()).error.message,
      /"fn-small" may lease worker IDs 200-203 only, asked 0-203/,
    );
    const a = await acquire(SMALL, { min: 200, max: 203 }).then((r) => r.json());
    const b = await acquire(SMALL, { min: 200, max: 203 }).then((r) => r.json());
    assert.deepEqual([a.lease?.workerId, b.lease?.workerId], [200, 201]);
    const third = await acquire(SMALL, { min: 200, max: 203 });
    assert.equal(third.status, 403);
    assert.match((await third.json()).error.message, /"fn-small" holds 2 leases, its maxLeases/);
    const listed = await call('GET', '/v1/worker-leases', SMALL).then((r) => r.json());
    assert.deepEqual(
      listed.leases.filter((l: { token: string }) => l.token === 'fn-small').length,
      2,
      'the refused grant left nothing behind',
    );
    const release = { instanceId: a.lease.instanceId, finalMarkMs: null };
    assert.equal((await call('POST', '/v1/worker-leases/200/release', SMALL, release)).status, 200);
    const again = await acquire(SMALL, { min: 200, max: 203 }).then((r) => r.json());
    assert.equal(again.lease?.workerId, 200, 'a released lease frees its place');
  });

  // On PostgreSQL, whose calls overlap on the wire (SQLite's run one after another), so the
  // acquires' counts all run before any grant is stored.
  test('racing acquires of one token never leave it more than maxLeases', {
    skip: pgSkip,
  }, async () => {
    await onPostgres(async (app, direct) => {
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          app.inject({
            method: 'POST',
            url: '/v1/worker-leases',
            headers: { authorization: `Bearer ${ONE}` },
            payload: acquireBody({ min: 300, max: 309 }),
          }),
        ),
      );
      const statuses = answers.map((r) => r.statusCode).sort();
      assert.ok(
        statuses.every((st) => st === 200 || st === 403),
        `statuses ${statuses}`,
      );
      const mine = (await direct.list()).filter((l) => l.instanceId.endsWith('@fn-one'));
      assert.ok(mine.length <= 1, `fn-one holds ${mine.length} leases (statuses ${statuses})`);
    });
  });

  test('the OpenAPI document says what is bounded and by which setting', async () => {
    const doc = await call('GET', '/openapi.json', ADMIN).then((r) => r.json());
    const acquireOp = doc.paths['/v1/worker-leases'].post;
    assert.match(acquireOp.description, /ttlMs at most 60000 ms \(setting leaseMaxTtlMs\)/);
    assert.match(acquireOp.description, /at most 90000 ms past its clock/);
    assert.match(acquireOp.responses['403'].description, /"workers".*"maxLeases"/);
    const body = acquireOp.requestBody.content['application/json'].schema.properties;
    assert.match(body.ttlMs.description, /leaseMaxTtlMs/);
    assert.match(body.reserveMarkMs.description, /leaseMaxMarkAheadMs/);
    const release = doc.paths['/v1/worker-leases/{workerId}/release'].post;
    const final = release.requestBody.content['application/json'].schema.properties.finalMarkMs;
    assert.match(final.description, /leaseMaxMarkAheadMs/);
  });

  test('token workers and maxLeases are checked at start', () => {
    const values = (extra: Record<string, unknown>) => ({
      file: {
        path: 'idforge.json',
        values: { tokens: [{ name: 'a', token: LEASE, scopes: ['lease'], ...extra }] },
      },
    });
    const t = resolveConfig(values({ workers: '5-9', maxLeases: 3 })).tokens[0];
    assert.deepEqual([t?.workers, t?.maxLeases], [[5, 9], 3]);
    const d = resolveConfig(values({})).tokens[0];
    assert.deepEqual([d?.workers, d?.maxLeases], [null, null]);
    for (const [key, bad] of [
      ['workers', '9-5'],
      ['workers', 'x'],
      ['maxLeases', 0],
      ['maxLeases', '1e3'],
    ] as const) {
      assert.throws(
        () => resolveConfig(values({ [key]: bad })),
        (e: unknown) => e instanceof ConfigError && e.key.endsWith(`tokens[0].${key}`),
        `${key} ${bad}`,
      );
    }
    assert.throws(
      () => resolveConfig({ file: { path: 'f', values: { leaseMaxMarkAheadMs: 1000 } } }),
      (e: unknown) => e instanceof ConfigError && /leaseMaxTtlMs/.test(e.message),
    );
  });
});

describe('integers and text a caller sends (issue 32 item 10)', () => {
  test('a worker ID in a path is decimal digits, nothing else', async () => {
    for (const bad of ['0x10', '1e3', '+1', '1.0', '%201', '0b11', '-1']) {
      for (const [method, path, body] of [
        ['GET', `/v1/worker-leases/${bad}/mark`, undefined],
        ['POST', `/v1/worker-leases/${bad}/release`, { instanceId: 'x', finalMarkMs: null }],
      ] as const) {
        const res = await call(method, path, LEASE, body);
        assert.equal(res.status, 400, `${method} ${path}`);
        const { error } = await res.json();
        assert.equal(error.code, 'IDF_BAD_REQUEST');
        assert.match(error.message, /params\/workerId/, `${method} ${path}: ${error.message}`);
      }
    }
    const ok = await call('GET', '/v1/worker-leases/16/mark', LEASE).then((r) => r.json());
    assert.equal(ok.workerId, 16);
  });

  test('an integer in a body is a JSON number, not a string', async () => {
    for (const [field, value] of [
      ['min', '500'],
      ['max', '3'],
      ['ttlMs', '5000'],
      ['pid', '1'],
      ['reserveMarkMs', '0'],
    ] as const) {
      const res = await call('POST', '/v1/worker-leases', LEASE, acquireBody({ [field]: value }));
      assert.equal(res.status, 400, field);
      const { error } = await res.json();
      assert.match(error.message, new RegExp(`body/${field}`), error.message);
    }
    const renew = await call('POST', '/v1/worker-leases/0/renew', LEASE, {
      instanceId: 'x',
      ttlMs: '5000',
      reserveMarkMs: 0,
      clockMs: 0,
    });
    assert.equal(renew.status, 400);
    assert.match((await renew.json()).error.message, /body\/ttlMs/);
  });

  // On PostgreSQL, which refuses a NUL in text: the request came back a 503 and a store error.
  test('a control character in host is a 400 naming it; the store never sees it', {
    skip: pgSkip,
  }, async () => {
    await onPostgres(async (app, direct) => {
      for (const host of ['\u0000', 'a\nb', 'tab\there']) {
        const res = await app.inject({
          method: 'POST',
          url: '/v1/worker-leases',
          headers: { authorization: `Bearer ${LEASE}` },
          payload: acquireBody({ min: 0, max: 0, host }),
        });
        assert.equal(res.statusCode, 400, JSON.stringify(host));
        assert.equal(
          res.json().error.message,
          'body/host must contain no control character (U+0000 to U+001F, U+007F)',
        );
      }
      assert.deepEqual(await direct.list(), [], 'nothing was leased');
      const metrics = await svc.deps.metrics.registry.getSingleMetricAsString(
        'idforge_store_errors_total',
      );
      assert.doesNotMatch(metrics, /operation="acquire"/, 'no store error was counted');
    });
  });
});
