/**
 * `idforge-docs`: the OpenAPI document (@fastify/swagger, each operation described for this
 * configuration by openapi.ts's transform) at `/openapi.json`, and Swagger UI at `/docs`.
 * Registered after every plugin that attaches hooks to routes, so its own routes get them
 * too (they are `ops` routes: open unless protectOps, never rate limited), and before the
 * resources' routes, which the document lists as they are declared.
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { ServiceDeps } from '../../deps.js';
import { documentRoute } from '../openapi.js';
import { servicePlugin } from './plugin.js';

export const docsPlugin = servicePlugin(
  'idforge-docs',
  async (app, { config, identity }: ServiceDeps) => {
    await app.register(swagger, {
      openapi: {
        info: {
          title: 'idforge',
          version: identity.version,
          description: 'Unique IDs for distributed systems: docs/service.md',
        },
        components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      },
      transform: documentRoute(config),
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
    app.get('/openapi.json', { config: { access: 'ops' }, schema: { hide: true } }, () =>
      app.swagger(),
    );
  },
  { dependencies: ['idforge-gate', 'idforge-metrics', 'idforge-errors', 'idforge-limits'] },
);
