/**
 * Meituan Leaf's routes, so a Leaf client switches by changing its base URL: the bare decimal
 * ID as text/plain, and any failure as HTTP 500 with a text body, as Leaf answers. The key of
 * the Snowflake route is ignored, as in Leaf.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { decompose } from 'idforge';
import type { SnowflakeNode } from 'idforge/coord';
import { MAX_TAG_LENGTH } from 'idforge/sequences';
import type { RouteDeps } from '../../deps.js';
import { snowflakes } from '../../domain/snowflakes.js';
import { allowScheme, allowTag } from '../auth.js';
import { HttpError, leafFailureAnswer, ServiceCode } from '../errors.js';
import { routePlugin } from '../plugins/plugin.js';
import { leafIdAnswer, segmentAnswer, TEXT } from '../reply.js';

const keyParam = {
  type: 'object',
  properties: { key: { type: 'string', minLength: 1, maxLength: MAX_TAG_LENGTH } },
  required: ['key'],
} as const;

const text = { 200: { type: 'string', description: 'the ID in decimal' }, 500: { type: 'string' } };

/** Leaf's answer to a failure; one of the server's (500 or more elsewhere) is logged. */
function failed(reply: FastifyReply, route: string, error: unknown): string {
  const f = leafFailureAnswer(reply.log, route, error);
  reply.code(f.status).type(TEXT);
  return f.body;
}

/** `/api/segment/get/{key}`: one number of the tag `key`. */
function segmentRoute(app: FastifyInstance, deps: RouteDeps): void {
  const { sequences } = deps;
  app.get<{ Params: { key: string } }>(
    '/api/segment/get/:key',
    {
      config: { mints: true },
      schema: {
        summary: 'Leaf: one number of the tag `key`',
        tags: ['leaf'],
        params: keyParam,
        response: text,
      },
    },
    async (req, reply) => {
      try {
        const { key } = req.params;
        allowTag(req.principal, key);
        const b = sequences.opened(key) ?? (await sequences.buffer(key));
        const v = b.tryNext() ?? (await b.next());
        reply.type(TEXT);
        return segmentAnswer(deps, key, v);
      } catch (error) {
        return failed(reply, '/api/segment/get/:key', error);
      }
    },
  );
}

/** `/api/snowflake/get/{key}`: one Snowflake ID of the node's own layout (the key ignored). */
function snowflakeRoute(app: FastifyInstance, deps: RouteDeps, node: () => SnowflakeNode): void {
  app.get<{ Params: { key: string } }>(
    '/api/snowflake/get/:key',
    {
      config: { mints: true },
      schema: {
        summary: 'Leaf: one Snowflake ID (key ignored)',
        tags: ['leaf'],
        params: keyParam,
        response: text,
      },
    },
    async (req, reply) => {
      try {
        allowScheme(req.principal, 'snowflake');
        const ids = await snowflakes(node(), 1);
        reply.type(TEXT);
        return leafIdAnswer(deps, ids);
      } catch (error) {
        return failed(reply, '/api/snowflake/get/:key', error);
      }
    },
  );
}

/** `/api/snowflake/decode?id=`: an ID decoded with the node's layout, with Leaf's names. */
function decodeRoute(app: FastifyInstance, node: () => SnowflakeNode): void {
  app.get<{ Querystring: { id: string } }>(
    '/api/snowflake/decode',
    {
      schema: {
        summary: "Leaf: decode a Snowflake ID with this node's layout",
        tags: ['leaf'],
        querystring: {
          type: 'object',
          properties: { id: { type: 'string', pattern: '^[0-9]{1,20}$' } },
          required: ['id'],
        },
      },
    },
    async (req) => {
      const layout = node().layout;
      const d = decompose(layout, req.query.id);
      const fields = d.fields as Readonly<Record<string, number>>;
      const worker = fields.worker ?? fields.node ?? null;
      return {
        id: req.query.id,
        layout: layout.name,
        unixMs: d.unixMs,
        timestamp: new Date(d.unixMs).toISOString(),
        fields,
        // Leaf's own names, for its users' tools.
        workerId: worker,
        sequenceId: fields.sequence ?? null,
      };
    },
  );
}

export const leafRoutes = routePlugin('leaf', async (app: FastifyInstance, deps: RouteDeps) => {
  const { nodes, config } = deps;
  const own = nodes.get(config.layout);
  // The configured layout always has a node (server.ts starts one per served layout); a
  // request that finds none meets a bug, answered as one, never a bare Error.
  const node = (): SnowflakeNode => {
    if (own !== undefined) return own;
    throw new HttpError(ServiceCode.INTERNAL, `no Snowflake node for layout "${config.layout}"`);
  };
  segmentRoute(app, deps);
  snowflakeRoute(app, deps, node);
  decodeRoute(app, node);
});
