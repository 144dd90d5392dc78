// Issue 19 §8: no timeout for a slow request body. 20 connections trickling a body at 1 byte/s
// were still open after 130 s: Fastify turns Node's requestTimeout off (0), and Node checks
// its timeouts only every connectionsCheckingInterval (30 s). Now requestTimeoutMs bounds the
// whole request, headers and body, and is checked often enough to hold close to its value.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { assertShape, parseAnswer } from '../helpers/raw-http.js';
import { openTestService } from '../helpers/service.js';

const TIMEOUT_MS = 600;
const SLACK_MS = 1500;

/** Opens a connection, sends `head`, then one byte of `trickle` a second until the server closes. */
function trickle(
  port: number,
  head: string,
  trickle: string,
): Promise<{ ms: number; raw: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect({ host: '127.0.0.1', port });
    let raw = '';
    let i = 0;
    const drip = setInterval(() => {
      if (i < trickle.length) socket.write(trickle[i++] as string);
    }, 1000);
    const deadline = setTimeout(() => {
      clearInterval(drip);
      socket.destroy();
      reject(new Error(`still open ${TIMEOUT_MS + SLACK_MS} ms after the first byte`));
    }, TIMEOUT_MS + SLACK_MS);
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      raw += d;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(drip);
      clearTimeout(deadline);
      resolve({ ms: Date.now() - started, raw });
    });
    socket.write(head);
  });
}

test('a body trickled at 1 byte/s is cut at requestTimeoutMs with a 408', async () => {
  const s = await openTestService({ requestTimeoutMs: TIMEOUT_MS });
  try {
    await s.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = s.app.server.address() as { port: number };
    const body = '{"slow":"body"}';
    const r = await trickle(
      port,
      `POST /v1/sequences/slow/segments HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    );
    assert.ok(r.ms >= TIMEOUT_MS - 50, `closed after ${r.ms} ms, before the timeout`);
    assertShape(parseAnswer(r.raw), 408, ['IDF_REQUEST_TIMEOUT'], 'slow body');
  } finally {
    await s.close();
  }
});

test('headers trickled at 1 byte/s are cut at requestTimeoutMs with a 408', async () => {
  const s = await openTestService({ requestTimeoutMs: TIMEOUT_MS });
  try {
    await s.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = s.app.server.address() as { port: number };
    const r = await trickle(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', 'X-Slow: loris\r\n\r\n');
    assertShape(parseAnswer(r.raw), 408, ['IDF_REQUEST_TIMEOUT'], 'slow headers');
  } finally {
    await s.close();
  }
});

test('the default configuration bounds a request', async () => {
  const s = await openTestService();
  try {
    assert.ok(s.app.server.requestTimeout > 0, `requestTimeout ${s.app.server.requestTimeout}`);
    assert.ok(s.app.server.headersTimeout <= s.app.server.requestTimeout, 'headers within it');
  } finally {
    await s.close();
  }
});
