// A minimal stand-in for the idforge HTTP service (issue 10's contract), on a real node:http
// server on 127.0.0.1, port 0, for the client's tests while the real service is being written
// (the end-to-end test against `idforge serve` replaces it there). Several fakes can share one
// FakeStore, as the nodes of one service share their database: segments are disjoint across
// them. Each fake can be told to fail (503, 500, 429, hang, drop the connection), answer a
// given body, be stopped (every connection destroyed: a killed node) and started again on the
// same port. It counts what it was asked.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ksuid, ulid, uuidv4, uuidv7 } from '../../packages/idforge/src/core/index.js';

/** The tags of a sequence database shared by fakes: next number and stored step per tag. */
export interface FakeStore {
  readonly tags: Map<string, { next: bigint; step: number }>;
  /** Every segment handed out, by any fake on this store, answered or not. */
  readonly allocated: { tag: string; first: bigint; last: bigint; port: number }[];
}

/** A store with `tags` (default start 1, step 1). */
export function fakeStore(tags: Record<string, { start?: bigint; step?: number }> = {}): FakeStore {
  const map = new Map<string, { next: bigint; step: number }>();
  for (const [tag, t] of Object.entries(tags)) {
    map.set(tag, { next: t.start ?? 1n, step: t.step ?? 1 });
  }
  return { tags: map, allocated: [] };
}

/**
 * How a fake answers every request until changed: normally; 503/500/429 with an idforge error
 * body (429 with Retry-After: `retryAfter`); `hang` never answers; `drop` destroys the socket;
 * `lose` does the work (allocates the segment) and then destroys the socket instead of
 * answering: an answer lost on the way.
 */
export type Fault = 'none' | 503 | 500 | 429 | 'hang' | 'drop' | 'lose';

/** A canned answer (see {@link FakeService.reply}). */
export interface Reply {
  readonly status: number;
  readonly body: string;
  readonly headers?: Record<string, string>;
}

export interface FakeRequest {
  readonly method: string;
  readonly path: string;
  readonly authorization: string | undefined;
}

export interface FakeService {
  readonly url: string;
  readonly port: number;
  fault: Fault;
  /** Retry-After (seconds) sent with fault 429. */
  retryAfter: string | undefined;
  /** When set, answers instead of the contract (after auth), for malformed bodies. */
  reply: ((req: FakeRequest) => Reply | undefined) | undefined;
  /** Every request received, in order. */
  readonly requests: FakeRequest[];
  /** Requests whose path starts with `prefix`. */
  count(prefix?: string): number;
  /** Kills it: stops listening and destroys every connection (requests in flight fail). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

export interface FakeOptions {
  readonly store?: FakeStore;
  /** Required bearer token (401 without it); default none (open). */
  readonly token?: string;
  /** Tags the token may not use (403). */
  readonly forbiddenTags?: readonly string[];
  /** The largest count (default 10000). */
  readonly maxCount?: number;
}

const SCHEMES: Record<string, () => string> = { uuidv4, uuidv7, ulid, ksuid };

export async function startFakeService(options: FakeOptions = {}): Promise<FakeService> {
  const store = options.store ?? fakeStore();
  const maxCount = options.maxCount ?? 10_000;
  let snowflake = 1n << 40n;
  const sockets = new Set<import('node:net').Socket>();
  const requests: FakeRequest[] = [];

  const send = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
    if (fake.fault === 'lose') return void res.socket?.destroy();
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, code: string, message: string) =>
    send(res, status, { error: { code, message } });

  function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const r: FakeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname + url.search,
      authorization: req.headers.authorization,
    };
    requests.push(r);
    const f = fake.fault;
    if (f === 'hang') return;
    if (f === 'drop') return void req.socket.destroy();
    if (f === 503) return error(res, 503, 'IDF_NOT_READY', 'node not ready');
    if (f === 500) return error(res, 500, 'IDF_INTERNAL', 'internal error');
    if (f === 429) {
      const headers = fake.retryAfter === undefined ? {} : { 'retry-after': fake.retryAfter };
      return send(res, 429, { error: { code: 'IDF_RATE_LIMITED', message: 'slow down' } }, headers);
    }
    if (url.pathname === '/healthz') return send(res, 200, { status: 'ok' });
    if (options.token !== undefined && r.authorization !== `Bearer ${options.token}`) {
      return error(res, 401, 'IDF_UNAUTHORIZED', 'unknown token');
    }
    const canned = fake.reply?.(r);
    if (canned !== undefined) return send(res, canned.status, canned.body, canned.headers);
    route(r.method, url, res);
  }

  function route(method: string, url: URL, res: ServerResponse) {
    const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
    const n = (name: string, dflt: number, max: number): number | undefined => {
      const raw = url.searchParams.get(name) ?? String(dflt);
      const v = Number(raw);
      return /^\d+$/.test(raw) && v >= 1 && v <= max ? v : undefined;
    };
    if (method === 'GET' && parts.length === 3 && parts[0] === 'v1' && parts[1] === 'ids') {
      const scheme = parts[2]!;
      const count = n('count', 1, maxCount);
      if (count === undefined) return error(res, 400, 'IDF_BAD_REQUEST', `count: 1-${maxCount}`);
      let gen = SCHEMES[scheme];
      if (scheme === 'snowflake') gen = () => String(snowflake++);
      if (gen === undefined) return error(res, 404, 'IDF_NOT_FOUND', `no scheme "${scheme}"`);
      return send(res, 200, { ids: Array.from({ length: count }, gen) });
    }
    if (parts[0] === 'v1' && parts[1] === 'sequences' && parts[2] !== undefined) {
      const tag = parts[2];
      if (options.forbiddenTags?.includes(tag)) {
        return error(res, 403, 'IDF_FORBIDDEN', `token may not use sequence "${tag}"`);
      }
      const t = store.tags.get(tag);
      if (t === undefined) return error(res, 404, 'IDF_UNKNOWN_TAG', `unknown tag "${tag}"`);
      if (method === 'POST' && parts.length === 4 && parts[3] === 'segments') {
        const size = n('size', 1, 10_000_000);
        if (size === undefined) return error(res, 400, 'IDF_BAD_REQUEST', 'size');
        const first = t.next;
        const last = first + BigInt(Math.max(size, t.step)) - 1n;
        t.next = last + 1n;
        store.allocated.push({ tag, first, last, port: fake.port });
        return send(res, 200, { tag, first: String(first), last: String(last) });
      }
      if (method === 'GET' && parts.length === 3) {
        const count = n('count', 1, maxCount);
        if (count === undefined) return error(res, 400, 'IDF_BAD_REQUEST', 'count');
        const first = t.next;
        t.next += BigInt(count);
        return send(res, 200, {
          ids: Array.from({ length: count }, (_, i) => String(first + BigInt(i))),
        });
      }
    }
    error(res, 404, 'IDF_NOT_FOUND', `no route ${method} ${url.pathname}`);
  }

  let server: Server;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server = createServer(handle);
      server.on('connection', (s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const port = await listen(0);

  const fake: FakeService = {
    url: `http://127.0.0.1:${port}`,
    port,
    fault: 'none',
    retryAfter: undefined,
    reply: undefined,
    requests,
    count: (prefix = '') => requests.filter((r) => r.path.startsWith(prefix)).length,
    async stop() {
      if (!server.listening) return;
      const closed = new Promise((resolve) => server.close(resolve));
      for (const s of sockets) s.destroy();
      await closed;
    },
    async start() {
      await listen(port);
    },
  };
  return fake;
}
