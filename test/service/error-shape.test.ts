// Issue 19 §6: answers outside the documented shape {"error":{"code","message"}}. Fastify's
// and Node's own answers were seen under fuzzing: 400 "Client Error" (a bad request line or
// malformed header), 431, 414 FST_ERR_MAX_PARAM_LENGTH, 400 FST_ERR_BAD_URL echoing the raw
// URL, a 400 with an empty body (an HTTP/1.1 request without Host) and a 417 with none
// (an unknown Expect). Each is sent here on a real socket, as raw bytes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertShape, listeningService, rawExchange } from '../helpers/raw-http.js';

const service = listeningService();

const BAD = ['IDF_BAD_REQUEST'];

test('a request line that is not HTTP: 400 IDF_BAD_REQUEST', async () => {
  const a = await rawExchange(service().port, 'GARBAGE\r\n\r\n');
  assertShape(a, 400, BAD, 'bad request line');
});

test('a malformed header: 400 IDF_BAD_REQUEST', async () => {
  const a = await rawExchange(
    service().port,
    'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n',
  );
  assertShape(a, 400, BAD, 'malformed header');
});

test('headers over the limit: 431 IDF_BAD_REQUEST', async () => {
  const a = await rawExchange(
    service().port,
    `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  );
  assertShape(a, 431, BAD, 'header overflow');
});

test('a path parameter over the limit: 414 IDF_BAD_REQUEST, the path not echoed', async () => {
  const a = await rawExchange(
    service().port,
    `GET /v1/inspect/${'9'.repeat(5000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
  );
  const e = assertShape(a, 414, BAD, 'long parameter');
  assert.ok(e.message.length < 300, `message of ${e.message.length} characters`);
});

test('a URL that does not decode: 400 IDF_BAD_REQUEST, the URL not echoed', async () => {
  const a = await rawExchange(
    service().port,
    `GET /v1/sequences/%E0%A4%A${'x'.repeat(5000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
  );
  const e = assertShape(a, 400, BAD, 'bad URL');
  assert.ok(e.message.length < 300, `message of ${e.message.length} characters`);
});

test('HTTP/1.1 without a Host header: 400 IDF_BAD_REQUEST with a body', async () => {
  const a = await rawExchange(service().port, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
  assertShape(a, 400, BAD, 'no Host');
});

test('an Expect the server does not know: 417 IDF_BAD_REQUEST with a body', async () => {
  const a = await rawExchange(
    service().port,
    'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: tea\r\nConnection: close\r\n\r\n',
  );
  assertShape(a, 417, BAD, 'unknown Expect');
});
