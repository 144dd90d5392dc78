// Raw HTTP over node:net for the service tests: bytes a real client (or attacker) sends,
// which fetch and inject() would refuse or normalise, and the answer exactly as the server wrote it.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before } from 'node:test';
import { openTestService, type TestService } from '../helpers/service.js';

export interface RawAnswer {
  /** 0 when the server closed without answering. */
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Everything the server wrote before closing. */
  readonly raw: string;
}

/** Splits the first HTTP response out of what a server wrote. */
export function parseAnswer(raw: string): RawAnswer {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: '', raw };
  const [line, ...fields] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const f of fields) {
    const i = f.indexOf(':');
    headers[f.slice(0, i).trim().toLowerCase()] = f.slice(i + 1).trim();
  }
  const length = Number(headers['content-length'] ?? raw.length);
  const body = raw.slice(end + 4, end + 4 + length);
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(line ?? '')?.[1] ?? 0),
    headers,
    body,
    raw,
  };
}

/**
 * Sends `bytes` on a fresh connection and resolves with what the server wrote once it closes
 * the connection (or, with `untilAnswer`, once one whole answer arrived), at the latest after
 * `ms` (then rejects naming the request).
 */
export function rawExchange(
  port: number,
  bytes: string | Buffer,
  { ms = 5000, untilAnswer = false }: { ms?: number; untilAnswer?: boolean } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let got = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no close within ${ms} ms after ${JSON.stringify(String(bytes).slice(0, 60))}`),
      );
    }, ms);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(got));
    };
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      got += d;
      if (untilAnswer) {
        const a = parseAnswer(got);
        if (a.status !== 0 && a.body.length >= Number(a.headers['content-length'] ?? 0)) finish();
      }
    });
    socket.on('error', () => undefined); // a reset after the answer is the server closing
    socket.on('close', finish);
    socket.write(bytes);
  });
}

/** Asserts `a` is a documented error answer with `status` and one of `codes`; returns it. */
export function assertShape(
  a: RawAnswer,
  status: number,
  codes: readonly string[],
  what: string,
): { code: string; message: string } {
  assert.equal(a.status, status, `${what}: status (got ${JSON.stringify(a.raw.slice(0, 300))})`);
  assert.match(a.headers['content-type'] ?? '', /^application\/json/, `${what}: content type`);
  let parsed: { error?: { code?: unknown; message?: unknown } };
  try {
    parsed = JSON.parse(a.body) as typeof parsed;
  } catch {
    assert.fail(`${what}: body is not JSON: ${JSON.stringify(a.body.slice(0, 200))}`);
  }
  const e = parsed.error;
  assert.ok(
    e !== undefined && typeof e.code === 'string' && typeof e.message === 'string',
    `${what}: {"error":{"code","message"}}, got ${a.body.slice(0, 200)}`,
  );
  assert.deepEqual(Object.keys(parsed), ['error'], `${what}: nothing beside "error"`);
  assert.ok(codes.includes(e.code as string), `${what}: code ${String(e.code)} in ${codes}`);
  return { code: e.code as string, message: e.message as string };
}

/**
 * A test service on a real socket for the whole file: opened before its tests, closed after.
 * `current()` gives the service and its port once opened.
 */
export function listeningService(
  settings: Record<string, unknown> = {},
): () => { s: TestService; port: number } {
  let s: TestService | undefined;
  let port = 0;
  before(async () => {
    s = await openTestService(settings);
    await s.app.listen({ host: '127.0.0.1', port: 0 });
    port = (s.app.server.address() as { port: number }).port;
  });
  after(() => s?.close());
  return () => {
    if (s === undefined) throw new Error('the service is opened before the tests');
    return { s, port };
  };
}
