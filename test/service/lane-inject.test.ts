// The tests' app.inject() (test/helpers/lane-inject.ts, through openTestService) meets the fast
// lane as a request on a socket does: a hot route's plain request is answered by the lane,
// anything else by Fastify's routes, and the answers are the ones the routes document.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestService } from '../helpers/service.js';

test('openTestService: app.inject() sends the hot routes through the fast lane, the rest to Fastify', async () => {
  const svc = await openTestService();
  try {
    const lane = svc.app.fastLane;
    assert.ok(lane !== null, 'the app has a fast lane');
    const take = lane.take.bind(lane);
    const taken: string[] = [];
    lane.take = (req, res) => {
      const took = take(req, res);
      if (took) taken.push(req.url ?? '');
      return took;
    };
    const hot = await svc.app.inject({ method: 'GET', url: '/v1/ids/uuidv7?count=2' });
    assert.equal(hot.statusCode, 200);
    assert.equal((hot.json() as { ids: string[] }).ids.length, 2);
    const routed = await svc.app.inject({ method: 'GET', url: '/v1/ids/uuidv7?count=2&x=1' });
    assert.equal(routed.statusCode, 400, 'an extra parameter is the route’s to refuse');
    const health = await svc.app.inject('/healthz');
    assert.equal(health.statusCode, 200);
    assert.deepEqual(taken, ['/v1/ids/uuidv7?count=2'], 'only the plain hot request took the lane');
  } finally {
    await svc.close();
  }
});
