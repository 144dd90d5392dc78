/**
 * `idforge-limits`: requests per token (or per address without one) per window, when
 * `rateLimit` is on (rate-limit.ts), counted before each handler; ops routes are exempt. The
 * key and the exemption read what the gate sets on the request (its principal and access) and
 * the client's address as admission.ts reads it (`clientIp`, the fast lane's too),
 * and the refusal is an HttpError answered by the errors plugin, with `Retry-After` set to the
 * seconds left in the window. Decorates the app with `rateLimiter` (null when off), which the
 * fast lane counts on too. In one of several processes the limit is the node's, counted on the
 * primary's windows (cluster-rate.ts): a decision may then wait for the primary's grant.
 */

import { ClusterRateLimiter } from '../../cluster/cluster-rate.js';
import type { ServiceDeps } from '../../deps.js';
import { clientIp } from '../admission.js';
import { HttpError, ServiceCode } from '../errors.js';
import {
  type Limiter,
  type RateDecision,
  RateLimiter,
  rateHeaders,
  rateKey,
} from '../rate-limit.js';
import { setHeaders } from '../reply.js';
import { refusesHead } from './gate.js';
import { type Hook, hooks, servicePlugin } from './plugin.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's rate limit, or null when rateLimit is 0. */
    readonly rateLimiter: Limiter | null;
  }
}

/** The refusal of a request over the limit (429 IDF_RATE_LIMITED). */
export function rateLimited(limiter: Limiter, d: RateDecision, who: string): HttpError {
  return new HttpError(
    ServiceCode.RATE_LIMITED,
    `rate limit of ${d.limit} requests per ${limiter.windowMs / 1000} s reached for ${who}; retry in ${d.resetS} s or raise rateLimit`,
  );
}

/** The app's limiter: this process's, or its share of the node's; null when off. */
function limiterOf({ config, cluster }: ServiceDeps): Limiter | null {
  if (config.rateLimit === 0) return null;
  if (cluster === undefined || cluster.size < 2)
    return new RateLimiter({ max: config.rateLimit, windowMs: config.rateWindowMs });
  return new ClusterRateLimiter(config.rateLimit, config.rateWindowMs, (key, need) =>
    cluster.rate(key, need),
  );
}

export const limitsPlugin = servicePlugin(
  'idforge-limits',
  async (app, deps: ServiceDeps) => {
    const limiter = limiterOf(deps);
    app.decorate('rateLimiter', limiter);
    if (limiter === null) return;
    // Named: the fast lane's start-up check knows the hot routes' hooks by name (hot-chain.ts).
    const idforgeRateLimit: Hook = (req, reply, done) => {
      if (req.access === 'ops') return done();
      const ip = clientIp(req.raw);
      const decided = (d: RateDecision) => {
        setHeaders(reply, rateHeaders(d));
        if (!d.limited) return done();
        const who = req.principal === null ? `client ${ip}` : `token "${req.principal.name}"`;
        done(rateLimited(limiter, d, who));
      };
      const d = limiter.take(rateKey(req.principal, ip));
      if (d instanceof Promise) d.then(decided, done);
      else decided(d);
    };
    app.addHook('onRoute', (route) => {
      // A refused HEAD is answered nothing a request is counted for.
      if (!refusesHead(route)) route.preHandler = [...hooks(route.preHandler), idforgeRateLimit];
    });
  },
  { dependencies: ['idforge-gate', 'idforge-errors'] },
);
