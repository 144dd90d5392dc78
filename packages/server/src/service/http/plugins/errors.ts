/**
 * `idforge-errors`: every failure in the documented shape (docs/service.md, "Errors"): the
 * error body's schema (`idforgeError`, which the routes' responses refer to), the error
 * handler (which also counts store failures and refused clock rollbacks), the 404 handler,
 * and Node's refusal of an unknown Expect. Connection-level failures and the router's are
 * answered by the handlers buildApp gives Fastify (client-errors.ts).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceDeps } from '../../deps.js';
import type { ServiceMetrics } from '../../metrics/metrics.js';
import { refusal } from '../admission.js';
import { onUnknownExpectation } from '../client-errors.js';
import type { Drain } from '../drain.js';
import { errorJson, failureAnswer, ServiceCode, statusOf } from '../errors.js';
import { JSON_TYPE } from '../reply.js';
import { errorSchema } from '../schemas.js';
import { noHost, noPath } from './gate.js';
import { servicePlugin } from './plugin.js';

function errorHandler(metrics: ServiceMetrics) {
  return (error: FastifyError, req: FastifyRequest, reply: FastifyReply): string => {
    const a = failureAnswer(metrics, req.log, req.routeOptions.url, error);
    // The rate limit sets its own (the seconds left in its window).
    if (a.retryAfter && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
    reply.code(a.status).type(JSON_TYPE);
    return a.body;
  };
}

function notFoundHandler(drain: Drain, metrics: ServiceMetrics) {
  return (req: FastifyRequest, reply: FastifyReply) => {
    // The gate's refusals but the guard's (a request no route matched mints nothing).
    const r = refusal(drain, null, req.raw, req.headers.host);
    if (r === 'closing') return drain.refuse(reply);
    if (r !== null) throw r === 'no-host' ? noHost() : noPath();
    const status = statusOf(ServiceCode.NOT_FOUND);
    metrics.request('unmatched', req.method, status, reply.elapsedTime / 1000);
    reply.code(status).type(JSON_TYPE);
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
