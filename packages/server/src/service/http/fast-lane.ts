/**
 * The fast lane: the hot routes answered on Node's request event, before Fastify builds its
 * request and reply and runs its hook chain. Profiled under `count=1` load, that chain (the
 * request and reply objects, the router, five hooks with their promises, the rate-limit
 * plugin's promise per request, the reply's serializer step) cost more than minting the ID
 * did; docs/benchmarks.md says where each microsecond goes.
 *
 * The lane takes only requests it can answer exactly as the route would, and hands every
 * other request to Fastify untouched, so that what the routes document stays the one
 * definition of the API:
 *
 *   GET /v1/ids/{scheme}           every served scheme but hlc (a snowflake of the node's own
 *                                  layout); no query, or `count=N` alone (1 ≤ N ≤ maxCount,
 *                                  decimal, no leading zero); no IdForge-HLC header
 *   GET /api/snowflake/get/{key}   Leaf's: no query, a key of unreserved characters
 *   GET /api/segment/get/{key}     Leaf's, for a tag already open in this process
 *
 * and only while the gate would let it through: not draining, a Host on HTTP/1.1, the event
 * loop within its limit, a token of the route's scope, allowed the scheme or tag, and not over
 * its rate limit. Anything else (a missing, bad or unknown token, a refusal, a malformed
 * count, an extra parameter, a percent-encoded key, a body) goes to Fastify, which answers it
 * with the documented error; the lane has then counted nothing, consumed nothing, and written
 * nothing.
 *
 * The lane defines none of what it does: each check, answer, error shape and metric is the
 * function the routes' hooks and handlers call (admission.ts: drain, Host, target, load guard,
 * client address; auth.ts: the token, its scope, schemes and tags; rate-limit.ts: the key, the
 * count, the headers; reply.ts: the answers and what they count; errors.ts: a failure's answer,
 * log line and counts; metrics.ts: the request series). It opens only when each hot route runs
 * the hooks it knows (hot-chain.ts), so a hook added to them refuses the app at start rather
 * than being skipped here. test/service/lane-differential.test.ts sends the same seeded
 * requests (raw, pipelined, malformed, every kind of token) through the lane and through
 * Fastify alone and compares the answers and the metrics they move.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { SnowflakeNode } from 'idforge/coord';
import { HLC_HEADER, MAX_TAG_LENGTH, SERVICE_SCHEMES } from 'idforge/wire';
import type { RouteDeps } from '../deps.js';
import { isGenerated } from '../domain/generated.js';
import { snowflakes, snowflakesNow } from '../domain/snowflakes.js';
import type { LoopLag } from '../metrics/lag.js';
import { clientIp, refusal } from './admission.js';
import { allowScheme, allowTag, type Principal, type PrincipalCheck } from './auth.js';
import type { Drain } from './drain.js';
import { failureAnswer, leafFailureAnswer } from './errors.js';
import { HOT_ROUTES, type HotRoute } from './hot-chain.js';
import { type Limiter, rateHeaders, rateKey } from './rate-limit.js';
import { idsAnswer, JSON_TYPE, leafIdAnswer, segmentAnswer, TEXT, wantsText } from './reply.js';
import type { Scheme } from './schemas.js';

/** What the lane reads of the app, once its plugins are registered: the routes' own parts. */
export interface LaneParts {
  readonly deps: RouteDeps;
  readonly drain: Drain;
  readonly loadGuard: LoopLag | null;
  readonly limiter: Limiter | null;
  /** The gate's check of an `ids` route's Authorization header (plugins/auth.ts). */
  readonly principal: PrincipalCheck | null;
}

const [IDS_ROUTE, LEAF_SNOWFLAKE_ROUTE, LEAF_SEGMENT_ROUTE] = HOT_ROUTES;

/** The parts, and each route's recorder of its 200s (the series found once). */
type Lane = LaneParts & { readonly ok: Readonly<Record<HotRoute, (seconds: number) => void>> };

const IDS = '/v1/ids/';
const LEAF_SNOWFLAKE = '/api/snowflake/get/';
const LEAF_SEGMENT = '/api/segment/get/';
const COUNT = 'count=';
const KEY = new RegExp(`^[A-Za-z0-9._~-]{1,${MAX_TAG_LENGTH}}$`);
// Every scheme of the wire contract but HLC (its header exchange stays the route's).
const LANE_SCHEMES = new Set<string>(SERVICE_SCHEMES.filter((s) => s !== 'hlc'));

/** A connection's admitted Authorization header and who it named. */
interface Known {
  readonly header: string | undefined;
  readonly who: Principal | null;
}

/** A request the lane has admitted: its answer's headers so far, when it began. */
interface Admitted {
  readonly headers: string[];
  readonly started: number;
}

/** The lane of one app. `take` is Node's request listener in front of Fastify's. */
export class FastLane {
  #parts: Lane | null = null;
  /**
   * Each connection's last admitted Authorization header and who it named. A keep-alive
   * client sends the same header on every request: compared with that one (the client's own,
   * already verified), it skips the digest. Only a verified header is kept, so a guess is never
   * compared with anything but what its own connection sent.
   */
  readonly #known = new WeakMap<Socket, Known>();
  #taken = 0;

  /** Requests the lane has answered (the rest went to Fastify). */
  get taken(): number {
    return this.#taken;
  }

  /**
   * Starts taking requests (until then every request goes to Fastify): once the app is ready
   * and its hot routes' hooks are the ones the lane knows (hot-chain.ts).
   */
  open(parts: LaneParts): void {
    const { metrics } = parts.deps;
    const ok = (route: HotRoute) => metrics.recorder(route, 'GET', 200);
    this.#parts = {
      ...parts,
      ok: {
        [IDS_ROUTE]: ok(IDS_ROUTE),
        [LEAF_SNOWFLAKE_ROUTE]: ok(LEAF_SNOWFLAKE_ROUTE),
        [LEAF_SEGMENT_ROUTE]: ok(LEAF_SEGMENT_ROUTE),
      },
    };
  }
  /** Answers `req` and returns true, or returns false having done nothing (Fastify's, then). */
  take(req: IncomingMessage, res: ServerResponse): boolean {
    const p = this.#parts;
    if (p === null || req.method !== 'GET') return false;
    const url = req.url as string;
    let took = false;
    if (url.startsWith(IDS)) took = this.#ids(p, req, res, url);
    else if (url.startsWith(LEAF_SNOWFLAKE)) took = this.#leafSnowflake(p, req, res, url);
    else if (url.startsWith(LEAF_SEGMENT)) took = this.#leafSegment(p, req, res, url);
    if (took) this.#taken++;
    return took;
  }

  /** GET /v1/ids/{scheme}: the route's answer, when the lane can give it. */
  #ids(p: Lane, req: IncomingMessage, res: ServerResponse, url: string): boolean {
    const q = url.indexOf('?', IDS.length);
    const scheme = (q < 0 ? url.slice(IDS.length) : url.slice(IDS.length, q)) as Scheme;
    if (!LANE_SCHEMES.has(scheme)) return false;
    const count = q < 0 ? 1 : countOf(url.slice(q + 1), p.deps.config.maxCount);
    if (count === 0) return false;
    const { deps } = p;
    const h = scanHeaders(req.rawHeaders);
    if (deps.hlc !== undefined && h.hlc) return false;
    const node = scheme === 'snowflake' ? deps.nodes.get(deps.config.layout) : undefined;
    if (scheme === 'snowflake' && node === undefined) return false;
    const a = this.#admit(p, req, h, scheme, null);
    if (a === null) return false;
    const text = wantsText(h.accept);
    if (isGenerated(scheme)) {
      sendIds(p, res, a, scheme, text, deps.generated.mint(scheme, count));
      return true;
    }
    const minted = snowflakesNow(node as SnowflakeNode, count);
    if (minted !== null) sendIds(p, res, a, scheme, text, minted);
    else
      snowflakes(node as SnowflakeNode, count).then(
        (ids) => sendIds(p, res, a, scheme, text, ids),
        (error) => failJson(p, res, a, IDS_ROUTE, error),
      );
    return true;
  }

  /** GET /api/snowflake/get/{key}: one ID of the node's own layout, as text (Leaf's). */
  #leafSnowflake(p: Lane, req: IncomingMessage, res: ServerResponse, url: string) {
    if (!KEY.test(url.slice(LEAF_SNOWFLAKE.length))) return false;
    const { deps } = p;
    const node = deps.nodes.get(deps.config.layout);
    if (node === undefined) return false;
    const a = this.#admit(p, req, scanHeaders(req.rawHeaders), 'snowflake', null);
    if (a === null) return false;
    const minted = snowflakesNow(node, 1);
    if (minted !== null) sendLeafId(p, res, a, minted);
    else
      snowflakes(node, 1).then(
        (ids) => sendLeafId(p, res, a, ids),
        (error) => failText(p, res, a, LEAF_SNOWFLAKE_ROUTE, error),
      );
    return true;
  }

  /** GET /api/segment/get/{key}: the tag's next number, as text (Leaf's), from its buffer. */
  #leafSegment(p: Lane, req: IncomingMessage, res: ServerResponse, url: string) {
    const key = url.slice(LEAF_SEGMENT.length);
    if (!KEY.test(key)) return false;
    const { deps } = p;
    const buffer = deps.sequences.opened(key);
    if (buffer === undefined) return false;
    const a = this.#admit(p, req, scanHeaders(req.rawHeaders), null, key);
    if (a === null) return false;
    const v = buffer.tryNext();
    if (v !== undefined) sendNumber(p, res, a, key, v);
    else
      buffer.next().then(
        (n) => sendNumber(p, res, a, key, n),
        (error) => failText(p, res, a, LEAF_SEGMENT_ROUTE, error),
      );
    return true;
  }

  /**
   * The gate's checks (admission.ts's refusals, then the token's scope), the route's (the
   * token's schemes for `scheme`, its tags for `tag`), then the rate limit's, each the function
   * the routes' hooks call: the admitted request (its count taken), or null when any of them
   * would refuse it (nothing counted; Fastify's hooks answer it).
   */
  #admit(
    p: LaneParts,
    req: IncomingMessage,
    h: LaneHeaders,
    scheme: Scheme | null,
    tag: string | null,
  ): Admitted | null {
    const started = performance.now();
    if (h.body || refusal(p.drain, p.loadGuard, req, h.host) !== null) return null;
    let known = this.#known.get(req.socket);
    try {
      if (known === undefined || known.header !== h.authorization) {
        known = { header: h.authorization, who: p.principal?.(h.authorization) ?? null };
        this.#known.set(req.socket, known);
      }
      if (tag !== null) allowTag(known.who, tag);
      else allowScheme(known.who, scheme as Scheme);
    } catch {
      return null;
    }
    const headers: string[] = [];
    if (p.limiter !== null) {
      const d = p.limiter.takeUnlessFull(rateKey(known.who, clientIp(req)));
      if (d === null) return null;
      rateHeaders(d, headers);
    }
    return { headers, started };
  }
}

/** The request headers the lane reads, the first of each (as Node's `req.headers` keeps). */
interface LaneHeaders {
  host: string | undefined;
  authorization: string | undefined;
  accept: string | undefined;
  /** Whether an IdForge-HLC header came (the lane leaves those to the route). */
  hlc: boolean;
  /**
   * Whether a body follows (Content-Length or Transfer-Encoding): the lane would answer before
   * the body is read, so a body that turns out malformed would follow an answer, where the
   * route's request is the one that failed (400) and answered nothing (client-errors.ts).
   */
  body: boolean;
}

/**
 * The headers the lane reads, from the raw list Node always keeps: building `req.headers`
 * (an object with a property per header) is work a plain request does not need.
 */
function scanHeaders(raw: readonly string[]): LaneHeaders {
  const h: LaneHeaders = {
    host: undefined,
    authorization: undefined,
    accept: undefined,
    hlc: false,
    body: false,
  };
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const n = name.length;
    if (n !== 4 && n !== 6 && n !== 11 && n !== 13 && n !== 14 && n !== 17) continue;
    const lower = name.toLowerCase();
    const value = raw[i + 1] as string;
    if (lower === 'host') h.host ??= value;
    else if (lower === 'authorization') h.authorization ??= value;
    else if (lower === 'accept') h.accept ??= value;
    else if (lower === HLC_HEADER) h.hlc = true;
    else if (lower === 'content-length' || lower === 'transfer-encoding') h.body = true;
  }
  return h;
}

/**
 * `count=N` alone, 1 ≤ N ≤ max (decimal, no sign, no leading zero, at most 7 digits), as a
 * number; else 0 (the route's validation decides).
 */
function countOf(query: string, max: number): number {
  const n = query.length - COUNT.length;
  if (n < 1 || n > 7 || !query.startsWith(COUNT)) return 0;
  let v = 0;
  for (let i = COUNT.length; i < query.length; i++) {
    const d = query.charCodeAt(i) - 48;
    if (d < 0 || d > 9 || (d === 0 && v === 0)) return 0;
    v = v * 10 + d;
  }
  return v <= max ? v : 0;
}

/** A /v1/ids answer (reply.ts's, as the route's). */
function sendIds(
  p: Lane,
  res: ServerResponse,
  a: Admitted,
  scheme: Scheme,
  text: boolean,
  ids: string[],
) {
  const body = idsAnswer(p.deps, scheme, ids, text, a.headers);
  answer(p, res, a, IDS_ROUTE, 200, text ? TEXT : JSON_TYPE, body);
}

/** Leaf's Snowflake answer (reply.ts's, as the route's). */
function sendLeafId(p: Lane, res: ServerResponse, a: Admitted, ids: string[]) {
  answer(p, res, a, LEAF_SNOWFLAKE_ROUTE, 200, TEXT, leafIdAnswer(p.deps, ids));
}

/** Leaf's segment answer (reply.ts's, as the route's). */
function sendNumber(p: Lane, res: ServerResponse, a: Admitted, tag: string, v: bigint) {
  answer(p, res, a, LEAF_SEGMENT_ROUTE, 200, TEXT, segmentAnswer(p.deps, tag, v));
}

/** Writes the answer and counts it in the series the metrics plugin counts a route's in. */
function answer(
  p: Lane,
  res: ServerResponse,
  a: Admitted,
  route: HotRoute,
  status: number,
  type: string,
  body: string,
): void {
  const headers = a.headers;
  headers.push('content-type', type, 'content-length', String(Buffer.byteLength(body)));
  res.writeHead(status, headers);
  res.end(body);
  const seconds = (performance.now() - a.started) / 1000;
  if (status === 200) p.ok[route](seconds);
  else p.deps.metrics.request(route, 'GET', status, seconds);
}

/** A failure after admission: errors.ts's answer, as the errors plugin sends it. */
function failJson(p: Lane, res: ServerResponse, a: Admitted, route: HotRoute, error: unknown) {
  const f = failureAnswer(p.deps.metrics, p.deps.logger, route, error);
  if (f.retryAfter) a.headers.push('retry-after', '1');
  answer(p, res, a, route, f.status, JSON_TYPE, f.body);
}

/** A failure of a Leaf route after admission: errors.ts's answer, as the route sends it. */
function failText(p: Lane, res: ServerResponse, a: Admitted, route: HotRoute, error: unknown) {
  const f = leafFailureAnswer(p.deps.logger, route, error);
  answer(p, res, a, route, f.status, TEXT, f.body);
}
