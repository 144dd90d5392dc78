/**
 * `idforge-gate`: each route's first hook, which does, in this order, what every request
 * needs before its handler: the shutdown's 503, the Host check, the event-loop guard, auth,
 * and decimal integers in the query. One hook run per request for all five, attached as the
 * route is declared with its access and URL captured once: reading req.routeOptions per
 * request builds an object every time. REF: bench/service (count=1: 42.1 k req/s against
 * 42.6 k before issue 19 added the first two and the last, within the noise).
 */
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { badRequest, HttpError, ServiceCode } from '../errors.js';
import { routeAccess } from '../openapi.js';
import { decimalIntegers } from '../query.js';
import { guarded, shed } from './load-guard.js';
import { type Hook, hooks, servicePlugin } from './plugin.js';

/**
 * Whether an HTTP/1.1 request came without a Host. Node's own refusal of it is an empty 400
 * (requireHostHeader is off in buildApp), so the gate and the 404 handler answer it.
 */
export function hostless(req: FastifyRequest): boolean {
  return req.headers.host === undefined && req.raw.httpVersion === '1.1';
}

export const noHost = () => badRequest('an HTTP/1.1 request needs a Host header');

/**
 * Whether the request target is not a path: `*` (asterisk-form, for a server-wide OPTIONS) or
 * a bare word. The router matches such a target as if it were one (`GET *` was the dashboard),
 * so the gate and the 404 handler refuse it.
 */
export function notAPath(req: FastifyRequest): boolean {
  return req.raw.url?.charCodeAt(0) !== 47; // '/'
}

export const noPath = () =>
  badRequest('the request target must be a path starting with "/" (see /docs)');

/**
 * Whether `route` is the HEAD Fastify adds beside a GET that mints (`config.mints`): a HEAD
 * would mint, count and consume a rate-limit request for an answer whose body it drops, so it
 * answers 405 (its handler is replaced and the rate limit skips it).
 */
export function refusesHead(route: { method: string | string[]; config?: unknown }): boolean {
  return (
    route.method === 'HEAD' && (route.config as { mints?: boolean } | undefined)?.mints === true
  );
}

async function headRefused(req: FastifyRequest, reply: FastifyReply): Promise<never> {
  reply.header('allow', 'GET');
  const path = req.url.split('?')[0];
  throw new HttpError(
    ServiceCode.METHOD_NOT_ALLOWED,
    `HEAD ${path} would hand out IDs it does not send, so it is refused: use GET`,
  );
}

export const gatePlugin = servicePlugin(
  'idforge-gate',
  async (app) => {
    const { drain, loadGuard: guard } = app;
    const gateOf = (route: RouteOptions): Hook => {
      const access = routeAccess(route);
      const watched = guard !== null && guarded(route.url) ? guard : null;
      const authorize = app.authorize(access);
      const decimal = decimalIntegers(route.schema?.querystring);
      return (req, reply, done) => {
        if (drain.closing) return drain.refuse(reply);
        if (hostless(req)) return done(noHost());
        if (notAPath(req)) return done(noPath());
        if (watched?.overloaded) return shed(reply, watched);
        req.access = access;
        if (authorize !== null) {
          try {
            authorize(req);
          } catch (error) {
            return done(error as Error);
          }
        }
        if (decimal === null) return done();
        decimal(req, reply, done);
      };
    };
    app.addHook('onRoute', (route) => {
      if (refusesHead(route)) route.handler = headRefused;
      route.onRequest = [gateOf(route), ...hooks(route.onRequest)];
    });
  },
  {
    dependencies: ['idforge-shutdown', 'idforge-load-guard', 'idforge-auth'],
    decorators: { fastify: ['drain', 'loadGuard', 'authorize'], request: ['access'] },
  },
);
