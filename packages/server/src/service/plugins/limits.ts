/**
 * `idforge-limits`: requests per token (or per address without one) per window, when
 * `rateLimit` is on (@fastify/rate-limit, before each handler); ops routes are exempt. The
 * key and the exemption read what the gate sets on the request (its principal and access),
 * and the refusal is an HttpError answered by the errors plugin.
 */
import rateLimit from '@fastify/rate-limit';
import type { ServiceDeps } from '../deps.js';
import { HttpError, ServiceCode } from '../errors.js';
import { servicePlugin } from './plugin.js';

export const limitsPlugin = servicePlugin(
  'idforge-limits',
  async (app, { config }: ServiceDeps) => {
    if (!(config.rateLimit > 0)) return;
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
  },
  { dependencies: ['idforge-gate', 'idforge-errors'] },
);
