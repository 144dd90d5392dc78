/**
 * `idforge-errors`: every failure in the documented shape (docs/service.md, "Errors"): the
 * error body's schema (`idforgeError`, which the routes' responses refer to), the error
 * handler (which also counts store failures and refused clock rollbacks), the 404 handler,
 * and Node's refusal of an unknown Expect. Connection-level failures and the router's are
 * answered by the handlers buildApp gives Fastify (client-errors.ts).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ClockRollbackError, ErrorCode, IdforgeError } from 'idforge';
import { onUnknownExpectation } from '../client-errors.js';
import type { ServiceDeps } from '../deps.js';
import type { Drain } from '../drain.js';
import { describeFailure, errorJson, ServiceCode, statusOf } from '../errors.js';
import type { ServiceMetrics } from '../metrics.js';
import { errorSchema } from '../schemas.js';
import { hostless, noHost, noPath, notAPath } from './gate.js';
import { servicePlugin } from './plugin.js';

/**
 * The failures of a store (counted by backend and operation in `idforge_store_errors_total`),
 * by code: the store errors' classes are @idforge/stores', which the service opens only
 * through its composition root; the codes are the one catalogue's.
 */
const STORE_FAILURES: ReadonlySet<string> = new Set([
  ErrorCode.STORE_UNAVAILABLE,
  ErrorCode.STORE_NOT_MIGRATED,
  ErrorCode.STORE_AUTH,
  ErrorCode.STORE_PATH,
]);

/** What a failed request tells the metrics: a store failure, a clock rollback refused. */
export function countFailure(metrics: ServiceMetrics, error: unknown): void {
  if (error instanceof IdforgeError && STORE_FAILURES.has(error.code)) {
    const e = error as { backend?: string; operation?: string };
    metrics.storeError(e.backend ?? 'unknown', e.operation ?? 'unknown');
  }
  if (error instanceof ClockRollbackError) metrics.rollbackRefused();
}

function errorHandler(metrics: ServiceMetrics) {
  return (error: FastifyError, req: FastifyRequest, reply: FastifyReply): string => {
    const f = describeFailure(error);
    if (f.status >= 500) req.log.error({ code: f.code, route: req.routeOptions.url }, f.message);
    countFailure(metrics, error);
    // The rate limit sets its own (the seconds left in its window).
    if ((f.status === 503 || f.status === 429) && !reply.hasHeader('retry-after')) {
      reply.header('retry-after', '1');
    }
    reply.code(f.status).type('application/json; charset=utf-8');
    return errorJson(f.code, f.message);
  };
}

function notFoundHandler(drain: Drain, metrics: ServiceMetrics) {
  return (req: FastifyRequest, reply: FastifyReply) => {
    if (drain.closing) return drain.refuse(reply);
    if (hostless(req)) throw noHost();
    if (notAPath(req)) throw noPath();
    const status = statusOf(ServiceCode.NOT_FOUND);
    metrics.request('unmatched', req.method, status, reply.elapsedTime / 1000);
    reply.code(status).type('application/json; charset=utf-8');
    const path = req.url.split('?')[0];
    return errorJson(ServiceCode.NOT_FOUND, `no route ${req.method} ${path}; see /docs`);
  };
}

export const errorsPlugin = servicePlugin(
  'idforge-errors',
  async (app, { metrics }: ServiceDeps) => {
    app.addSchema(errorSchema);
    app.server.on('checkExpectation', onUnknownExpectation);
    app.setErrorHandler(errorHandler(metrics));
    app.setNotFoundHandler(notFoundHandler(app.drain, metrics));
  },
  { dependencies: ['idforge-shutdown'], decorators: { fastify: ['drain'] } },
);
