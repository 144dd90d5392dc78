// Round robin, failover and back-off of idforge/client over real HTTP: fake idforge nodes on
// node:http (test/helpers/fake-id-service.ts), a port nothing listens on, and a TCP server that
// never answers. The back-off runs on an injected clock, so no test sleeps or times anything.
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import {
  ClientClosedError,
  createClient,
  type IdforgeClient,
  ServiceAuthError,
  ServiceRejectedError,
  ServiceResponseError,
  ServiceUnavailableError,
} from '../../packages/idforge/src/client/index.js';
import { IdforgeError, isKsuid, isUlid, isUuid } from '../../packages/idforge/src/core/index.js';
import { type FakeService, startFakeService } from '../helpers/fake-id-service.js';
import { openTestService } from '../helpers/service.js';
import { closedPort, plainWebServer, type Stand, silentServer } from '../helpers/tcp.js';
import { waitFor } from '../helpers/wait.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function fakes(n: number, options = {}): Promise<FakeService[]> {
  const out: FakeService[] = [];
  for (let i = 0; i < n; i++) {
    const f = await startFakeService(options);
    cleanups.push(() => f.stop());
    out.push(f);
  }
  return out;
}

/** A client on `urls` with a manual clock (`clock.t`, ms). */
function client(urls: string[], options: Record<string, unknown> = {}) {
  const clock = { t: 0 };
  const c: IdforgeClient = createClient({ urls, now: () => clock.t, probeMs: 100, ...options });
  cleanups.push(() => c.close());
  return { c, clock };
}

const ids = (f: FakeService) => f.count('/v1/ids/');

describe('round robin', () => {
  test('each call goes to the next server in turn', async () => {
    const fs = await fakes(3);
    const { c } = client(fs.map((f) => f.url));
    for (let i = 0; i < 9; i++) await c.next('uuidv7');
    assert.deepEqual(fs.map(ids), [3, 3, 3]);
    assert.deepEqual(
      c.stats().servers.map((s) => [s.up, s.requests, s.failures]),
      [
        [true, 3, 0],
        [true, 3, 0],
        [true, 3, 0],
      ],
    );
  });

  test('every scheme comes back as checked strings of that scheme', async () => {
    const [f] = await fakes(1);
    const { c } = client([f!.url]);
    assert.ok(isUuid(await c.next('uuidv4'), 4));
    assert.ok(isUuid(await c.next('uuidv7'), 7));
    assert.ok(isUlid(await c.next('ulid')));
    assert.ok(isKsuid(await c.next('ksuid')));
    const flakes = await c.batch('snowflake', 100);
    assert.equal(new Set(flakes).size, 100);
    assert.ok(flakes.every((s) => /^[1-9]\d*$/.test(s)));
    assert.equal(f!.requests.at(-1)!.path, '/v1/ids/snowflake?count=100');
  });
});

describe('failover within a call', () => {
  for (const [what, make] of [
    ['a closed port', async () => `http://127.0.0.1:${await closedPort()}`],
    ['503', async () => failing(503)],
    ['500', async () => failing(500)],
    ['429', async () => failing(429)],
    ['a dropped connection', async () => failing('drop')],
  ] as const) {
    test(`${what}: the same call is served by the next server, the failed one backs off`, async () => {
      const bad = await make();
      const [good] = await fakes(1);
      const { c } = client([bad, good!.url]);
      assert.ok(isUuid(await c.next('uuidv7'), 7));
      assert.equal(ids(good!), 1);
      const [down, up] = c.stats().servers;
      assert.deepEqual([down!.up, down!.failures, up!.up], [false, 1, true]);
      // While it backs off, calls skip it: whichever server their turn starts at.
      for (let i = 0; i < 4; i++) await c.next('ulid');
      assert.equal(c.stats().servers[0]!.requests, 1);
      assert.equal(ids(good!), 5);
    });
  }

  test('no answer within timeoutMs: the next server serves the call', async () => {
    const silent: Stand = await silentServer(); // accepts connections, never answers
    cleanups.push(() => silent.close());
    const [good] = await fakes(1);
    // Generous, so that the good server's answer is never late on a loaded machine.
    const { c } = client([`http://127.0.0.1:${silent.port}`, good!.url], { timeoutMs: 1000 });
    assert.ok(isUlid(await c.next('ulid')));
    const [down] = c.stats().servers;
    assert.deepEqual([down!.up, down!.requests, down!.failures], [false, 1, 1]);
    await assert.rejects(
      (async () => {
        const only = createClient({ urls: [`http://127.0.0.1:${silent.port}`], timeoutMs: 20 });
        cleanups.push(() => only.close());
        await only.next('ulid');
      })(),
      (e: unknown) =>
        e instanceof ServiceUnavailableError &&
        /no answer within 20 ms/.test(e.failures[0]!.reason),
    );
    for (let i = 0; i < 3; i++) await c.next('ulid'); // the silent one is skipped meanwhile
    assert.equal(c.stats().servers[0]!.requests, 1);
    assert.equal(ids(good!), 4);
  });

  test('a node that hangs mid-request is failed over too', async () => {
    const [hang, good] = await fakes(2);
    hang!.fault = 'hang';
    const { c } = client([hang!.url, good!.url], { timeoutMs: 1000 });
    assert.ok(isUuid(await c.next('uuidv4'), 4));
    assert.equal(hang!.count(), 1);
    assert.equal(c.stats().servers[0]!.up, false);
  });
});

describe('a server that is not idforge is failed over (issue 33 item 6)', () => {
  // A plain web server's 404 page, a proxy's 401 or 403: not an idforge error, so nothing
  // another node would repeat. Only an idforge error body stops the failover.
  for (const [status, body] of [
    [404, '<html><body>Not Found</body></html>'],
    [401, 'Authorization Required'],
    [403, ''],
  ] as const) {
    test(`[a plain web server answering ${status}, an idforge service]: the service serves the call`, async () => {
      const plain = await plainWebServer(status, body);
      cleanups.push(() => plain.close());
      const s = await openTestService();
      cleanups.push(() => s.close());
      const idforge = await s.app.listen({ host: '127.0.0.1', port: 0 });
      const { c } = client([`http://127.0.0.1:${plain.port}`, idforge]);
      assert.ok(isUuid(await c.next('uuidv7'), 7));
      assert.equal(plain.requests(), 1);
      const [down, up] = c.stats().servers;
      assert.deepEqual([down!.up, down!.failures, up!.up, up!.requests], [false, 1, true, 1]);
    });
  }

  test('a plain web server alone (or a wrong base path): ServiceUnavailableError saying its answer was not idforge', async () => {
    const plain = await plainWebServer(404, '<html>Not Found</html>');
    cleanups.push(() => plain.close());
    const url = `http://127.0.0.1:${plain.port}`;
    const { c } = client([url]);
    await assert.rejects(c.next('ulid'), (e: unknown) => {
      assert.ok(e instanceof ServiceUnavailableError);
      assert.deepEqual(
        e.failures.map((f) => [f.url, f.status, f.serverCode, f.tried]),
        [[url, 404, undefined, true]],
      );
      assert.match(
        e.failures[0]!.reason,
        /^HTTP 404: not an idforge error body \("<html>Not Found<\/html>"\): is this URL an idforge service\?/,
      );
      return true;
    });
  });
});

/** A fake node that answers every request with `fault`; returns its URL. */
async function failing(fault: FakeService['fault']): Promise<string> {
  const [f] = await fakes(1);
  f!.fault = fault;
  return f!.url;
}

describe('refusals are thrown at once, never failed over', () => {
  test('401 without the token: ServiceAuthError with the server code, one request in all', async () => {
    const fs = await fakes(2, { token: 's3cr3t-token' });
    const { c } = client(fs.map((f) => f.url));
    const e = await c.next('uuidv4').catch((x: unknown) => x);
    assert.ok(e instanceof ServiceAuthError && e instanceof IdforgeError);
    assert.equal(e.code, 'IDF_SERVICE_AUTH');
    assert.deepEqual(
      [e.status, e.serverCode, e.serverMessage],
      [401, 'IDF_UNAUTHORIZED', 'unknown token'],
    );
    assert.equal(e.url, fs[0]!.url);
    assert.equal(fs[0]!.count() + fs[1]!.count(), 1);
    assert.ok(c.stats().servers.every((s) => s.up));
  });

  test('the token is sent as a bearer token, and works', async () => {
    const [f] = await fakes(1, { token: 's3cr3t-token' });
    const { c } = client([f!.url], { token: 's3cr3t-token' });
    await c.next('ksuid');
    assert.equal(f!.requests[0]!.authorization, 'Bearer s3cr3t-token');
  });

  test('403 out of scope: ServiceAuthError', async () => {
    const fs = await fakes(2, { forbiddenTags: ['orders'] });
    const { c } = client(fs.map((f) => f.url));
    await assert.rejects(c.sequence('orders').next(), (e: unknown) => {
      assert.ok(e instanceof ServiceAuthError);
      assert.deepEqual([e.status, e.serverCode], [403, 'IDF_FORBIDDEN']);
      assert.match(e.message, /not for this scheme or tag/);
      return true;
    });
    assert.equal(fs[0]!.count() + fs[1]!.count(), 1);
  });

  test('404 unknown tag and 400 bad count: ServiceRejectedError with the server code', async () => {
    const fs = await fakes(2, { maxCount: 10 });
    const { c } = client(fs.map((f) => f.url));
    const e = await c
      .sequence('nope')
      .next()
      .catch((x: unknown) => x);
    assert.ok(e instanceof ServiceRejectedError);
    assert.deepEqual(
      [e.code, e.status, e.serverCode, e.serverMessage, e.operation],
      [
        'IDF_SERVICE_REJECTED',
        404,
        'IDF_UNKNOWN_TAG',
        'unknown tag "nope"',
        'POST /v1/sequences/nope/segments',
      ],
    );
    await assert.rejects(c.batch('ulid', 11), {
      code: 'IDF_SERVICE_REJECTED',
      status: 400,
      serverCode: 'IDF_BAD_REQUEST',
    });
    assert.equal(fs[0]!.count() + fs[1]!.count(), 2);
    assert.ok(c.stats().servers.every((s) => s.up && s.failures === 0));
  });
});

describe('every server failing', () => {
  test('ServiceUnavailableError names each URL and its reason, never the token', async () => {
    const token = 's3cr3t-token';
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const [busy, limited] = await fakes(2, { token });
    busy!.fault = 503;
    limited!.fault = 429;
    limited!.retryAfter = '7';
    const { c } = client([closed, busy!.url, limited!.url], { token });
    const e = await c.next('uuidv7').catch((x: unknown) => x);
    assert.ok(e instanceof ServiceUnavailableError && e instanceof IdforgeError);
    assert.equal(e.code, 'IDF_SERVICE_UNAVAILABLE');
    assert.equal(e.operation, 'GET /v1/ids/uuidv7');
    assert.deepEqual(
      e.failures.map((f) => [f.url, f.status, f.serverCode, f.tried]),
      [
        [closed, undefined, undefined, true],
        [busy!.url, 503, 'IDF_NOT_READY', true],
        [limited!.url, 429, 'IDF_RATE_LIMITED', true],
      ],
    );
    assert.match(e.failures[0]!.reason, /ECONNREFUSED/);
    assert.equal(e.retryAfterMs, 7000);
    for (const url of [closed, busy!.url, limited!.url]) assert.ok(e.message.includes(url));
    assert.match(e.message, /HTTP 503 IDF_NOT_READY: node not ready/);
    assert.ok(e.cause instanceof AggregateError && e.cause.errors.length === 3);
    const everything = `${e.message} ${JSON.stringify(e.failures)} ${e.stack} ${String(e.cause.errors)}`;
    assert.ok(!everything.includes(token), 'the token appears nowhere');
  });

  test('while every server backs off, a call rejects at once without a request', async () => {
    const [f] = await fakes(1);
    f!.fault = 503;
    const { c } = client([f!.url]);
    await assert.rejects(c.next('ulid'), ServiceUnavailableError);
    assert.equal(f!.count(), 1);
    const e = await c.next('ulid').catch((x: unknown) => x);
    assert.ok(e instanceof ServiceUnavailableError);
    assert.equal(f!.count(), 1);
    assert.equal(e.failures[0]!.tried, false);
    assert.match(
      e.message,
      /its only server\): .*not tried: failed recently \(HTTP 503 IDF_NOT_READY/,
    );
  });
});

describe('back-off and probe', () => {
  test('a returning server is probed after its back-off and used again', async () => {
    const [a, b] = await fakes(2);
    await a!.stop();
    const { c, clock } = client([a!.url, b!.url]);
    await c.next('ulid');
    assert.equal(c.stats().servers[0]!.up, false);
    await a!.start();
    clock.t = 49; // the first back-off is 100 ms jittered into [50, 100): not yet
    for (let i = 0; i < 4; i++) await c.next('ulid');
    assert.equal(ids(a!), 0);
    clock.t = 100; // past any jitter: the call whose turn reaches it probes it
    for (let i = 0; i < 2; i++) await c.next('ulid');
    assert.equal(ids(a!), 1);
    assert.equal(c.stats().servers[0]!.up, true);
    for (let i = 0; i < 4; i++) await c.next('ulid');
    assert.equal(ids(a!), 3, 'round robin again');
  });

  test('each failed probe doubles the back-off, up to 20 x probeMs', async () => {
    const [f] = await fakes(1);
    f!.fault = 503;
    const { c, clock } = client([f!.url]);
    const probe = async () => {
      await c.next('ulid').catch(() => undefined);
      return f!.count();
    };
    assert.equal(await probe(), 1); // down: back-off 100 ms, due within [50, 100)
    let t = 0;
    let previous = 100;
    let expected = 1;
    for (const step of [200, 400, 800, 1600, 2000, 2000]) {
      t += previous; // past any jitter of the previous back-off
      clock.t = t;
      assert.equal(await probe(), ++expected, `probed at ${t}`);
      clock.t = t + step / 2 - 1; // before the earliest jittered end of this back-off
      assert.equal(await probe(), expected, `back-off ${step} ms: no probe at ${clock.t}`);
      previous = step;
    }
  });

  test('a 429 keeps the server out for at least its Retry-After', async () => {
    const [limited, other] = await fakes(2);
    limited!.fault = 429;
    limited!.retryAfter = '5';
    const { c, clock } = client([limited!.url, other!.url]);
    await c.next('ksuid');
    limited!.fault = 'none';
    clock.t = 4999;
    for (let i = 0; i < 4; i++) await c.next('ksuid');
    assert.equal(limited!.count(), 1);
    clock.t = 5000;
    for (let i = 0; i < 2; i++) await c.next('ksuid');
    assert.equal(limited!.count(), 2);
  });
});

describe('responses that break the contract are refused, not handed out', () => {
  const bodies: [string, string, RegExp][] = [
    ['not JSON', 'oops', /the body is not JSON \("oops"\)/],
    ['no ids', '{"id":"x"}', /"ids" is missing, not an array/],
    ['too few', '{"ids":[]}', /0 IDs where 1 were asked for/],
    ['wrong scheme', '{"ids":["01ARZ3NDEKTSV4RRFFQ69G5FAV"]}', /ids\[0\] is not a uuidv7 ID/],
    ['a number', '{"ids":[12]}', /ids\[0\] is not a uuidv7 ID \(12\)/],
  ];
  for (const [what, body, reason] of bodies) {
    test(`ids: ${what}`, async () => {
      const [f, g] = await fakes(2);
      f!.reply = () => ({ status: 200, body });
      const { c } = client([f!.url, g!.url]);
      await assert.rejects(c.next('uuidv7'), (e: unknown) => {
        assert.ok(e instanceof ServiceResponseError);
        assert.equal(e.code, 'IDF_SERVICE_RESPONSE');
        assert.match(e.reason, reason);
        assert.equal(e.url, f!.url);
        return true;
      });
      assert.equal(g!.count(), 0, 'not failed over');
    });
  }

  test('repeated IDs in one batch', async () => {
    const [f] = await fakes(1);
    f!.reply = () => ({ status: 200, body: '{"ids":["1","2","1"]}' });
    const { c } = client([f!.url]);
    await assert.rejects(c.batch('snowflake', 3), { reason: 'ids[2] repeats an earlier ID (1)' });
  });

  const segments: [string, string, RegExp][] = [
    ['first above last', '{"tag":"t","first":"9","last":"8"}', /"first" 9 is above "last" 8/],
    ['numbers, not strings', '{"tag":"t","first":1,"last":2}', /"first" is 1, not a decimal/],
    ['past 2^63 - 1', '{"tag":"t","first":"1","last":"9223372036854775808"}', /above 2\^63 - 1/],
    ['a leading zero', '{"tag":"t","first":"01","last":"2"}', /"first" is "01", not a decimal/],
    ['another tag', '{"tag":"u","first":"1","last":"2"}', /"tag" is "u", not "t"/],
  ];
  for (const [what, body, reason] of segments) {
    test(`segment: ${what}`, async () => {
      const [f] = await fakes(1);
      f!.reply = () => ({ status: 200, body });
      const { c } = client([f!.url]);
      await assert.rejects(c.sequence('t').next(), (e: unknown) => {
        assert.ok(e instanceof ServiceResponseError);
        assert.match(e.reason, reason);
        return true;
      });
    });
  }

  test('a redirect is refused (the URL must be the service itself)', async () => {
    const [f, g] = await fakes(2);
    f!.reply = () => ({ status: 302, body: '', headers: { location: `${g!.url}/v1/ids/ulid` } });
    const { c } = client([f!.url]);
    await assert.rejects(c.next('ulid'), { name: 'ServiceResponseError', reason: /a redirect/ });
    assert.equal(g!.count(), 0);
  });
});

test('close() aborts requests in flight: they reject with ClientClosedError', async () => {
  const [f] = await fakes(1);
  f!.fault = 'hang';
  const { c } = client([f!.url]);
  const pending = c.next('uuidv7');
  const seq = c.sequence('orders').next();
  await waitFor(() => f!.count() === 2, 'both requests to arrive');
  c.close();
  await assert.rejects(pending, ClientClosedError);
  await assert.rejects(seq, ClientClosedError);
  assert.equal(c.stats().servers[0]!.up, true, 'closing is not a server failure');
});
