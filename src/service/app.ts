/**
 * buildApp(deps): the HTTP API over open ports (nodes, stores, sequences). It never opens a
 * store and never listens: server.ts does, and tests call `app.inject()`. One plugin per
 * resource under routes/; schemas in schemas.ts; auth, limits and metrics as hooks here.
 */
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { allowAdmin, TokenAuth } from './auth.js';
import type { Access, IssuedCounts, ServiceDeps } from './deps.js';
import { installDrain } from './drain.js';
import { describeFailure, HttpError, ServiceCode } from './errors.js';
import { LoopLag } from './lag.js';
import { adminRoutes } from './routes/admin.js';
import { healthRoutes } from './routes/health.js';
import { idRoutes } from './routes/ids.js';
import { inspectRoutes } from './routes/inspect.js';
import { leafRoutes } from './routes/leaf.js';
import { sequenceRoutes } from './routes/sequences.js';
import { statusRoutes } from './routes/status.js';
import { errorSchema } from './schemas.js';

/** Routes the event-loop guard never refuses: liveness and scraping matter most under load. */
const UNGUARDED = new Set(['/healthz', '/metrics']);

const guards = new WeakMap<FastifyInstance, LoopLag>();

/** The app's event-loop guard, if maxEventLoopDelayMs is on. */
export function loopLagOf(app: FastifyInstance): LoopLag | undefined {
  return guards.get(app);
}

type Hook = (req: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

/** A route option that may hold one hook or several, as a list. */
function hooks(value: unknown): Hook[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? (value as Hook[]) : [value as Hook];
}

/** The Fastify application (not listening). Close it with `app.close()`; deps stay open. */
export async function buildApp(deps: ServiceDeps): Promise<FastifyInstance> {
  const { config, metrics } = deps;
  const app = Fastify({
    ...(deps.logger === undefined ? { logger: false } : { loggerInstance: deps.logger }),
    bodyLimit: config.bodyLimit,
    // One log line per request would cost more than the request; errors and events are logged.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request (a pino child costs an allocation and its bindings on every
    // call): requests are not logged one by one, and an error's line names its route and code.
    childLoggerFactory: (logger) => logger,
    // Shutdown is drain.ts's: its 503 is in the documented shape with Retry-After, and it
    // closes idle keep-alive connections only after a grace (Fastify's own 503 had neither).
    return503OnClosing: false,
    forceCloseConnections: false,
    ajv: { customOptions: { coerceTypes: true, removeAdditional: false, useDefaults: true } },
  });
  const auth = new TokenAuth(config.tokens);
  const issued: IssuedCounts = {};
  const guard = config.maxEventLoopDelayMs > 0 ? new LoopLag(config.maxEventLoopDelayMs) : null;
  if (guard !== null) {
    guards.set(app, guard);
    guard.start();
    app.addHook('onClose', (_app, done) => {
      guard.stop();
      done();
    });
  }
  // Answered here, not thrown: a shed request is not an error to log, and under load there
  // are many.
  const shed: Hook = (_req, reply, done) => {
    if (guard === null || !guard.overloaded) return done();
    const lag = Math.round(guard.lagMs);
    const message = `the node is overloaded (event loop ${lag} ms behind, limit ${guard.limitMs} ms); retry on another node`;
    reply.code(503).header('retry-after', '1').type('application/json; charset=utf-8');
    reply.send(JSON.stringify({ error: { code: ServiceCode.OVERLOADED, message } }));
  };
  installDrain(app);
  app.decorateRequest('principal', null);
  app.decorateRequest('access', 'ids');
  app.addSchema(errorSchema);

  // Auth and metrics are attached to each route as it is declared, with its access and URL
  // captured once: reading req.routeOptions per request builds an object every time.
  // REF: bench/service (count=1).
  app.addHook('onRoute', (route) => {
    const access: Access = route.config?.access ?? (route.url.startsWith('/docs') ? 'ops' : 'ids');
    const url = route.url;
    const authorize: Hook = (req, _reply, done) => {
      req.access = access;
      if (access === 'ops' && !config.protectOps) return done();
      try {
        req.principal = auth.identify(req.headers.authorization);
        if (access === 'admin') allowAdmin(req.principal);
        done();
      } catch (error) {
        done(error as Error);
      }
    };
    const count: Hook = (req, reply, done) => {
      metrics.request(url, req.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
    const guarded = guard !== null && !UNGUARDED.has(url);
    route.onRequest = [...(guarded ? [shed] : []), authorize, ...hooks(route.onRequest)];
    route.onResponse = [...hooks(route.onResponse), count];
  });
  app.setErrorHandler((error, req, reply) => {
    const f = describeFailure(error);
    if (f.status >= 500) req.log.error({ code: f.code, route: req.routeOptions.url }, f.message);
    const e = error as { code?: string; backend?: string; operation?: string };
    if (typeof e.code === 'string' && e.code.startsWith('IDF_STORE')) {
      metrics.storeError(e.backend ?? 'unknown', e.operation ?? 'unknown');
    }
    if (e.code === 'IDF_CLOCK_ROLLBACK') metrics.rollbackRefused();
    if (f.status === 503 || f.status === 429) reply.header('retry-after', '1');
    reply.code(f.status).type('application/json; charset=utf-8');
    return JSON.stringify({ error: { code: f.code, message: f.message } });
  });
  app.setNotFoundHandler((req, reply) => {
    metrics.request('unmatched', req.method, 404, reply.elapsedTime / 1000);
    reply.code(404).type('application/json; charset=utf-8');
    return JSON.stringify({
      error: {
        code: ServiceCode.NOT_FOUND,
        message: `no route ${req.method} ${req.url.split('?')[0]}; see /docs`,
      },
    });
  });

  if (config.rateLimit > 0) {
    await app.register(rateLimit, {
      global: true,
      hook: 'preHandler',
      max: config.rateLimit,
      timeWindow: config.rateWindowMs,
      keyGenerator: (req) =>
        req.principal === null ? `ip:${req.ip}` : `token:${req.principal.name}`,
      allowList: (req) => req.access === 'ops',
      errorResponseBuilder: (req, ctx) =>
        new HttpError(
          429,
          ServiceCode.RATE_LIMITED,
          `rate limit of ${ctx.max} requests per ${ctx.after} reached for ${req.principal === null ? `client ${req.ip}` : `token "${req.principal.name}"`}; retry later or raise rateLimit`,
        ),
    });
  }
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'idforge',
        version: deps.identity.version,
        description: 'Unique IDs for distributed systems: docs/service.md',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { config: { access: 'ops' }, schema: { hide: true } }, () =>
    app.swagger(),
  );

  const routeDeps = { ...deps, issued };
  await app.register(idRoutes, routeDeps);
  await app.register(sequenceRoutes, routeDeps);
  await app.register(adminRoutes, routeDeps);
  await app.register(inspectRoutes, routeDeps);
  await app.register(leafRoutes, routeDeps);
  await app.register(healthRoutes, routeDeps);
  await app.register(statusRoutes, routeDeps);
  return app;
}
