/** GET /v1/ids/{scheme}: IDs of any scheme, `count` per answer. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCode, type SnowflakeGeneOptions } from 'idforge';
import { HLC_HEADER, MAX_GENE_FROM } from 'idforge/wire';
import type { RouteDeps } from '../../deps.js';
import { isGenerated } from '../../domain/generated.js';
import type { ServiceHlc } from '../../domain/hlc.js';
import { snowflakes } from '../../domain/snowflakes.js';
import { allowScheme } from '../auth.js';
import { badRequest, HttpError } from '../errors.js';
import { routePlugin } from '../plugins/plugin.js';
import { idsAnswer, JSON_TYPE, setHeaders, TEXT, wantsText } from '../reply.js';
import { idsSchema, type Scheme } from '../schemas.js';

interface IdsQuery {
  readonly count: number;
  readonly layout?: string;
  readonly gene?: number;
  readonly geneFrom?: string;
}

/** The gene a request asks for (snowflake only; at most one of gene and geneFrom). */
function geneOf(scheme: Scheme, q: IdsQuery): SnowflakeGeneOptions | undefined {
  if (q.gene === undefined && q.geneFrom === undefined) return undefined;
  if (scheme !== 'snowflake') throw badRequest('gene and geneFrom apply to snowflake only');
  if (q.gene !== undefined && q.geneFrom !== undefined) {
    throw badRequest('give gene or geneFrom, not both');
  }
  if (q.gene !== undefined) return { gene: q.gene };
  const geneFrom = BigInt(q.geneFrom!); // the schema admits 1 to 20 decimal digits
  if (geneFrom > MAX_GENE_FROM) {
    throw new HttpError(
      ErrorCode.INVALID_ID,
      `geneFrom ${q.geneFrom} is above 2^64-1: not a 64-bit ID`,
    );
  }
  return { geneFrom };
}

/** `count` Snowflake or HLC IDs from the node the request names (400 when it names none). */
function fromNodes(deps: RouteDeps) {
  const { nodes, config, hlc } = deps;
  const own = nodes.get(config.layout);
  return (scheme: 'snowflake' | 'hlc', q: IdsQuery, gene: SnowflakeGeneOptions | undefined) => {
    if (scheme === 'hlc') {
      const node = nodes.get('hlc');
      if (hlc === undefined || node === undefined) {
        throw badRequest('this node does not serve HLC IDs; start it with --hlc');
      }
      if (q.layout !== undefined) throw badRequest('layout applies to snowflake only');
      return snowflakes(node, q.count);
    }
    const node = q.layout === undefined ? own : nodes.get(q.layout);
    if (node === undefined)
      throw badRequest(`layout "${q.layout}" is not served by this node; configure it in layouts`);
    if (gene !== undefined && node.layout.geneField === undefined) {
      throw badRequest(
        `layout "${node.layout.name}" has no gene field; ask for a layout with one (e.g. gene-8, configured in layouts)`,
      );
    }
    return snowflakes(node, q.count, gene);
  };
}

/** Merges the caller's HLC before any ID is minted: every ID below sorts after what it saw. */
function receiveHlc(hlc: ServiceHlc, req: FastifyRequest): void {
  const seen = req.headers[HLC_HEADER];
  if (typeof seen === 'string') hlc.receive(seen);
  else if (seen !== undefined) throw badRequest(`send one ${HLC_HEADER} header, not several`);
}

export const idRoutes = routePlugin('ids', async (app: FastifyInstance, deps: RouteDeps) => {
  const { config, hlc, generated } = deps;
  const fromNode = fromNodes(deps);
  app.get<{ Params: { scheme: Scheme }; Querystring: IdsQuery }>(
    '/v1/ids/:scheme',
    {
      config: { mints: true },
      schema: idsSchema(config.maxCount, [config.layout, ...config.layouts]),
    },
    async (req, reply) => {
      const { scheme } = req.params;
      allowScheme(req.principal, scheme);
      const gene = geneOf(scheme, req.query);
      if (hlc !== undefined) receiveHlc(hlc, req);
      let ids: string[];
      if (isGenerated(scheme)) {
        if (req.query.layout !== undefined) throw badRequest('layout applies to snowflake only');
        ids = generated.mint(scheme, req.query.count);
      } else ids = await fromNode(scheme, req.query, gene);
      const text = wantsText(req.headers.accept);
      const headers: string[] = [];
      const body = idsAnswer(deps, scheme, ids, text, headers);
      setHeaders(reply, headers);
      reply.type(text ? TEXT : JSON_TYPE);
      return body;
    },
  );
});
