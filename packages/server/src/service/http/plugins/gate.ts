/**
 * `idforge-gate`: each route's first hook, which does, in this order, what every request
 * needs before its handler: the refusals of admission.ts (the shutdown's 503, the Host check,
 * a target that is not a path, the event-loop guard), auth, and decimal integers in the query.
 * One hook run per request for all of them, attached as the route is declared with its access
 * and URL captured once: reading req.routeOptions per request builds an object every time. REF: bench/service (count=1: 42.1 k req/s against
 * 42.6 k before issue 19 added the first two and the last, within the noise).
 */
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { LoopLag } from '../../metrics/lag.js';
import { type Refusal, refusal } from '../admission.js';
import type { Drain } from '../drain.js';
import { badRequest, HttpError, ServiceCode } from '../errors.js';
import { routeAccess } from '../openapi.js';
import { decimalIntegers } from '../query.js';
import { guarded, shed } from './load-guard.js';
import { type Hook, hooks, servicePlugin } from './plugin.js';

export const noHost = () => badRequest('an HTTP/1.1 request needs a Host header');

export const noPath = () =>
  badRequest('the request target must be a path starting with "/" (see /docs)');

/**
 * Answers a refusal of admission.ts: the drain's and the guard's 503s are answered here (a
 * shed request is no error to log), the others are errors for the errors plugin. `guard` is
 * the one {@link refusal} was given.
 */
export function refuse(
  r: Refusal,
  drain: Drain,
  guard: LoopLag | null,
  reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  if (r === 'closing') drain.refuse(reply);
  else if (r === 'overloaded') shed(reply, guard as LoopLag);
  else done(r === 'no-host' ? noHost() : noPath());
}

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
      // Named: the fast lane's start-up check knows the hot routes' hooks by name (hot-chain.ts).
      const idforgeGate: Hook = (req, reply, done) => {
        const r = refusal(drain, watched, req.raw, req.headers.host);
        if (r !== null) return refuse(r, drain, watched, reply, done);
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
      return idforgeGate;
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
