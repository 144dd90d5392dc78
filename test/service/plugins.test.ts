// The app's plugins say what they need (plugins/plugin.ts) and Fastify checks it when they are
// registered: an app assembled in another order than buildApp's fails to start, naming what is
// missing, instead of serving routes without their gate, count or error handler.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import type { ServiceDeps } from '../../packages/server/src/service/deps.js';
import { authPlugin } from '../../packages/server/src/service/http/plugins/auth.js';
import { gatePlugin } from '../../packages/server/src/service/http/plugins/gate.js';
import { loadGuardPlugin } from '../../packages/server/src/service/http/plugins/load-guard.js';
import { shutdownPlugin } from '../../packages/server/src/service/http/plugins/shutdown.js';
import { idRoutes } from '../../packages/server/src/service/http/routes/ids.js';
import { openTestService } from '../helpers/service.js';

async function refusal(register: (app: ReturnType<typeof Fastify>) => void): Promise<string> {
  const app = Fastify();
  register(app);
  try {
    await app.ready();
  } catch (error) {
    return (error as Error).message;
  } finally {
    await app.close();
  }
  return 'started';
}

test('a plugin registered before what it needs is refused, naming it', async () => {
  const config = { maxEventLoopDelayMs: 0, tokens: [], protectOps: false };
  const deps = { config } as unknown as ServiceDeps;
  assert.match(
    await refusal((app) => app.register(gatePlugin, deps)),
    /'drain' required by 'idforge-gate'/,
  );
  assert.match(
    await refusal((app) => {
      app.register(shutdownPlugin, deps);
      app.register(loadGuardPlugin, deps);
      app.register(gatePlugin, deps);
    }),
    /'authorize' required by 'idforge-gate'/,
  );
  assert.equal(
    await refusal((app) => {
      app.register(shutdownPlugin, deps);
      app.register(loadGuardPlugin, deps);
      app.register(authPlugin, deps);
      app.register(gatePlugin, deps);
    }),
    'started',
  );
  assert.match(await refusal((app) => app.register(idRoutes, deps as never)), /idforge-gate/);
});

test("buildApp's order meets every plugin's needs; the route plugins stay in their context", async () => {
  const s = await openTestService();
  try {
    const tree = s.app.printPlugins();
    for (const name of ['idforge-gate', 'idforge-errors', 'idforge-docs', 'idforge-routes-ids']) {
      assert.ok(tree.includes(name), `${name} in\n${tree}`);
    }
    assert.equal(typeof s.app.drain.closing, 'boolean');
    assert.equal(s.app.loadGuard, null, 'off in tests (maxEventLoopDelayMs 0)');
  } finally {
    await s.close();
  }
});
