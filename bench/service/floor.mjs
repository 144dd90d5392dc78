// The floor of a Fastify route with the parts `idforge serve` runs on every request (a bearer
// token hashed and looked up, a querystring schema, a fixed-window rate limit per token with
// its three headers, an event-loop lag check on a 100 ms timer, a prom-client counter and
// latency histogram), as hooks, answering a constant with no idforge code at all: what the
// service's routes cost before the fast lane (packages/server/src/service/http/fast-lane.ts) took the hot ones off
// Fastify's hook chain. `--bare` leaves all of them out.
// Started by bench/service/main.ts; prints its URL.
import { hash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import client from 'prom-client';

const bare = process.argv.includes('--bare');
const token = process.argv[process.argv.indexOf('--token') + 1] ?? '';
const app = Fastify();
if (!bare) {
  const tokens = new Map([[hash('sha256', token, 'base64'), 'bench']]);
  app.decorateRequest('who', null);
  app.addHook('onRequest', (req, _reply, done) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const who = m === null ? undefined : tokens.get(hash('sha256', m[1], 'base64'));
    if (who === undefined) return done(new Error('unknown token'));
    req.who = who;
    done();
  });
  // What src/service/http/rate-limit.ts does: one fixed window per key, its headers on each answer.
  const windows = new Map();
  app.addHook('preHandler', (req, reply, done) => {
    const now = Date.now();
    let w = windows.get(req.who);
    if (w === undefined || w.start + 60_000 <= now) {
      w = { count: 0, start: now };
      windows.set(req.who, w);
    }
    w.count++;
    reply.header('x-ratelimit-limit', 1e9);
    reply.header('x-ratelimit-remaining', 1e9 - w.count);
    reply.header('x-ratelimit-reset', Math.ceil((w.start + 60_000 - now) / 1000));
    done();
  });
  // What src/service/metrics/lag.ts does: how late a 100 ms timer fires, read on every request.
  let last = performance.now();
  let lag = 0;
  setInterval(() => {
    const now = performance.now();
    lag = Math.max(0, now - last - 100);
    last = now;
  }, 100).unref();
  app.addHook('onRequest', (_req, reply, done) => {
    if (Math.max(lag, performance.now() - last - 100) > 1000) return reply.code(503).send('{}');
    done();
  });
  const registry = new client.Registry();
  const requests = new client.Counter({
    name: 'requests',
    help: 'requests',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: 'latency',
    help: 'latency',
    labelNames: ['route'],
    registers: [registry],
  });
  const r = requests.labels('/', 'GET', '200');
  const l = latency.labels('/');
  app.addHook('onResponse', (_req, reply, done) => {
    r.inc();
    l.observe(reply.elapsedTime / 1000);
    done();
  });
}
const schema = bare
  ? {}
  : {
      querystring: {
        type: 'object',
        properties: { count: { type: 'integer', minimum: 1, maximum: 10_000, default: 1 } },
        additionalProperties: false,
      },
    };
app.get('/', { schema }, async (_req, reply) => {
  reply.type('application/json; charset=utf-8');
  return '{"ids":["1"]}';
});
await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`listening on http://127.0.0.1:${app.server.address().port}`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
