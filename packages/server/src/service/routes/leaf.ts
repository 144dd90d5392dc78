/**
 * Meituan Leaf's routes, so a Leaf client switches by changing its base URL: the bare decimal
 * ID as text/plain, and any failure as HTTP 500 with a text body, as Leaf answers. The key of
 * the Snowflake route is ignored, as in Leaf.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { decompose } from 'idforge';
import { MAX_TAG_LENGTH } from 'idforge/sequences';
import { allowScheme, allowTag } from '../auth.js';
import type { RouteDeps } from '../deps.js';
import { describeFailure, HttpError, ServiceCode } from '../errors.js';
import { routePlugin } from '../plugins/plugin.js';
import { snowflakes } from '../snowflakes.js';

const keyParam = {
  type: 'object',
  properties: { key: { type: 'string', minLength: 1, maxLength: MAX_TAG_LENGTH } },
  required: ['key'],
} as const;

const text = { 200: { type: 'string', description: 'the ID in decimal' }, 500: { type: 'string' } };

function leafFailure(reply: FastifyReply, error: unknown): string {
  const f = describeFailure(error);
  // Leaf answers every failure with 500; auth failures keep their status (Leaf has no auth).
  reply
    .code(f.status === 401 || f.status === 403 ? f.status : 500)
    .type('text/plain; charset=utf-8');
  return `${f.code}: ${f.message}`;
}

export const leafRoutes = routePlugin('leaf', async (app: FastifyInstance, deps: RouteDeps) => {
  const { sequences, metrics, issued, nodes, config } = deps;
  const node = nodes.get(config.layout);
  // The configured layout always has a node (server.ts starts one per served layout); a
  // request that finds none meets a bug, answered as one, never a bare Error.
  const noNode = () =>
    new HttpError(ServiceCode.INTERNAL, `no Snowflake node for layout "${config.layout}"`);
  app.get<{ Params: { key: string } }>(
    '/api/segment/get/:key',
    {
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
        metrics.served(key, 1);
        reply.type('text/plain; charset=utf-8');
        return v.toString();
      } catch (error) {
        return leafFailure(reply, error);
      }
    },
  );
  app.get<{ Params: { key: string } }>(
    '/api/snowflake/get/:key',
    {
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
        if (node === undefined) throw noNode();
        const [id] = await snowflakes(node, 1);
        issued.add('snowflake', 1);
        reply.type('text/plain; charset=utf-8');
        return id as string;
      } catch (error) {
        return leafFailure(reply, error);
      }
    },
  );
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
      const layout = node?.layout;
      if (layout === undefined) throw noNode();
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
});
