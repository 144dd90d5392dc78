// The fast lane answers the hot routes' plain requests on Node's request event: every request
// is sent, over real sockets, to two apps on the same service, one with the lane and one
// without (all through Fastify), and the answers must be the same (status, headers but the
// date, body but the IDs), as must the metric series each request moves. The lane must have
// taken the requests it is for and none of the others.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { buildApp, openService, resolveConfig } from '../../packages/server/src/service/index.js';
import { tempDir } from '../helpers/temp.js';

const IDS = 'fast-lane-ids-token-0123456789';
const ORDERS = 'fast-lane-orders-token-0123456';
const LEASE = 'fast-lane-lease-token-01234567';
const ADMIN = 'fast-lane-admin-token-01234567';
const NO_TAGS = 'fast-lane-no-tags-token-012345';
const RATE_LIMIT = 40;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** An ID of any scheme the routes hand out, replaced so that two answers compare. */
const ID =
  /\b(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9A-HJKMNP-TV-Z]{26}|[0-9A-Za-z]{27}|[0-9]{6,20})\b/g;

async function send(base: string, path: string, headers: Record<string, string>, method = 'GET') {
  const r = await fetch(base + path, { headers, method });
  const out: Record<string, string> = {};
  r.headers.forEach((v, k) => {
    if (k !== 'date') out[k] = v;
  });
  const text = await r.text();
  // A Leaf segment number is the whole body; two apps draw different numbers of one tag.
  // A 429's message says the seconds left, as retry-after does (below): the same rounding.
  const body = /^[0-9]+$/.test(text)
    ? '<n>'
    : text.replace(ID, '<id>').replace(/retry in [0-9]+ s\b/g, 'retry in <s> s');
  if (out['content-length'] !== undefined) out['content-length'] = '<n>';
  // The HLC stamp moves with every answer; both paths must give one.
  if (out['idforge-hlc'] !== undefined) out['idforge-hlc'] = '<hlc>';
  // Two limiters' windows opened a few ms apart, or two requests a second boundary apart on a
  // busy machine, may round to different seconds.
  for (const k of ['x-ratelimit-reset', 'retry-after']) {
    if (out[k] !== undefined) {
      assert.match(out[k] as string, /^[0-9]+$/, k);
      out[k] = '<s>';
    }
  }
  return { status: r.status, headers: out, body } satisfies Answer;
}

/** The request-count series of /metrics, as a map of series to value. */
async function counts(base: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m =
      /^(idforge_(?:http_requests_total|ids_issued_total|sequence_numbers_issued_total|http_request_duration_seconds_count)\S*) (\S+)$/.exec(
        line,
      );
    if (m !== null) out.set(m[1] as string, Number(m[2]));
  }
  return out;
}

/** One request written as `head` on its own connection; the answer's status line and body. */
function raw(base: string, head: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(head));
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [status] = text.split('\r\n');
      resolve(`${status} ${text.slice(text.indexOf('\r\n\r\n') + 4).replace(ID, '<id>')}`);
    });
  });
}

function moved(before: Map<string, number>, now: Map<string, number>): string[] {
  const out: string[] = [];
  for (const [k, v] of now) {
    if (!k.includes('route="/metrics"') && v !== (before.get(k) ?? 0)) {
      out.push(`${k} +${v - (before.get(k) ?? 0)}`);
    }
  }
  return out.sort();
}

describe('the fast lane answers as the routes do', () => {
  const t = tempDir('idforge-lane-');
  let close: () => Promise<void>;
  let lane: FastifyInstance;
  let plain: FastifyInstance;
  let laneUrl: string;
  let plainUrl: string;

  before(async () => {
    const config = resolveConfig({
      file: {
        path: 'test settings',
        values: {
          store: `sqlite:${t.dir}/idforge.db`,
          logLevel: 'silent',
          maxEventLoopDelayMs: 0,
          maxCount: 500,
          hlc: true,
          rateLimit: RATE_LIMIT,
          rateWindowMs: 60_000,
          tokens: [
            { name: 'ids', token: IDS },
            { name: 'orders', token: ORDERS, schemes: ['snowflake'], tags: ['orders'] },
            { name: 'lease', token: LEASE, scopes: ['lease'] },
            { name: 'no-tags', token: NO_TAGS, tags: [] },
          ],
        },
      },
      env: { IDFORGE_ADMIN_TOKEN: ADMIN },
    });
    const opened = await openService(config, { logger: pino({ level: 'silent' }) });
    lane = await buildApp(opened.deps);
    plain = await buildApp(opened.deps, { fastLane: false });
    laneUrl = await lane.listen({ host: '127.0.0.1', port: 0 });
    plainUrl = await plain.listen({ host: '127.0.0.1', port: 0 });
    for (const tag of ['orders', 'other']) {
      const created = await lane.inject({
        method: 'POST',
        url: `/v1/sequences/${tag}`,
        headers: { authorization: `Bearer ${ADMIN}` },
        payload: { step: 100 },
      });
      assert.equal(created.statusCode, 201, created.body);
    }
    close = async () => {
      await lane.close();
      await plain.close();
      await opened.close();
      t.remove();
    };
  });
  after(() => close());

  /** Sends `path` to both apps; returns how many of the two the lane took (0 or 1). */
  async function same(path: string, headers: Record<string, string> = {}): Promise<number> {
    return (await both(path, headers)).taken;
  }

  /** Sends `path` to both apps, checks the answers agree; the lane's answer and its take. */
  async function both(path: string, headers: Record<string, string>, method = 'GET') {
    const taken = lane.fastLane?.taken ?? 0;
    const c0 = await counts(laneUrl);
    const a = await send(laneUrl, path, headers, method);
    const c1 = await counts(laneUrl);
    const b = await send(plainUrl, path, headers, method);
    const c2 = await counts(laneUrl);
    assert.deepEqual(a, b, `${path} ${JSON.stringify(headers)}`);
    assert.deepEqual(moved(c0, c1), moved(c1, c2), `metrics moved by ${path}`);
    return { answer: a, taken: (lane.fastLane?.taken ?? 0) - taken, moved: moved(c0, c1) };
  }

  const ids = { authorization: `Bearer ${IDS}` };
  const orders = { authorization: `Bearer ${ORDERS}` };

  test('the plain requests of the hot routes are the lane’s, with the same answers', async () => {
    assert.notEqual(lane.fastLane, null);
    assert.equal(plain.fastLane, null);
    for (const scheme of ['snowflake', 'uuidv7', 'uuidv4', 'ulid', 'ksuid']) {
      assert.equal(await same(`/v1/ids/${scheme}`, ids), 1, scheme);
      assert.equal(await same(`/v1/ids/${scheme}?count=3`, ids), 1, scheme);
      assert.equal(await same(`/v1/ids/${scheme}?count=2`, { ...ids, accept: 'text/plain' }), 1);
    }
    assert.equal(await same('/v1/ids/snowflake?count=500', orders), 1);
    assert.equal(await same('/api/snowflake/get/any-key', ids), 1);
    assert.equal(await same('/api/snowflake/get/any-key', orders), 1);
    // A tag's first number opens its buffer (Fastify's route waits for it); then the lane's.
    assert.equal(await same('/api/segment/get/orders', orders), 0);
    assert.equal(await same('/api/segment/get/orders', orders), 1);
  });

  test('every other request goes to Fastify, and is answered as before', async () => {
    // Tag "other" open in the process (its first number is the route's), so that the lane
    // would answer a token restricted to "orders" if it did not check the tag.
    assert.equal(await same('/api/segment/get/other', ids), 0);
    assert.equal(await same('/api/segment/get/other', ids), 1);
    const noTags = { authorization: `Bearer ${NO_TAGS}` };
    const refused: [string, Record<string, string>][] = [
      ['/api/segment/get/other', orders],
      // `tags: []` is no tag at all, not every tag.
      ['/api/segment/get/orders', noTags],
      ['/v1/sequences/orders', noTags],
      ['/v1/ids/snowflake', {}],
      ['/v1/ids/snowflake', { authorization: `Bearer ${'x'.repeat(30)}` }],
      ['/v1/ids/snowflake', { authorization: 'Basic abc' }],
      ['/v1/ids/uuidv7', orders],
      ['/v1/ids/snowflake', { authorization: `Bearer ${LEASE}` }],
      ['/v1/ids/snowflake?count=0', ids],
      ['/v1/ids/snowflake?count=501', ids],
      ['/v1/ids/snowflake?count=01', ids],
      ['/v1/ids/snowflake?count=1e2', ids],
      ['/v1/ids/snowflake?count=+5', ids],
      ['/v1/ids/snowflake?count=', ids],
      ['/v1/ids/snowflake?count=12345678', ids],
      ['/v1/ids/snowflake?Count=5', ids],
      ['/v1/ids/snowflake?count=5x', ids],
      ['/v1/ids/snowflake?count=2&count=3', ids],
      ['/v1/ids/snowflake?count=2&layout=default', ids],
      ['/v1/ids/uuidv7?layout=default', ids],
      ['/v1/ids/snowflake?gene=3', ids],
      ['/v1/ids/nope', ids],
      ['/v1/ids/snowflake/', ids],
      ['/v1/ids/hlc', ids],
      ['/v1/ids/snowflake', { ...ids, 'idforge-hlc': '0000000000000000' }],
      // Once the node's HLC has a time, every answer carries it: the lane's as the route's.
      ['/v1/ids/snowflake?count=0', ids],
      ['/api/snowflake/get/%41', ids],
      ['/api/snowflake/get/k?x=1', ids],
      ['/api/snowflake/get/k', { authorization: `Bearer ${LEASE}` }],
      ['/api/segment/get/unknown-tag', ids],
      ['/api/segment/get/orders', { authorization: `Bearer ${LEASE}` }],
    ];
    for (const [path, headers] of refused) {
      assert.equal(await same(path, headers), 0, `${path} went to Fastify`);
    }
    for (const [path, headers] of refused.slice(0, 3)) {
      assert.equal((await both(path, headers)).answer.status, 403, `${path}: not the token's tag`);
    }
    const stamped = await both('/v1/ids/ulid', ids);
    assert.equal(stamped.taken, 1);
    assert.equal(stamped.answer.headers['idforge-hlc'], '<hlc>', 'the lane stamps its answers');
  });

  test('headers the lane reads from the raw list: the first of each, as Node keeps them', async () => {
    const close = 'Connection: close\r\n';
    const heads = [
      `GET /v1/ids/ulid HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${IDS}\r\nAuthorization: Bearer nope-nope-nope-nope\r\n${close}\r\n`,
      `GET /v1/ids/ulid HTTP/1.1\r\nHost: x\r\nAUTHORIZATION: Bearer nope-nope-nope-nope\r\nauthorization: Bearer ${IDS}\r\n${close}\r\n`,
      `GET /v1/ids/ulid HTTP/1.1\r\nauthorization: Bearer ${IDS}\r\n${close}\r\n`,
      `GET /v1/ids/ulid HTTP/1.0\r\nauthorization: Bearer ${IDS}\r\n\r\n`,
      `GET /v1/ids/ulid?count=2 HTTP/1.1\r\nHOST: x\r\nAccept: text/plain\r\nAccept: application/json\r\nauthorization: Bearer ${IDS}\r\n${close}\r\n`,
    ];
    const taken = lane.fastLane?.taken ?? 0;
    for (const head of heads) assert.equal(await raw(laneUrl, head), await raw(plainUrl, head));
    assert.equal(
      (lane.fastLane?.taken ?? 0) - taken,
      3,
      'all but the bad first token and the hostless 1.1',
    );
  });

  test('HEAD on a minting route: 405 with Allow on both paths; no ID, no number, no rate-limit token', async () => {
    // Each probe goes to both apps, so that their limiters stay alike for the tests after.
    const get = async (path: string, headers: Record<string, string>) => {
      const a = await fetch(laneUrl + path, { headers });
      await (await fetch(plainUrl + path, { headers })).text();
      return { remaining: Number(a.headers.get('x-ratelimit-remaining')), text: await a.text() };
    };
    const remaining = async () => (await get('/v1/ids/ulid', ids)).remaining;
    const number = async () => Number((await get('/api/segment/get/orders', orders)).text);
    const r0 = await remaining();
    const n0 = await number();
    for (const [path, headers] of [
      ['/v1/ids/snowflake?count=5', ids],
      ['/v1/ids/uuidv7', ids],
      ['/api/snowflake/get/k', ids],
      ['/api/segment/get/orders', orders],
      ['/v1/sequences/orders?count=3', orders],
    ] as const) {
      const r = await both(path, headers, 'HEAD');
      assert.equal(r.taken, 0, `HEAD ${path} went to Fastify`);
      assert.equal(r.answer.status, 405, `HEAD ${path}`);
      assert.equal(r.answer.headers.allow, 'GET', `HEAD ${path}: Allow`);
      const minted = r.moved.filter((m) => !m.startsWith('idforge_http_request'));
      assert.deepEqual(minted, [], `HEAD ${path} counted nothing issued`);
    }
    assert.equal(
      await number(),
      n0 + 2,
      'no number of the tag was burned (the other app drew one)',
    );
    assert.equal(await remaining(), r0 - 1, 'only the GETs took a rate-limit token');
  });

  test('the rate limit counts once per request, whichever path answered', async () => {
    // Both apps are on their own limiter; the same requests meet the same budget in each.
    // A refused request (400) is not counted, an answered one is, on either path.
    const statuses: number[] = [];
    let taken = 0;
    for (let i = 0; i < 2 * RATE_LIMIT && !statuses.includes(429); i++) {
      const path = i % 3 === 0 ? '/v1/ids/snowflake?count=0' : '/v1/ids/snowflake';
      const r = await both(path, orders);
      taken += r.taken;
      statuses.push(r.answer.status);
      assert.equal((await send(laneUrl, '/healthz', {})).status, 200, 'ops routes are exempt');
    }
    assert.ok(statuses.includes(429), `429 within ${2 * RATE_LIMIT} requests`);
    assert.ok(taken > 0, 'the lane answered some of them');
    const last = await fetch(`${laneUrl}/v1/ids/snowflake`, { headers: orders });
    assert.equal(last.status, 429);
    assert.match(await last.text(), /IDF_RATE_LIMITED.*requests per 60 s/);
    assert.ok(Number(last.headers.get('retry-after')) > 1, 'Retry-After: the seconds left');
  });
});
