// Issue 19 §14: OpenAPI gaps. The `bearer` scheme was defined but no operation had `security`;
// /readyz, the Leaf routes and /api/snowflake/decode listed only some of the statuses they
// answer. Now the document is checked by an independent validator
// (@seriousme/openapi-schema-validator), every operation says how it is secured on this
// configuration, and every status a route answers in the scenarios below is declared.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openTestService, type TestService } from '../helpers/service.js';

interface Operation {
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

const ADMIN = 'admin-token-19-openapi-0000000';
const SCOPED = 'scoped-token-19-openapi-000000';
// Issue 32 §15: a token of the `lease` scope only is refused (403) by every `ids` route,
// /api/snowflake/decode and /v1/inspect included, which did not declare it.
const LEASER = 'leaser-token-32-openapi-000000';
const tokens = [
  { name: 'admin', token: ADMIN, admin: true },
  { name: 'scoped', token: SCOPED, schemes: ['ksuid'], tags: ['other'] },
  { name: 'leaser', token: LEASER, scopes: ['lease'] },
];

async function documentOf(s: TestService): Promise<Doc> {
  const r = await s.app.inject({
    url: '/openapi.json',
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  assert.equal(r.statusCode, 200);
  return r.json() as Doc;
}

function operations(doc: Doc): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method, path, op })),
  );
}

/** Which access a path has (docs/service.md, Routes). */
function access(method: string, path: string): 'ids' | 'admin' | 'ops' {
  if (['/healthz', '/readyz', '/metrics', '/v1/status'].includes(path)) return 'ops';
  if (path === '/v1/leases' || path === '/v1/sequences') return 'admin';
  if (path === '/v1/sequences/{tag}' && method !== 'get') return 'admin';
  return 'ids';
}

for (const [title, settings] of [
  ['default configuration', {}],
  ['tokens, rate limit, protected ops', { tokens, rateLimit: 100, protectOps: true }],
] as const) {
  describe(`the OpenAPI document (${title})`, () => {
    let s: TestService;
    let doc: Doc;
    before(async () => {
      s = await openTestService(settings);
      doc = await documentOf(s);
    });
    after(() => s.close());

    test('is valid for an independent OpenAPI validator', async () => {
      const r = await new Validator().validate(
        doc as unknown as Parameters<Validator['validate']>[0],
      );
      assert.ok(r.valid, JSON.stringify(r.errors, null, 1)?.slice(0, 2000));
    });

    test('every operation says how it is secured', () => {
      const secured = 'tokens' in settings;
      for (const { method, path, op } of operations(doc)) {
        assert.ok(Array.isArray(op.security), `${method} ${path} has security`);
        const bearer = op.security.some((r) => 'bearer' in r);
        const a = access(method, path);
        const expected =
          a === 'admin' || (a === 'ids' && secured) || (a === 'ops' && 'protectOps' in settings);
        assert.equal(bearer, expected, `${method} ${path}: bearer ${bearer}`);
      }
    });

    test('every operation declares 400 and 503; 401, 403, 414, 429 where they apply', () => {
      for (const { method, path, op } of operations(doc)) {
        const has = (s: number) => String(s) in op.responses;
        const a = access(method, path);
        const what = `${method} ${path} declares`;
        for (const status of [400, 500, 503]) assert.ok(has(status), `${what} ${status}`);
        if (a !== 'ops' || 'protectOps' in settings) assert.ok(has(401), `${what} 401`);
        if (a === 'admin' || /\/(ids|sequences|segment|snowflake\/get)\b/.test(path)) {
          assert.ok(has(403), `${what} 403`);
        }
        if (a === 'ids' && 'tokens' in settings) assert.ok(has(403), `${what} 403`);
        if (path.includes('{')) assert.ok(has(414), `${what} 414`);
        if ('rateLimit' in settings && a !== 'ops') assert.ok(has(429), `${what} 429`);
      }
    });
  });
}

describe('the statuses each route answers are the ones it declares', () => {
  const seen = new Map<string, Set<number>>();
  let s: TestService;
  let limited: TestService;
  before(async () => {
    // Without the fast lane: the hook below sees every answer the routes give (the lane's are
    // the same: test/service/lane-differential.test.ts), and an app with the lane would refuse
    // a hook on the hot routes that it does not run.
    const noLane = { fastLane: false };
    s = await openTestService({ tokens, protectOps: true, rateLimit: 1000 }, {}, undefined, noLane);
    limited = await openTestService(
      { tokens, rateLimit: 1, rateWindowMs: 60_000 },
      {},
      undefined,
      noLane,
    );
    for (const app of [s.app, limited.app]) {
      app.addHook('onResponse', (req, reply, done) => {
        const key = `${req.method.toLowerCase()} ${req.routeOptions.url?.replace(/:(\w+)/g, '{$1}')}`;
        if (!seen.has(key)) seen.set(key, new Set());
        seen.get(key)?.add(reply.statusCode);
        done();
      });
    }
    const created = await s.app.inject({
      method: 'POST',
      url: '/v1/sequences/a',
      headers: { authorization: `Bearer ${ADMIN}` },
      payload: {},
    });
    assert.equal(created.statusCode, 201, created.body);
  });
  after(async () => {
    await s.close();
    await limited.close();
  });

  test('every route, with every kind of caller', async () => {
    const doc = await documentOf(s);
    // good, an unknown path value (tag, ID), a bad query; creating tag "a" again is a 409
    // (creating "missing" would make it exist for the routes after)
    const sample = (method: string, path: string, variant: 0 | 1 | 2) =>
      path
        .replace('{scheme}', variant === 1 ? 'nope' : 'uuidv4')
        .replace('{tag}', variant === 1 && method !== 'post' ? 'missing' : 'a')
        .replace('{key}', variant === 1 ? 'missing' : 'a')
        .replace('{id}', variant === 1 ? 'zz' : '42') +
      (path === '/api/snowflake/decode'
        ? ['?id=42', '?id=99999999999999999999', '?id=x'][variant]
        : variant === 2
          ? '?bogus=1'
          : '');
    const callers = [undefined, 'nobody-known-token-0000000', SCOPED, LEASER, ADMIN];
    for (const { method, path } of operations(doc)) {
      for (const variant of [0, 1, 2] as const) {
        for (const token of callers) {
          for (const app of [s.app, limited.app, limited.app]) {
            await app.inject({
              method: method.toUpperCase() as 'GET',
              url: sample(method, path, variant),
              headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
              ...(method === 'get' ? {} : { payload: variant === 2 ? { nope: 1 } : { step: 5 } }),
            });
          }
        }
      }
    }
    const statuses = new Set<number>();
    for (const { method, path, op } of operations(doc)) {
      for (const status of seen.get(`${method} ${path}`) ?? []) {
        statuses.add(status);
        assert.ok(
          String(status) in op.responses,
          `${method} ${path} answered ${status}, undeclared`,
        );
      }
    }
    for (const status of [200, 201, 400, 401, 403, 404, 409, 429, 500])
      assert.ok(statuses.has(status), `${status} seen`);
  });
});
