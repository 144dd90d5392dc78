// A differential fuzzer of the fast lane: the same seeded connections (raw bytes on node:net:
// pipelined requests, requests split across writes, malformed bytes after or between them,
// every kind of token, every hot route with good and bad query and key variants, HEAD and
// POST, HTTP/1.0, missing and doubled headers) go to two apps on one service, one with the lane
// and one without (every request through Fastify's hooks and routes). Each connection's
// answers must be the same (status, every header but the date, the body with the minted IDs
// masked), and each batch must move the same metric series on both. Any check, answer, error
// shape or metric that differs between the two paths fails it; the lane must also have taken
// requests, so that the comparison is not of Fastify with itself.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp, openService, resolveConfig } from '../../packages/server/src/service/index.js';
import { converse, type Transcript, transcript } from '../helpers/http-transcript.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { tempDir } from '../helpers/temp.js';

const T = {
  ids: 'lane-fuzz-ids-token-0123456789',
  orders: 'lane-fuzz-orders-token-012345',
  lease: 'lane-fuzz-lease-token-0123456',
  noTags: 'lane-fuzz-no-tags-token-01234',
  admin: 'lane-fuzz-admin-token-0123456',
  // Creates the tags, before the apps compared are built.
  setup: 'lane-fuzz-setup-token-0123456',
};
const SETUP = { name: 'setup', token: T.setup, admin: true };

/** Every kind of Authorization a client sends (tokens have no expiry or revocation to test). */
const AUTHORIZATIONS: readonly (string | undefined)[] = [
  undefined,
  `Bearer ${T.ids}`,
  `Bearer ${T.ids}`,
  `Bearer ${T.orders}`,
  `Bearer ${T.orders}`,
  `Bearer ${T.lease}`,
  `Bearer ${T.noTags}`,
  `Bearer ${T.admin}`,
  `Bearer ${'x'.repeat(30)}`,
  `bearer   ${T.ids}  `,
  'Basic YTpi',
  'Bearer',
  '',
];
const SCHEMES = ['snowflake', 'uuidv7', 'uuidv4', 'ulid', 'ksuid', 'hlc', 'nope', 'ULID', ''];
const QUERIES = [
  ...['', '', '', '?count=1', '?count=2', '?count=3', '?count=500', '?count=501', '?count=0'],
  ...['?count=01', '?count=1e2', '?count=+5', '?count=', '?count=12345678', '?Count=5'],
  ...['?count=5x', '?count=2&count=3', '?count=2&layout=default', '?layout=default'],
  ...['?gene=3', '?x=1', '?', '?count=%32', '/'],
];
const KEYS = ['k', 'any-key', 'a.b~c_d', '%41', 'x'.repeat(128), 'x'.repeat(129), 'ü', '', 'k/'];
const TAGS = ['orders', 'orders', 'other', 'other', 'unknown-tag', '%6Frders', 'orders%20', ''];
const OTHERS = ['/healthz', '/v1/ids', '/v1/sequences/orders', '*', 'v1/ids/ulid', '/nope'];
/** Bytes that are not a request (or not a well-formed one), sent after or between requests. */
const MALFORMED = [
  'GARBAGE\r\n\r\n',
  'GET /v1/ids/ulid HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
  'GET /v1/ids/ulid HTTP/1.1\r\nHost: x\r\nX-A: \x01\r\n\r\n',
  '\x00\x01\x02\xff\r\n\r\n',
  'GET /v1/ids/ulid HTTP/9.9\r\nHost: x\r\n\r\n',
  'GET /v1/ids/ulid HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n',
  'GET /v1/ids/ulid HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
  'GET /v1/ids/ulid HTTP/1.1\r\nHost: x\r\n',
  'GET /v1/ids/u lid HTTP/1.1\r\nHost: x\r\n\r\n',
];

type Pick = <V>(list: readonly V[]) => V;

function targetOf(pick: Pick): string {
  switch (pick([0, 0, 0, 1, 1, 2, 2, 3])) {
    case 0:
      return `/v1/ids/${pick(SCHEMES)}${pick(QUERIES)}`;
    case 1:
      return `/api/snowflake/get/${pick(KEYS)}${pick(['', '', '', '?x=1', '?'])}`;
    case 2:
      return `/api/segment/get/${pick(TAGS)}${pick(['', '', '', '?x=1'])}`;
    default:
      return pick(OTHERS);
  }
}

/**
 * A request the lane may take: GET, a hot route's plain target, a Host, one of `good`
 * Authorization values; its Accept and the rest still drawn.
 */
function plainOf(pick: Pick, good: readonly (string | undefined)[]): string[] {
  const lines = [`GET ${pick(PLAIN)} HTTP/1.1`, `${pick(['Host', 'host'])}: x`];
  const auth = pick(good);
  if (auth !== undefined) lines.push(`Authorization: ${auth}`);
  return lines;
}

const PLAIN = [
  ...['/v1/ids/snowflake', '/v1/ids/uuidv7', '/v1/ids/uuidv4', '/v1/ids/ulid', '/v1/ids/ksuid'],
  ...['/v1/ids/snowflake?count=3', '/v1/ids/ulid?count=2', '/v1/ids/ksuid?count=500'],
  ...['/api/snowflake/get/k', '/api/segment/get/orders', '/api/segment/get/other'],
];

/** Any request: each part drawn from good and bad variants. */
function anyOf(pick: Pick, method: string): string[] {
  const lines = [`${method} ${targetOf(pick)} HTTP/${pick(['1.1', '1.1', '1.1', '1.1', '1.0'])}`];
  const host = pick(['Host', 'Host', 'Host', 'host', 'HOST', 'both', 'none']);
  if (host === 'both') lines.push('Host: x', 'Host: y');
  else if (host !== 'none') lines.push(`${host}: x`);
  const auth = pick(AUTHORIZATIONS);
  const name = pick(['Authorization', 'authorization', 'AUTHORIZATION']);
  if (auth !== undefined) lines.push(`${name}: ${auth}`);
  if (pick([false, false, false, false, false, true]))
    lines.push(`Authorization: ${pick(AUTHORIZATIONS) ?? ''}`);
  if (pick([false, false, false, false, false, false, true]))
    lines.push(`IdForge-HLC: ${pick(['0000000000000000', 'nonsense', ''])}`);
  return lines;
}

/** One request's head (half of them plain, half anything), and its method. */
function requestOf(
  pick: Pick,
  good: readonly (string | undefined)[],
  last: boolean,
): { head: string; method: string } {
  const plain = pick([true, false]);
  const method = plain ? 'GET' : pick(['GET', 'GET', 'GET', 'GET', 'HEAD', 'POST']);
  const lines = plain ? plainOf(pick, good) : anyOf(pick, method);
  const accept = pick([undefined, undefined, 'text/plain', 'application/json', 'text/plain, */*']);
  if (accept !== undefined) lines.push(`Accept: ${accept}`);
  if (pick([false, false, false, false, true])) lines.push('Accept: text/plain');
  if (pick([false, false, false, true])) lines.push(`X-Forwarded-For: 10.0.0.${pick([1, 2, 3])}`);
  if (last && pick([false, false, true])) lines.push('Connection: close');
  if (pick([false, false, false, false, false, true])) lines.push('Connection: keep-alive');
  return { head: `${lines.join('\r\n')}\r\n\r\n`, method };
}

/** One connection: 1 to 4 requests, maybe malformed bytes among them, split into 1 to 3 writes. */
function connectionOf(pick: Pick, random: () => number, good: readonly (string | undefined)[]) {
  const n = pick([1, 1, 2, 2, 3, 4]);
  const parts: string[] = [];
  const methods: string[] = [];
  for (let i = 0; i < n; i++) {
    const r = requestOf(pick, good, i === n - 1);
    parts.push(r.head);
    methods.push(r.method);
  }
  if (pick([false, false, false, true])) {
    const at = Math.floor(random() * (parts.length + 1));
    parts.splice(at, 0, pick(MALFORMED));
    methods.splice(at, 0, 'GET');
  }
  const bytes = Buffer.from(parts.join(''), 'latin1');
  const cuts = [
    0,
    ...Array.from({ length: pick([0, 0, 1, 2]) }, () => Math.floor(random() * bytes.length)),
  ]
    .sort((a, b) => a - b)
    .concat(bytes.length);
  const chunks = cuts.slice(1).map((c, i) => bytes.subarray(cuts[i], c));
  return { chunks: chunks.filter((c) => c.length > 0), methods, text: parts.join('') };
}

/** The request series of /metrics (counts only: timings differ by design). */
async function counts(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const out = new Map<string, number>();
  const series =
    /^(idforge_(?:http_requests_total|ids_issued_total|sequence_numbers_issued_total|store_errors_total|http_request_duration_seconds_count)\S*) (\S+)$/;
  for (const line of text.split('\n')) {
    const m = series.exec(line);
    if (m !== null && !m[1]?.includes('route="/metrics"')) out.set(m[1] as string, Number(m[2]));
  }
  return out;
}

function moved(from: Map<string, number>, to: Map<string, number>): string[] {
  return [...to]
    .filter(([k, v]) => v !== (from.get(k) ?? 0))
    .map(([k, v]) => `${k} +${v - (from.get(k) ?? 0)}`)
    .sort();
}

/** Creates the fuzzer's tags in the store at `store`, with a service of its own. */
async function createTags(store: string): Promise<void> {
  const config = resolveConfig({
    file: {
      path: 'fuzz setup',
      values: { store, logLevel: 'silent', maxEventLoopDelayMs: 0, tokens: [SETUP] },
    },
  });
  const opened = await openService(config, { logger: pino({ level: 'silent' }) });
  const app = await buildApp(opened.deps);
  try {
    for (const tag of ['orders', 'other']) {
      const created = await app.inject({
        method: 'POST',
        url: `/v1/sequences/${tag}`,
        headers: { authorization: `Bearer ${T.setup}` },
        payload: { step: 50 },
      });
      assert.equal(created.statusCode, 201, created.body);
    }
  } finally {
    await app.close();
    await opened.close();
  }
}

/** Two apps on one service, listening: one with the fast lane, one without. */
async function pair(values: Record<string, unknown>, env: Record<string, string> = {}) {
  const t = tempDir('idforge-lane-fuzz-');
  const store = `sqlite:${t.dir}/idforge.db`;
  await createTags(store);
  const config = resolveConfig({
    file: { path: 'fuzz settings', values: { store, ...values } },
    env,
  });
  const opened = await openService(config, { logger: pino({ level: 'silent' }) });
  const lane = await buildApp(opened.deps);
  const plain = await buildApp(opened.deps, { fastLane: false });
  const port = async (app: FastifyInstance) => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    return (app.server.address() as { port: number }).port;
  };
  const ports = { lane: await port(lane), plain: await port(plain) };
  const close = async () => {
    await lane.close();
    await plain.close();
    await opened.close();
    t.remove();
  };
  return { lane, ports, close };
}

type Pair = Awaited<ReturnType<typeof pair>>;

/**
 * Runs `connections` seeded connections in batches on both apps (the lane's first, then the
 * same on Fastify alone: each app's limiter and the shared service meet them in one order) and
 * compares them; returns the statuses seen and the requests the lane took.
 */
async function differential(
  p: Pair,
  good: readonly (string | undefined)[],
  seed: number,
  connections: number,
  batch = 25,
) {
  const random = seededRandom(seed);
  const pick: Pick = (list) => list[Math.floor(random() * list.length)] as (typeof list)[number];
  const statuses = new Set<string>();
  const taken0 = p.lane.fastLane?.taken ?? 0;
  for (let done = 0; done < connections; done += batch) {
    const scripts = Array.from({ length: Math.min(batch, connections - done) }, () =>
      connectionOf(pick, random, good),
    );
    const run = async (port: number): Promise<Transcript[]> => {
      const out: Transcript[] = [];
      for (const s of scripts) out.push(transcript(await converse(port, s.chunks), s.methods));
      return out;
    };
    const c0 = await counts(p.ports.lane);
    const viaLane = await run(p.ports.lane);
    const c1 = await counts(p.ports.lane);
    const viaFastify = await run(p.ports.plain);
    const c2 = await counts(p.ports.lane);
    scripts.forEach((s, i) => {
      assert.deepEqual(viaLane[i], viaFastify[i], `seed ${seed}: ${JSON.stringify(s.text)}`);
      for (const a of viaLane[i]?.answers ?? []) statuses.add(a.status.slice(9, 12));
    });
    assert.deepEqual(moved(c0, c1), moved(c1, c2), `seed ${seed}: metrics of batch ${done}`);
  }
  return { statuses, taken: (p.lane.fastLane?.taken ?? 0) - taken0 };
}

const SEED = 35_1;

describe('the fast lane and Fastify answer the same seeded bytes alike', () => {
  let tokens: Pair;
  let open: Pair;
  before(async () => {
    const common = { logLevel: 'silent', maxEventLoopDelayMs: 0, maxCount: 500, hlc: true };
    tokens = await pair(
      {
        ...common,
        rateLimit: 60,
        rateWindowMs: 600_000,
        tokens: [
          { name: 'ids', token: T.ids },
          { name: 'orders', token: T.orders, schemes: ['snowflake'], tags: ['orders'] },
          { name: 'lease', token: T.lease, scopes: ['lease'] },
          { name: 'no-tags', token: T.noTags, tags: [] },
        ],
      },
      { IDFORGE_ADMIN_TOKEN: T.admin },
    );
    // An open service: requests without a token are counted by client address.
    open = await pair({ ...common, rateLimit: 40, rateWindowMs: 600_000 });
  });
  after(async () => {
    await tokens?.close();
    await open?.close();
  });

  test('with tokens: every kind of token, every hot route, pipelined and malformed', async () => {
    const r = await differential(tokens, [`Bearer ${T.ids}`, `Bearer ${T.orders}`], SEED, 150);
    assert.ok(r.taken > 20, `the lane took ${r.taken} requests`);
    for (const s of ['200', '400', '401', '403', '404', '405', '429'])
      assert.ok(r.statuses.has(s), `a ${s} among ${[...r.statuses].sort()}`);
  });

  test('open service: the rate limit keyed by the client address on both paths', async () => {
    const r = await differential(open, [undefined], SEED + 1, 80);
    assert.ok(r.taken > 20, `the lane took ${r.taken} requests`);
    assert.ok(r.statuses.has('429'), `the address's limit reached: ${[...r.statuses].sort()}`);
  });
});
