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
 *
 * In front of Fastify, on Node's request event, the fast lane (fast-lane.ts) answers the hot
 * routes' plain requests by calling the functions their hooks and handlers call (admission.ts,
 * auth.ts, rate-limit.ts, reply.ts, errors.ts, metrics.ts); it opens once the app is ready and
 * only if those routes run the hooks it knows (hot-chain.ts), else the app does not start.
 * Every other request, and every request of `app.inject()`, goes through the plugins above.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { RouteDeps, ServiceDeps } from '../deps.js';
import { GeneratedIds } from '../domain/generated.js';
import { IssuedIds } from '../metrics/issued.js';
import { TRUST_PROXY } from './admission.js';
import { paced, watchStalls } from './backpressure.js';
import {
  checkingIntervalMs,
  clientErrorHandler,
  frameworkErrors,
  safeError,
} from './client-errors.js';
import { errorJson, ServiceCode, statusOf } from './errors.js';
import { FastLane } from './fast-lane.js';
import { checkHotChains } from './hot-chain.js';
import { authPlugin } from './plugins/auth.js';
import { docsPlugin } from './plugins/docs.js';
import { errorsPlugin } from './plugins/errors.js';
import { gatePlugin } from './plugins/gate.js';
import { limitsPlugin } from './plugins/limits.js';
import { loadGuardPlugin } from './plugins/load-guard.js';
import { metricsPlugin } from './plugins/metrics.js';
import { shutdownPlugin } from './plugins/shutdown.js';
import { JSON_TYPE } from './reply.js';
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
function fastifyOptions(deps: ServiceDeps, lane: FastLane | null) {
  const { config, metrics } = deps;
  return {
    serverFactory: laneServer(lane, deps),
    // No error reaches a log line with the request's bytes (Node's rawPacket): see safeError.
    ...(deps.logger === undefined
      ? { logger: false }
      : { loggerInstance: deps.logger.child({}, { serializers: { err: safeError } }) }),
    bodyLimit: config.bodyLimit,
    // The client's address as admission.ts's clientIp reads it on both paths (its reason there).
    trustProxy: TRUST_PROXY,
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
    ajv: {
      // verbose: a failure carries the value and its schema, so that a 400 can show them
      // (errors.ts: the value given, the names a schema has). It costs nothing on success.
      customOptions: {
        coerceTypes: true,
        removeAdditional: false,
        useDefaults: true,
        verbose: true,
      },
    },
  };
}

/** Fastify's server settings (as Fastify applies them to a server of its own making). */
interface ServerSettings {
  readonly http?: Parameters<typeof createServer>[0];
  readonly keepAliveTimeout: number;
  readonly requestTimeout: number;
  readonly connectionTimeout: number;
  readonly maxRequestsPerSocket: number;
}

/**
 * The app's HTTP server: the lane's listener (when it has one), then Fastify's, both paced
 * (backpressure.ts: a connection whose answers are not read holds one answer, not one per
 * request) and watched for answers left unread past writeTimeoutMs.
 */
function laneServer(lane: FastLane | null, deps: ServiceDeps) {
  return (
    fastify: (req: IncomingMessage, res: ServerResponse) => void,
    settings: Record<string, unknown>,
  ) => {
    const options = settings as unknown as ServerSettings;
    const server = createServer(options.http ?? {}, paced(laneListener(lane, deps, fastify)));
    server.keepAliveTimeout = options.keepAliveTimeout;
    server.requestTimeout = options.requestTimeout;
    server.setTimeout(options.connectionTimeout);
    if (options.maxRequestsPerSocket > 0)
      server.maxRequestsPerSocket = options.maxRequestsPerSocket;
    const { writeTimeoutMs } = deps.config;
    watchStalls(server, writeTimeoutMs, (socket, pendingBytes) => {
      const remote = socket.remoteAddress;
      const why = `its answers were not read for writeTimeoutMs (${writeTimeoutMs} ms)`;
      deps.logger?.warn({ remote, pendingBytes }, `closed a connection: ${why}`);
    });
    return server;
  };
}

/** The request listener: the lane's answer when it takes the request, else Fastify's. */
function laneListener(
  lane: FastLane | null,
  deps: ServiceDeps,
  fastify: (req: IncomingMessage, res: ServerResponse) => void,
) {
  if (lane === null) return fastify;
  return (req: IncomingMessage, res: ServerResponse) => {
    try {
      if (lane.take(req, res)) return;
    } catch (error) {
      // A bug of the lane: answered as the error handler answers one, never a crash.
      deps.logger?.error({ err: error }, 'fast lane failed');
      if (!res.headersSent) {
        res.writeHead(statusOf(ServiceCode.INTERNAL), { 'content-type': JSON_TYPE });
        res.end(errorJson(ServiceCode.INTERNAL, 'internal error (see the server log)'));
      }
      return;
    }
    fastify(req, res);
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's fast lane, or null when built without one. */
    readonly fastLane: FastLane | null;
  }
}

/** How buildApp builds. */
export interface BuildOptions {
  /**
   * Answer the hot routes' plain requests on the fast lane (fast-lane.ts). Default true; off,
   * every request goes through Fastify (as `app.inject()`'s always do).
   */
  readonly fastLane?: boolean;
}

/**
 * Opens the lane once the app is ready, if its hot routes run the hooks it knows; else the
 * app's ready() (and listen()) fails (hot-chain.ts).
 */
function openLane(app: FastifyInstance, lane: FastLane, deps: RouteDeps): void {
  app.addHook('onReady', function openFastLane(done) {
    try {
      checkHotChains(app, app.rateLimiter !== null);
    } catch (error) {
      return done(error as Error);
    }
    lane.open({
      deps,
      drain: app.drain,
      loadGuard: app.loadGuard,
      limiter: app.rateLimiter,
      principal: app.principalOf('ids'),
    });
    done();
  });
}

/** The Fastify application (not listening). Close it with `app.close()`; deps stay open. */
export async function buildApp(
  deps: ServiceDeps,
  options: BuildOptions = {},
): Promise<FastifyInstance> {
  const lane = options.fastLane === false ? null : new FastLane();
  const app = Fastify(fastifyOptions(deps, lane));
  for (const plugin of PLUGINS) await app.register(plugin, deps);
  const routeDeps: RouteDeps = {
    ...deps,
    issued: new IssuedIds(deps.metrics),
    generated: new GeneratedIds(),
  };
  for (const routes of ROUTES) await app.register(routes, routeDeps);
  app.decorate('fastLane', lane);
  if (lane !== null) openLane(app, lane, routeDeps);
  return app;
}
