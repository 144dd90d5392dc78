// The fast lane opens only when the hot routes run the hooks whose work it does
// (packages/server/src/service/http/hot-chain.ts): a hook added to them, which the lane would skip,
// stops the app from starting, naming the route and the hook.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import {
  chainDifferences,
  checkHotChains,
  HOT_ROUTES,
  hookChains,
  knownHooks,
} from '../../packages/server/src/service/http/hot-chain.js';
import { openTestService } from '../helpers/service.js';

test('the hot routes of a built app run the hooks the lane knows, and the lane opens', async () => {
  const svc = await openTestService({ rateLimit: 100 });
  try {
    await svc.app.ready();
    const chains = hookChains(svc.app);
    for (const route of HOT_ROUTES) assert.deepEqual(chains.get(route), knownHooks(true), route);
    assert.deepEqual(chains.get('/healthz'), knownHooks(true), 'a route beside them is read too');
    const r = await svc.app.inject('/v1/ids/ulid');
    assert.equal(r.statusCode, 200);
    assert.ok((svc.app.fastLane?.taken ?? 0) > 0, 'the lane is open');
    // Told the rate limit is off, the lane would skip the hook that counts it.
    assert.throws(
      () => checkHotChains(svc.app, false),
      /GET \/v1\/ids\/:scheme runs .*idforgeRateLimit.*the fast lane knows/,
    );
  } finally {
    await svc.close();
  }
});

test('a hook the lane does not know, on the app or on a hot route, is a difference', async () => {
  const app = Fastify();
  // A root hook, as a plugin that is not encapsulated adds it: every route runs it.
  app.addHook('onSend', async function sneaky() {});
  const gate = function idforgeGate(_r: unknown, _p: unknown, done: () => void) {
    done();
  };
  const metrics = function idforgeMetrics(_r: unknown, _p: unknown, done: () => void) {
    done();
  };
  for (const url of HOT_ROUTES.slice(0, 2))
    app.get(url, { onRequest: [gate], onResponse: [metrics] }, async () => 'x');
  await app.ready();
  try {
    const out = chainDifferences(hookChains(app), knownHooks(false));
    assert.equal(out.length, 3, out.join('\n'));
    assert.match(out[0] as string, /^GET \/v1\/ids\/:scheme runs .*"onSend":\["sneaky"\]/);
    assert.match(out[2] as string, /^GET \/api\/segment\/get\/:key: not found/);
  } finally {
    await app.close();
  }
});

test('an app whose hot routes run a hook the lane does not know does not start', async () => {
  const svc = await openTestService();
  try {
    // Added after the routes: Fastify gives a root hook to every route when the app is ready.
    svc.app.addHook('preValidation', function sneakyCheck(_req, _reply, done) {
      done();
    });
    await assert.rejects(async () => {
      await svc.app.ready();
    }, /preValidation.*sneakyCheck.*the fast lane knows/s);
    assert.equal(svc.app.fastLane?.taken, 0);
  } finally {
    await svc.close().catch(() => undefined);
  }
});
