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
import {
  ClockRollbackError,
  StoreAuthError,
  StoreNotMigratedError,
  StorePathError,
  StoreUnavailableError,
} from 'idforge';
import { allowAdmin, TokenAuth } from './auth.js';
import {
  checkingIntervalMs,
  clientErrorHandler,
  frameworkErrors,
  onUnknownExpectation,
  safeError,
} from './client-errors.js';
import type { Access, ServiceDeps } from './deps.js';
import { installDrain } from './drain.js';
import { badRequest, describeFailure, HttpError, ServiceCode } from './errors.js';
import { IssuedIds } from './issued.js';
import { LoopLag } from './lag.js';
import { documentRoute, routeAccess } from './openapi.js';
import { decimalIntegers } from './query.js';
import { adminRoutes } from './routes/admin.js';
import { healthRoutes } from './routes/health.js';
import { idRoutes } from './routes/ids.js';
import { inspectRoutes } from './routes/inspect.js';
import { leafRoutes } from './routes/leaf.js';
import { sequenceRoutes } from './routes/sequences.js';
import { statusRoutes } from './routes/status.js';
import { errorSchema, MAX_PARAM_LENGTH } from './schemas.js';

/** Routes the event-loop guard never refuses: liveness and scraping matter most under load. */
const UNGUARDED = new Set(['/healthz', '/metrics']);

const guards = new WeakMap<FastifyInstance, LoopLag>();

/** The failures of a store (counted by backend and operation in `idforge_store_errors_total`). */
const STORE_FAILURES = [
  StoreUnavailableError,
  StoreNotMigratedError,
  StoreAuthError,
  StorePathError,
];

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
    // No error reaches a log line with the request's bytes (Node's rawPacket): see safeError.
    ...(deps.logger === undefined
      ? { logger: false }
      : { loggerInstance: deps.logger.child({}, { serializers: { err: safeError } }) }),
    bodyLimit: config.bodyLimit,
    // A whole request (headers and body) within requestTimeoutMs, checked often enough that
    // the bound holds (Node checks every 30 s by default). A missing Host is answered by the
    // hook below in the documented shape, not by Node with an empty 400.
    requestTimeout: config.requestTimeoutMs,
    http: {
      headersTimeout: config.requestTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: checkingIntervalMs(config.requestTimeoutMs),
      requireHostHeader: false,
    },
    // Connection-level failures and the router's refusals, in the documented shape.
    clientErrorHandler: clientErrorHandler(config.requestTimeoutMs),
    frameworkErrors: frameworkErrors(metrics),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
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
  const shed = (reply: FastifyReply, guard: LoopLag) => {
    const lag = Math.round(guard.lagMs);
    const message = `the node is overloaded (event loop ${lag} ms behind, limit ${guard.limitMs} ms); retry on another node`;
    reply.code(503).header('retry-after', '1').type('application/json; charset=utf-8');
    reply.send(JSON.stringify({ error: { code: ServiceCode.OVERLOADED, message } }));
  };
  const drain = installDrain(app);
  app.server.on('checkExpectation', onUnknownExpectation);
  // Node's own refusal of a missing Host is an empty 400 (requireHostHeader is off above).
  const hostless = (req: FastifyRequest) =>
    req.headers.host === undefined && req.raw.httpVersion === '1.1';
  const noHost = () => badRequest('an HTTP/1.1 request needs a Host header');
  app.decorateRequest('principal', null);
  app.decorateRequest('access', 'ids');
  app.addSchema(errorSchema);

  // Auth and metrics are attached to each route as it is declared, with its access and URL
  // captured once: reading req.routeOptions per request builds an object every time.
  // REF: bench/service (count=1).
  //
  // Each route's first hook does, in this order, what every request needs before its handler:
  // the shutdown's 503, the Host check, the event-loop guard, auth, and decimal integers in
  // the query: one hook run per request for all five. REF: bench/service (count=1: 42.1 k
  // req/s against 42.6 k before issue 19 added the first two and the last, within the noise).
  app.addHook('onRoute', (route) => {
    const access: Access = routeAccess(route);
    const url = route.url;
    const guarded = guard !== null && !UNGUARDED.has(url);
    const decimal = decimalIntegers(route.schema?.querystring);
    const gate: Hook = (req, reply, done) => {
      if (drain.closing) return drain.refuse(reply);
      if (hostless(req)) return done(noHost());
      if (guarded && guard.overloaded) return shed(reply, guard);
      req.access = access;
      if (access !== 'ops' || config.protectOps) {
        try {
          req.principal = auth.identify(req.headers.authorization);
          if (access === 'admin') allowAdmin(req.principal);
        } catch (error) {
          return done(error as Error);
        }
      }
      if (decimal === null) return done();
      decimal(req, reply, done);
    };
    const count: Hook = (req, reply, done) => {
      metrics.request(url, req.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
    route.onRequest = [gate, ...hooks(route.onRequest)];
    route.onResponse = [...hooks(route.onResponse), count];
  });
  app.setErrorHandler((error, req, reply) => {
    const f = describeFailure(error);
    if (f.status >= 500) req.log.error({ code: f.code, route: req.routeOptions.url }, f.message);
    if (STORE_FAILURES.some((c) => error instanceof c)) {
      const e = error as { backend?: string; operation?: string };
      metrics.storeError(e.backend ?? 'unknown', e.operation ?? 'unknown');
    }
    if (error instanceof ClockRollbackError) metrics.rollbackRefused();
    if (f.status === 503 || f.status === 429) reply.header('retry-after', '1');
    reply.code(f.status).type('application/json; charset=utf-8');
    return JSON.stringify({ error: { code: f.code, message: f.message } });
  });
  app.setNotFoundHandler((req, reply) => {
    if (drain.closing) return drain.refuse(reply);
    if (hostless(req)) throw noHost();
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
    transform: documentRoute(config),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { config: { access: 'ops' }, schema: { hide: true } }, () =>
    app.swagger(),
  );

  const routeDeps = { ...deps, issued: new IssuedIds(metrics) };
  await app.register(idRoutes, routeDeps);
  await app.register(sequenceRoutes, routeDeps);
  await app.register(adminRoutes, routeDeps);
  await app.register(inspectRoutes, routeDeps);
  await app.register(leafRoutes, routeDeps);
  await app.register(healthRoutes, routeDeps);
  await app.register(statusRoutes, routeDeps);
  return app;
}
