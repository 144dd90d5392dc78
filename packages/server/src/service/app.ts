/**
 * buildApp(deps): the HTTP API over open ports (nodes, stores, sequences). It never opens a
 * store and never listens: server.ts does, and tests call `app.inject()`. One plugin per
 * concern under plugins/ and one per resource under routes/; schemas in schemas.ts.
 *
 * The plugins, and what each needs registered before it (plugins/plugin.ts: Fastify checks
 * it at registration):
 *
 *   idforge-shutdown     the drain                     (none)
 *   idforge-load-guard   the event-loop guard          (none)
 *   idforge-auth         tokens, principal, access     (none)
 *   idforge-gate         each route's first hook       shutdown, load-guard, auth
 *   idforge-metrics      each route's request count    (none)
 *   idforge-errors       error, 404 handlers, schema   shutdown
 *   idforge-limits       the rate limit                gate, errors
 *   idforge-docs         OpenAPI and Swagger UI        gate, metrics, errors, limits
 *   idforge-routes-*     the resources                 gate, metrics, errors, limits, docs
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import {
  checkingIntervalMs,
  clientErrorHandler,
  frameworkErrors,
  safeError,
} from './client-errors.js';
import type { RouteDeps, ServiceDeps } from './deps.js';
import { IssuedIds } from './issued.js';
import { authPlugin } from './plugins/auth.js';
import { docsPlugin } from './plugins/docs.js';
import { errorsPlugin } from './plugins/errors.js';
import { gatePlugin } from './plugins/gate.js';
import { limitsPlugin } from './plugins/limits.js';
import { loadGuardPlugin } from './plugins/load-guard.js';
import { metricsPlugin } from './plugins/metrics.js';
import { shutdownPlugin } from './plugins/shutdown.js';
import { adminRoutes } from './routes/admin.js';
import { healthRoutes } from './routes/health.js';
import { idRoutes } from './routes/ids.js';
import { inspectRoutes } from './routes/inspect.js';
import { leafRoutes } from './routes/leaf.js';
import { leaseRoutes } from './routes/leases.js';
import { sequenceRoutes } from './routes/sequences.js';
import { statusRoutes } from './routes/status.js';
import { MAX_PARAM_LENGTH } from './schemas.js';

/** The concerns, in an order that meets every plugin's dependencies. */
const PLUGINS = [
  shutdownPlugin,
  loadGuardPlugin,
  authPlugin,
  gatePlugin,
  metricsPlugin,
  errorsPlugin,
  limitsPlugin,
  docsPlugin,
];

/** The resources, in the order the OpenAPI document lists them. */
const ROUTES = [
  idRoutes,
  sequenceRoutes,
  adminRoutes,
  leaseRoutes,
  inspectRoutes,
  leafRoutes,
  healthRoutes,
  statusRoutes,
];

/** Fastify's own settings: the HTTP server's bounds, logging and the framework's answers. */
function fastifyOptions(deps: ServiceDeps) {
  const { config, metrics } = deps;
  return {
    // No error reaches a log line with the request's bytes (Node's rawPacket): see safeError.
    ...(deps.logger === undefined
      ? { logger: false }
      : { loggerInstance: deps.logger.child({}, { serializers: { err: safeError } }) }),
    bodyLimit: config.bodyLimit,
    // A whole request (headers and body) within requestTimeoutMs, checked often enough that
    // the bound holds (Node checks every 30 s by default). A missing Host is answered by the
    // gate in the documented shape, not by Node with an empty 400.
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
    childLoggerFactory: (logger: FastifyBaseLogger) => logger,
    // Shutdown is drain.ts's: its 503 is in the documented shape with Retry-After, and it
    // closes idle keep-alive connections only after a grace (Fastify's own 503 had neither).
    return503OnClosing: false,
    forceCloseConnections: false,
    ajv: { customOptions: { coerceTypes: true, removeAdditional: false, useDefaults: true } },
  };
}

/** The Fastify application (not listening). Close it with `app.close()`; deps stay open. */
export async function buildApp(deps: ServiceDeps): Promise<FastifyInstance> {
  const app = Fastify(fastifyOptions(deps));
  for (const plugin of PLUGINS) await app.register(plugin, deps);
  const routeDeps: RouteDeps = { ...deps, issued: new IssuedIds(deps.metrics) };
  for (const routes of ROUTES) await app.register(routes, routeDeps);
  return app;
}
