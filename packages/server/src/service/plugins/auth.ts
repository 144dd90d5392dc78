/**
 * `idforge-auth`: bearer tokens (../auth.ts). Decorates each request with its `principal`
 * (null: no token on an open service) and `access` (its route's, set by the gate), and the
 * app with `authorize(access)`: the check a route of that access runs on each request, or
 * null for a route open to all.
 */
import type { FastifyRequest } from 'fastify';
import { allowAdmin, allowScope, TokenAuth } from '../auth.js';
import type { Access, ServiceDeps } from '../deps.js';
import { servicePlugin } from './plugin.js';

/** Sets `req.principal`, or throws 401/403 (`HttpError`) for a request its route refuses. */
export type Authorize = (req: FastifyRequest) => void;

declare module 'fastify' {
  interface FastifyInstance {
    /** The check of a route of `access`; null when the route is open. */
    readonly authorize: (access: Access) => Authorize | null;
  }
}

export const authPlugin = servicePlugin('idforge-auth', async (app, { config }: ServiceDeps) => {
  const auth = new TokenAuth(config.tokens);
  app.decorateRequest('principal', null);
  app.decorateRequest('access', 'ids');
  app.decorate('authorize', (access: Access): Authorize | null => {
    // Ops routes (health, metrics, status, the docs) are open unless protectOps.
    if (access === 'ops' && !config.protectOps) return null;
    return (req) => {
      req.principal = auth.identify(req.headers.authorization);
      if (access === 'admin') allowAdmin(req.principal);
      else if (access !== 'ops') allowScope(req.principal, access);
    };
  });
});
