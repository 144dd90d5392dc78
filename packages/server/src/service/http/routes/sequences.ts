/** Numbers from central sequences, one by one or as whole segments for a client to serve. */
import type { FastifyInstance } from 'fastify';
import type { SegmentBody } from 'idforge/wire';
import type { RouteDeps } from '../../deps.js';
import { allowTag } from '../auth.js';
import { badRequest } from '../errors.js';
import { routePlugin } from '../plugins/plugin.js';
import { sendFormatted, sendIds } from '../reply.js';
import { segmentSchema, sequenceSchema } from '../schemas.js';

export const sequenceRoutes = routePlugin(
  'sequences',
  async (app: FastifyInstance, deps: RouteDeps) => {
    const { config, sequences, metrics } = deps;
    app.get<{ Params: { tag: string }; Querystring: { count: number } }>(
      '/v1/sequences/:tag',
      { config: { mints: true }, schema: sequenceSchema(config.maxCount) },
      async (req, reply) => {
        const { tag } = req.params;
        const { count } = req.query;
        allowTag(req.principal, tag);
        const opened = sequences.opened(tag);
        const formatted = opened === undefined ? await sequences.formatted(tag) : null;
        if (formatted !== null) {
          const batch = await sequences.formattedBatch(formatted, count);
          metrics.served(tag, count);
          return sendFormatted(req, reply, batch);
        }
        const buffer = opened ?? (await sequences.buffer(tag));
        const ids = new Array<string>(count);
        let i = 0;
        for (; i < count; i++) {
          const v = buffer.tryNext();
          if (v === undefined) break;
          ids[i] = v.toString();
        }
        if (i < count) {
          const rest = await buffer.nextBatch(count - i);
          for (const v of rest) ids[i++] = v.toString();
        }
        metrics.served(tag, count);
        return sendIds(req, reply, ids);
      },
    );
    app.post<{ Params: { tag: string }; Querystring: { size?: number } }>(
      '/v1/sequences/:tag/segments',
      { schema: segmentSchema(config.maxSegmentSize) },
      async (req, reply) => {
        const { tag } = req.params;
        allowTag(req.principal, tag);
        if (sequences.opened(tag) === undefined && (await sequences.formatted(tag)) !== null) {
          // Its numbers restart each period under a tag of their own; a segment of the base
          // tag would follow no period, and numbers formatted from it could repeat.
          throw badRequest(
            `"${tag}" is a formatted tag (idforge seq create --format): its numbers are taken ` +
              `formatted, in their period, with GET /v1/sequences/${tag}; segments for a ` +
              'client need a plain tag',
          );
        }
        const s = await sequences.take(tag, req.query.size);
        metrics.handedOut(tag, Number(s.last - s.first + 1n));
        reply.type('application/json; charset=utf-8');
        const body: SegmentBody = {
          tag: s.tag,
          first: s.first.toString(),
          last: s.last.toString(),
        };
        return JSON.stringify(body);
      },
    );
  },
);
