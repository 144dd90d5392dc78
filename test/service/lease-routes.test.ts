// The lease routes over real HTTP (a listening app on a SQLite store): the `lease` scope both
// ways (a lease token mints no ID and calls no admin route; an ids token takes no lease), a
// node leasing through httpLeaseStore shown with its holder by /v1/leases and `idforge leases`,
// and the requests the service refuses before its store sees them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { httpLeaseStore } from '../../packages/idforge/src/client/index.js';
import { createSnowflakeNode } from '../../packages/idforge/src/coord/index.js';
import {
  ClockSkewError,
  ServiceAuthError,
  StoreUnavailableError,
} from '../../packages/idforge/src/core/index.js';
import { blockingSleep } from '../../packages/idforge/src/core/internal.js';
import { ConfigError, resolveConfig } from '../../packages/server/src/service/index.js';
import { cli } from '../helpers/cli.js';
import { openTestService, type TestService } from '../helpers/service.js';
import { closedPort } from '../helpers/tcp.js';

const LEASE = 'lease-only-token-0123456789';
const IDS = 'ids-only-token-0123456789ab';
const ADMIN = 'admin-token-0123456789abcdef';
let svc: TestService;
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
