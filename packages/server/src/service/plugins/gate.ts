/**
 * `idforge-gate`: each route's first hook, which does, in this order, what every request
 * needs before its handler: the shutdown's 503, the Host check, the event-loop guard, auth,
 * and decimal integers in the query. One hook run per request for all five, attached as the
 * route is declared with its access and URL captured once: reading req.routeOptions per
 * request builds an object every time. REF: bench/service (count=1: 42.1 k req/s against
 * 42.6 k before issue 19 added the first two and the last, within the noise).
 */
import type { FastifyRequest, RouteOptions } from 'fastify';
import { badRequest } from '../errors.js';
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
      route.onRequest = [gateOf(route), ...hooks(route.onRequest)];
    });
  },
  {
    dependencies: ['idforge-shutdown', 'idforge-load-guard', 'idforge-auth'],
    decorators: { fastify: ['drain', 'loadGuard', 'authorize'], request: ['access'] },
  },
);
