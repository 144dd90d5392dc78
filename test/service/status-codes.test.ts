// Issue 19 §16: path traversal under /docs/static/… answered 403 with IDF_BAD_REQUEST: every
// 4xx of Fastify or a plugin mapped to IDF_BAD_REQUEST. Now a status keeps its meaning
// (403 IDF_FORBIDDEN, 404 IDF_NOT_FOUND, 401 IDF_UNAUTHORIZED). The path is sent as raw
// bytes: inject() and fetch normalise the dot segments away.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeFailure } from '../../packages/server/src/service/http/errors.js';
import { assertShape, listeningService, rawExchange } from '../helpers/raw-http.js';

const service = listeningService();

test('path traversal under /docs/static is a 403 IDF_FORBIDDEN', async () => {
  for (const path of [
    '/docs/static/../../package.json',
    '/docs/static/%2e%2e/%2e%2e/package.json',
  ]) {
    const a = await rawExchange(
      service().port,
      `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    assertShape(a, 403, ['IDF_FORBIDDEN'], path);
  }
});

test("a framework error's status decides its code", () => {
  const cases: [number, string][] = [
    [400, 'IDF_BAD_REQUEST'],
    [401, 'IDF_UNAUTHORIZED'],
    [403, 'IDF_FORBIDDEN'],
    [404, 'IDF_NOT_FOUND'],
    [408, 'IDF_REQUEST_TIMEOUT'],
    [413, 'IDF_BAD_REQUEST'],
    [415, 'IDF_BAD_REQUEST'],
    [429, 'IDF_RATE_LIMITED'],
  ];
  for (const [statusCode, code] of cases) {
    const f = describeFailure(Object.assign(new Error('x'), { statusCode }));
    assert.deepEqual([f.status, f.code], [statusCode, code], String(statusCode));
  }
});
