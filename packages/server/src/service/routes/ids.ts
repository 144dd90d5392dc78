/** GET /v1/ids/{scheme}: IDs of any scheme, `count` per answer. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type Clock,
  ErrorCode,
  HLC_HEADER,
  KsuidGenerator,
  MAX_GENE_FROM,
  MonotonicClock,
  type SnowflakeGeneOptions,
  UlidGenerator,
  UuidV4Generator,
  UuidV7Generator,
} from 'idforge';
import type { SnowflakeNode } from 'idforge/coord';
import { allowScheme } from '../auth.js';
import type { RouteDeps } from '../deps.js';
import { badRequest, HttpError } from '../errors.js';
import { idsSchema, type Scheme } from '../schemas.js';

/** How long a Snowflake request waits for a node that is briefly not ready (a lease renewal). */
export const READY_WAIT_MS = 1000;

/**
 * The answer body. IDs never need JSON escaping (hex, Crockford base32, base62, decimal), so
 * the array is joined rather than serialized element by element.
 * REF: bench/service (count=1000): join is several times faster than a schema serializer here.
 */
export function sendIds(req: FastifyRequest, reply: FastifyReply, ids: readonly string[]): string {
  if (wantsText(req)) {
    reply.type('text/plain; charset=utf-8');
    return ids.length === 0 ? '' : `${ids.join('\n')}\n`;
  }
  reply.type('application/json; charset=utf-8');
  return ids.length === 0 ? '{"ids":[]}' : `{"ids":["${ids.join('","')}"]}`;
}

function wantsText(req: FastifyRequest): boolean {
  const a = req.headers.accept;
  return a?.startsWith('text/plain') === true;
}

/**
 * `count` Snowflake IDs as decimal strings, all with `gene` when given; waits up to
 * READY_WAIT_MS for a node not ready.
 */
export async function snowflakes(
  node: SnowflakeNode,
  count: number,
  gene?: SnowflakeGeneOptions,
): Promise<string[]> {
  let ids: bigint[];
  try {
    ids = node.batch(count, gene);
  } catch {
    ids = await node.batchAsync(count, READY_WAIT_MS, gene);
  }
  const out = new Array<string>(ids.length);
  for (let i = 0; i < ids.length; i++) out[i] = (ids[i] as bigint).toString();
  return out;
}

/**
 * A clock read once per answer: the IDs of one batch share its instant, and the generators'
 * own state orders them within it (UUIDv7's counter, ULID's randomness), exactly as if they
 * had been made within one millisecond. A generator that must wait (a counter used up) sleeps
 * on the real clock and reads it again.
 * REF: bench/service (uuidv7 count=1000): reading the clock per ID was half the cost of a UUIDv7.
 */
export class BatchClock implements Clock {
  readonly #base: Clock;
  #t: number;

  constructor(base: Clock) {
    this.#base = base;
    this.#t = base.nowPrecise();
  }

  /** Reads the real clock; the IDs made until the next tick() carry this instant. */
  tick(): void {
    this.#t = this.#base.nowPrecise();
  }

  now(): number {
    return Math.floor(this.#t);
  }

  nowPrecise(): number {
    return this.#t;
  }

  sleep(ms: number): void {
    this.#base.sleep(ms);
    this.tick();
  }
}

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

export async function idRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  const { config, nodes, metrics, issued } = deps;
  const own = nodes.get(config.layout);
  const clock = new BatchClock(new MonotonicClock());
  const hlc = deps.hlc;
  const generators: Record<Exclude<Scheme, 'snowflake' | 'hlc'>, { next(): string }> = {
    uuidv4: new UuidV4Generator(),
    uuidv7: new UuidV7Generator({ clock }),
    // Monotonic: the ULIDs of one answer sort in the order they are given, like the UUIDv7s.
    ulid: new UlidGenerator({ clock, monotonic: true }),
    ksuid: new KsuidGenerator({ clock }),
  };
  app.get<{ Params: { scheme: Scheme }; Querystring: IdsQuery }>(
    '/v1/ids/:scheme',
    { schema: idsSchema(config.maxCount, [config.layout, ...config.layouts]) },
    async (req, reply) => {
      const { scheme } = req.params;
      const { count, layout } = req.query;
      allowScheme(req.principal, scheme);
      const gene = geneOf(scheme, req.query);
      let ids: string[];
      if (hlc !== undefined) {
        // The caller's clock first: every ID minted below sorts after what it saw.
        const seen = req.headers[HLC_HEADER];
        if (typeof seen === 'string') hlc.receive(seen);
        else if (seen !== undefined) throw badRequest(`send one ${HLC_HEADER} header, not several`);
      }
      if (scheme === 'hlc') {
        const node = nodes.get('hlc');
        if (hlc === undefined || node === undefined) {
          throw badRequest('this node does not serve HLC IDs; start it with --hlc');
        }
        if (layout !== undefined) throw badRequest('layout applies to snowflake only');
        ids = await snowflakes(node, count);
      } else if (scheme === 'snowflake') {
        const node = layout === undefined ? own : nodes.get(layout);
        if (node === undefined)
          throw badRequest(
            `layout "${layout}" is not served by this node; configure it in layouts`,
          );
        if (gene !== undefined && node.layout.geneField === undefined) {
          throw badRequest(
            `layout "${node.layout.name}" has no gene field; ask for a layout with one (e.g. gene-8, configured in layouts)`,
          );
        }
        ids = await snowflakes(node, count, gene);
      } else {
        if (layout !== undefined) throw badRequest('layout applies to snowflake only');
        const g = generators[scheme];
        clock.tick();
        ids = new Array<string>(count);
        for (let i = 0; i < count; i++) ids[i] = g.next();
      }
      issued[scheme] = (issued[scheme] ?? 0) + count;
      metrics.issued(scheme, count);
      const stamp = hlc?.header();
      if (stamp != null) reply.header(HLC_HEADER, stamp);
      return sendIds(req, reply, ids);
    },
  );
}
