// test-runner: heavy (server processes under full load; scripts/run-tests.mjs)
// Issue 32 §11: a client that never reads exhausted the server's memory. 250 pipelined
// `GET /v1/ids/snowflake?count=10000` on a connection, never read, kept ~56 MB on the server
// (every answer built at once and held until its turn); 12 such connections took a server
// under --max-old-space-size=192 down at the 7th. Now (src/service/http/backpressure.ts) a request
// pipelined behind an unsent answer waits, unparsed work and all, until that answer has gone
// to the kernel, and the socket is not read meanwhile; a connection whose answers stay unread
// for writeTimeoutMs is closed.
//
// Here a real `idforge serve` under --max-old-space-size=256 takes 12 such connections, half
// on the fast lane's path and half on Fastify's, while another client is served after each.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { type ServiceProc, spawnService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const t = tempDir('idforge-backpressure-');
after(() => t.remove());

const LANE = '/v1/ids/snowflake?count=10000';
// `count` with another parameter is not the lane's: Fastify's route answers it.
const ROUTE = '/v1/ids/snowflake?count=10000&layout=default';
const pipelined = (path: string, n: number) =>
  `GET ${path} HTTP/1.1\r\nHost: idforge\r\n\r\n`.repeat(n);

/** A connection that sends `requests` and never reads (its reading paused from the start). */
function nonReader(url: URL, requests: string): Socket {
  const s = connect(Number(url.port), url.hostname);
  s.pause();
  s.on('error', () => undefined);
  s.write(requests);
  return s;
}

/** The server's metrics: heap in use and Snowflake IDs issued so far. */
async function gauges(url: URL): Promise<{ heapMb: number; issued: number }> {
  const text = await (await fetch(new URL('/metrics', url))).text();
  const heap = /^nodejs_heap_size_used_bytes (\S+)$/m.exec(text)?.[1];
  const issued = /^idforge_ids_issued_total\{scheme="snowflake"\} (\S+)$/m.exec(text)?.[1];
  return { heapMb: Number(heap) / 2 ** 20, issued: Number(issued ?? 0) };
}

/** Polls the metrics until more than `n` Snowflake IDs were issued (bounded); the new count. */
function issuedAbove(url: URL, n: number, what: string): Promise<number> {
  return waitFor(
    async () => {
      const { issued } = await gauges(url);
      return issued > n && issued;
    },
    what,
    30_000,
  );
}

const rssMb = (p: ServiceProc) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p.child.pid}/status`, 'utf8'))?.[1]) / 1024;

/**
 * The event-loop guard is off: on a busy machine its 503s (short answers, all fitting in the
 * kernel's buffers) left nothing pending to stall on, and refused the other client.
 */
function serve(name: string, args: string[] = []): ServiceProc {
  const env = { NODE_OPTIONS: '--max-old-space-size=256' };
  const store = `sqlite:${join(t.dir, `${name}.db`)}`;
  return spawnService(['--store', store, '--max-event-loop-delay-ms', '0', ...args], env, t.dir);
}

test('12 connections that never read 250 pipelined answers each: a 256 MB heap stays bounded, others served throughout', async () => {
  // The stall timeout out of the way: this is about memory while the connections hold.
  const p = serve('attack', ['--write-timeout-ms', '600000']);
  const attackers: Socket[] = [];
  try {
    const url = new URL(await p.ready);
    const startRss = rssMb(p);
    let { issued } = await gauges(url);
    for (let i = 0; i < 12; i++) {
      attackers.push(nonReader(url, pipelined(i % 2 === 0 ? LANE : ROUTE, 250)));
      // The server has taken up this connection's requests (answered the first ones at least).
      issued = await issuedAbove(url, issued, `answers on attacking connection ${i + 1}`);
      const other = await fetch(new URL('/v1/ids/uuidv7?count=3', url));
      assert.equal(other.status, 200, `another client served beside ${i + 1} attackers`);
      await other.text();
      const { heapMb } = await gauges(url);
      assert.ok(heapMb < 100, `heap ${heapMb.toFixed(0)} MB with ${i + 1} non-reading connections`);
    }
    assert.equal(p.child.exitCode, null, 'the server is alive');
    const grown = rssMb(p) - startRss;
    assert.ok(grown < 150, `RSS grew ${grown.toFixed(0)} MB under 12 non-reading connections`);
  } finally {
    for (const s of attackers) s.destroy();
    p.child.kill('SIGKILL');
    await p.exited;
  }
});

test('answers left unread for writeTimeoutMs: the connection is closed and logged; others served', async () => {
  const p = serve('stall', ['--write-timeout-ms', '300']);
  try {
    const url = new URL(await p.ready);
    // More than the kernel's buffers take on both ends, so some of it stays pending here.
    const s = nonReader(url, pipelined(LANE, 100));
    const cut = () => p.logs.find((l) => /^closed a connection: /.test(String(l.msg)));
    await waitFor(() => cut() !== undefined, 'the server to close the connection');
    const line = cut();
    // The client, reading at last, finds the connection closed.
    let closed = false;
    s.on('close', () => {
      closed = true;
    });
    s.resume();
    await waitFor(() => closed, 'the client to see its connection closed');
    assert.match(String(line?.msg), /not read for writeTimeoutMs \(300 ms\)/);
    assert.ok(Number(line?.pendingBytes) > 0, 'the line says how much was left unread');
    assert.equal((await fetch(new URL('/v1/ids/uuidv7', url))).status, 200);
  } finally {
    p.child.kill('SIGKILL');
    await p.exited;
  }
});

/** Reads `n` HTTP/1.1 answers (Content-Length bodies) off `s`: each status and body, in order. */
function answers(s: Socket, n: number): Promise<{ status: number; body: string }[]> {
  return new Promise((resolve, reject) => {
    const out: { status: number; body: string }[] = [];
    let buf = Buffer.alloc(0);
    s.on('error', reject);
    s.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (let end = buf.indexOf('\r\n\r\n'); end >= 0; end = buf.indexOf('\r\n\r\n')) {
        const head = buf.subarray(0, end).toString('latin1');
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1]);
        if (buf.length < end + 4 + length) return;
        const body = buf.subarray(end + 4, end + 4 + length).toString('utf8');
        out.push({ status: Number(head.slice(9, 12)), body });
        buf = buf.subarray(end + 4 + length);
        if (out.length === n) resolve(out);
      }
    });
  });
}

test('a client that reads gets every pipelined answer, in order, from the lane and the routes alike', async () => {
  const p = serve('pipeline');
  try {
    const url = new URL(await p.ready);
    const paths = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0 ? '/v1/ids/snowflake?count=2' : '/v1/ids/snowflake?count=2&layout=default',
    );
    const s = connect(Number(url.port), url.hostname);
    const got = answers(s, paths.length);
    s.write(paths.map((path) => pipelined(path, 1)).join(''));
    const ids = (await got).flatMap((a) => {
      assert.equal(a.status, 200, a.body);
      return (JSON.parse(a.body) as { ids: string[] }).ids.map(BigInt);
    });
    s.destroy();
    assert.equal(ids.length, 80);
    // Snowflake IDs grow with each answer: answered in the order asked.
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, `answer order at ${i}`);
  } finally {
    p.child.kill('SIGKILL');
    await p.exited;
  }
});
