/** GET /v1/inspect/{id}: what `idforge inspect --json` prints, for one ID. */
import type { FastifyInstance } from 'fastify';
import { getLayout, type InspectScheme, inspect, PRESET_NAMES } from 'idforge';
import type { RouteDeps } from '../../deps.js';
import { badRequest } from '../errors.js';
import { routePlugin } from '../plugins/plugin.js';
import { inspectSchema } from '../schemas.js';

export const inspectRoutes = routePlugin(
  'inspect',
  async (app: FastifyInstance, deps: RouteDeps) => {
    app.get<{ Params: { id: string }; Querystring: { scheme?: InspectScheme; layout?: string } }>(
      '/v1/inspect/:id',
      { schema: inspectSchema },
      async (req) => {
        const name = req.query.layout ?? deps.config.layout;
        if (!(PRESET_NAMES as readonly string[]).includes(name)) {
          throw badRequest(`unknown layout "${name}"; one of ${PRESET_NAMES.join(', ')}`);
        }
        const options = req.query.scheme === undefined ? {} : { scheme: req.query.scheme };
        return inspect(req.params.id, { ...options, layout: getLayout(name) });
      },
    );
  },
);
