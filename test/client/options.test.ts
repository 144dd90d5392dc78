// createClient validates every option at construction ("createClient options.NAME: expected X,
// got Y"), never echoes the token, and checks the arguments of every method. No server needed:
// nothing is sent for a refused call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientClosedError, createClient } from '../../packages/idforge/src/client/index.js';

const url = 'http://127.0.0.1:9';
const noFetch = (() => {
  throw new Error('no request may be sent');
}) as unknown as typeof fetch;

test('each bad option throws TypeError or RangeError naming it', () => {
  const cases: [unknown, typeof TypeError | typeof RangeError, RegExp][] = [
    [undefined, TypeError, /^createClient options: expected an object with urls, got undefined$/],
    [
      {},
      TypeError,
      /options\.urls: expected a non-empty array of http\(s\) base URLs, got undefined/,
    ],
    [{ urls: 'http://a' }, TypeError, /options\.urls: expected .*, got string "http:\/\/a"/],
    [{ urls: [] }, RangeError, /options\.urls: expected a non-empty array .*, got array\(0\)/],
    [{ urls: [8080] }, TypeError, /options\.urls\[0\]: expected a URL string, got number 8080/],
    [
      { urls: ['localhost:8080'] },
      RangeError,
      /options\.urls\[0\]: expected an http: or https: URL/,
    ],
    [{ urls: ['not a url'] }, RangeError, /options\.urls\[0\]: expected an absolute URL/],
    [{ urls: ['ftp://h'] }, RangeError, /urls\[0\]: expected an http: or https: URL, got/],
    [{ urls: ['http://h/?x=1'] }, RangeError, /urls\[0\]: expected a base URL without \?query/],
    [{ urls: [url, `${url}/`] }, RangeError, /urls\[1\]: expected a URL not listed twice/],
    [{ urls: [url], timeoutMs: '5' }, TypeError, /options\.timeoutMs: expected an integer/],
    [{ urls: [url], timeoutMs: 0 }, RangeError, /options\.timeoutMs: expected an integer in \[1, /],
    [{ urls: [url], timeoutMs: 1.5 }, RangeError, /options\.timeoutMs: .*got number 1\.5/],
    [
      { urls: [url], segmentSize: 0 },
      RangeError,
      /options\.segmentSize: expected an integer in \[1, /,
    ],
    [
      { urls: [url], segmentSize: Number.NaN },
      RangeError,
      /options\.segmentSize: .*got number NaN/,
    ],
    [
      { urls: [url], prefetchAt: 1 },
      RangeError,
      /options\.prefetchAt: expected a number in \[0, 1\)/,
    ],
    [{ urls: [url], prefetchAt: -0.1 }, RangeError, /options\.prefetchAt: .*got number -0\.1/],
    [{ urls: [url], prefetchAt: '0.2' }, TypeError, /options\.prefetchAt: expected a number/],
    [{ urls: [url], probeMs: 0 }, RangeError, /options\.probeMs: expected an integer in \[1, /],
    [{ urls: [url], probeMs: Infinity }, RangeError, /options\.probeMs: .*got number Infinity/],
    [{ urls: [url], fetch: 'fetch' }, TypeError, /options\.fetch: expected a function/],
    [{ urls: [url], now: 5 }, TypeError, /options\.now: expected a function, got number 5/],
    [{ urls: [url], token: 42 }, TypeError, /options\.token: expected a string, got number/],
    [
      { urls: [url], timeout: 5 },
      RangeError,
      /options: expected only urls, token, .*got string "key timeout"/,
    ],
  ];
  for (const [options, type, message] of cases) {
    assert.throws(
      () => createClient(options as never),
      (e: unknown) => e instanceof type && message.test((e as Error).message),
      `${JSON.stringify(options)} → ${type.name} ${message}`,
    );
  }
});

test('a bad token or a URL with credentials is refused without echoing the secret', () => {
  for (const token of ['', 'has space-s3cr3t', 'new\nline-s3cr3t']) {
    assert.throws(
      () => createClient({ urls: [url], token }),
      (e: unknown) =>
        e instanceof RangeError &&
        /options\.token: expected a non-empty string of visible ASCII/.test(e.message) &&
        !e.message.includes('s3cr3t'),
    );
  }
  assert.throws(
    () => createClient({ urls: ['http://user:s3cr3t@127.0.0.1:8080'] }),
    (e: unknown) =>
      e instanceof RangeError &&
      /urls\[0\]: expected a URL without user:password@/.test(e.message) &&
      !e.message.includes('s3cr3t'),
  );
});

test('defaults and good options are accepted; nothing is sent at construction', () => {
  const client = createClient({ urls: [url], fetch: noFetch });
  assert.equal(client.stats().servers[0]!.url, url);
  const full = createClient({
    urls: ['https://ids.example/base/', 'http://[::1]:8080'],
    token: 'abc.DEF-123_~+/=',
    timeoutMs: 1,
    segmentSize: 1,
    prefetchAt: 0,
    probeMs: 1,
    fetch: noFetch,
    now: () => 0,
  });
  assert.deepEqual(
    full.stats().servers.map((s) => s.url),
    ['https://ids.example/base', 'http://[::1]:8080'],
  );
  client.close();
  full.close();
});

test('method arguments are checked before any request', async () => {
  const client = createClient({ urls: [url], fetch: noFetch });
  await assert.rejects(client.next('uuidv9' as never), {
    name: 'RangeError',
    message:
      /^scheme: expected one of uuidv4, uuidv7, ulid, ksuid, snowflake, hlc, got string "uuidv9"$/,
  });
  await assert.rejects(client.next(7 as never), { name: 'TypeError', message: /^scheme: / });
  await assert.rejects(client.batch('ulid', -1), {
    name: 'RangeError',
    message: /^count: expected an integer in \[0, 1000000\], got number -1$/,
  });
  await assert.rejects(client.batch('ulid', 2.5), { name: 'RangeError' });
  await assert.rejects(client.batch('ulid', '3' as never), { name: 'TypeError' });
  assert.deepEqual(await client.batch('ulid', 0), []);
  assert.throws(() => client.sequence(''), { name: 'RangeError', message: /^tag: expected/ });
  // The wire contract's length, as every store and route takes it: 128 passes, 129 does not.
  assert.equal(client.sequence('t'.repeat(128)).tag, 't'.repeat(128));
  assert.throws(() => client.sequence('t'.repeat(129)), {
    name: 'RangeError',
    message: /^tag: expected a string of 1 to 128 characters/,
  });
  assert.throws(() => client.sequence(5 as never), { name: 'TypeError', message: /^tag: / });
  await assert.rejects(client.sequence('orders').batch(-1), {
    name: 'RangeError',
    message: /^sequence\("orders"\)\.batch count: expected an integer in \[0, 16777216\]/,
  });
  client.close();
});

test('after close() every call rejects with ClientClosedError, without a request', async () => {
  const client = createClient({ urls: [url], fetch: noFetch });
  const orders = client.sequence('orders');
  client.close();
  client.close(); // idempotent
  await assert.rejects(client.next('uuidv7'), ClientClosedError);
  await assert.rejects(client.batch('snowflake', 3), { code: 'IDF_CLIENT_CLOSED' });
  assert.equal(orders.tryNext(), undefined);
  await assert.rejects(orders.next(), ClientClosedError);
  await assert.rejects(client.sequence('other').next(), ClientClosedError);
  assert.equal(client.sequence('orders'), orders, 'sequences are cached per tag');
});
