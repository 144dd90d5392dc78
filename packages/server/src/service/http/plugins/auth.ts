/**
 * `idforge-auth`: bearer tokens (../auth.ts). Decorates each request with its `principal`
 * (null: no token on an open service) and `access` (its route's, set by the gate), and the
 * app with `authorize(access)`: the check a route of that access runs on each request, or
 * null for a route open to all; and `principalOf(access)`, the same check on a header, which
 * `authorize` runs and the fast lane calls.
 */
import type { FastifyRequest } from 'fastify';
import type { Access, ServiceDeps } from '../../deps.js';
import { type PrincipalCheck, principalCheck, TokenAuth } from '../auth.js';
import { servicePlugin } from './plugin.js';

/** Sets `req.principal`, or throws 401/403 (`HttpError`) for a request its route refuses. */
export type Authorize = (req: FastifyRequest) => void;

declare module 'fastify' {
  interface FastifyInstance {
    /** The check of a route of `access`; null when the route is open. */
    readonly authorize: (access: Access) => Authorize | null;
    /** The principal a route of `access` admits for an Authorization header; null: open. */
    readonly principalOf: (access: Access) => PrincipalCheck | null;
  }
}

export const authPlugin = servicePlugin('idforge-auth', async (app, { config }: ServiceDeps) => {
  const auth = new TokenAuth(config.tokens);
  const principalOf = (access: Access) => principalCheck(auth, access, config.protectOps);
  app.decorateRequest('principal', null);
  app.decorateRequest('access', 'ids');
  app.decorate('principalOf', principalOf);
  app.decorate('authorize', (access: Access): Authorize | null => {
    const check = principalOf(access);
    if (check === null) return null;
    return (req) => {
      req.principal = check(req.headers.authorization);
    };
  });
});
