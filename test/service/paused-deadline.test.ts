// Issue 19, found by the cluster fault test after §15 shortened the service's sequence wait to
// 1.5 s: a node SIGSTOPped while a block was being fetched answered its first sequence request
// after SIGCONT with 503 IDF_STORE_UNAVAILABLE, though the store had answered during the pause.
// On waking, the wait's timer and the store's answer are due together, and Node runs timers
// before it reads sockets: the deadline won against an answer already received.
//
// A pause is reproduced without signals: the event loop is blocked past the deadline while a
// real server in another process answers, so its answer is in the socket when the loop turns.
// The deadline is now decided after the loop has read its sockets.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { SegmentBuffer, type SequenceSource } from '../../packages/idforge/src/sequences/index.js';
import {
  SEQUENCE_WAIT_MS,
  SequenceRegistry,
} from '../../packages/server/src/service/domain/sequences.js';
import { stallLoop } from '../helpers/wait.js';

// The store stand-in: a process of its own that answers every byte at once.
const server = spawn(
  process.execPath,
  [
    '-e',
    "const s = require('net').createServer((c) => c.on('data', (d) => c.write(d)));" +
      "s.listen(0, '127.0.0.1', () => console.log(s.address().port));",
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
let socket: Socket;
let next = 1n;

before(async () => {
  const [line] = (await once(server.stdout!, 'data')) as [Buffer];
  socket = connect(Number(String(line).trim()), '127.0.0.1');
  await once(socket, 'connect');
});
after(() => {
  socket?.destroy();
  server.kill();
});

/** A block of `size` numbers, handed out once the other process has answered. */
async function block(size: number): Promise<{ first: bigint; last: bigint }> {
  socket.write('?');
  await once(socket, 'data');
  const first = next;
  next += BigInt(size);
  return { first, last: next - 1n };
}

/**
 * Resolves inside a socket callback of the event loop: the phase a busy node is in when it is
 * paused. The loop then turns to its timers before it reads sockets again, which is the order
 * that made the deadline win (a test body started elsewhere may read the socket first).
 */
async function inSocketCallback(): Promise<void> {
  socket.write('!');
  await once(socket, 'data');
}

/** The service's registry over a source whose `take` is `take` (no segment store). */
function registryOver(take: SequenceSource['take']): SequenceRegistry {
  const source: SequenceSource = {
    backend: 'stand-in',
    address: 'a process of the test',
    segments: null,
    open: () => Promise.reject(new Error('not used')),
    take,
    probe: async () => undefined,
    close: async () => undefined,
  };
  return new SequenceRegistry(source, () => undefined);
}

test('a buffer waiting on a fetch: a pause past its deadline, the answer in the socket, served', async () => {
  const buffer = new SegmentBuffer({ tag: 't', minStep: 10, source: block, fetchTimeoutMs: 100 });
  try {
    await inSocketCallback();
    const first = next;
    const p = buffer.next(); // both buffers empty: the request waits for the fetch it starts
    stallLoop(300);
    assert.equal(await p, first, 'the number from the answer that arrived during the pause');
  } finally {
    buffer.close();
  }
});

test('the service taking a block for a client: a pause past its wait, the answer in the socket, served', async () => {
  const registry = registryOver(async (tag, size) => ({ tag, ...(await block(size ?? 10)) }));
  await inSocketCallback();
  const p = registry.take('t', 10);
  stallLoop(SEQUENCE_WAIT_MS + 200);
  const b = await p;
  assert.equal(b.last - b.first + 1n, 10n, 'the block answered during the pause');
});

// Found later by the cluster fault test (a node SIGSTOPped past its TTL refused a client's block
// with "no answer within 1500 ms" after SIGCONT): deciding after one read of the sockets is not
// enough when the answer takes several round trips (a transaction: BEGIN, UPDATE, COMMIT; a new
// pool connection). The wait now counts only the time the process ran (RunningDeadline).

/** A block of `size` numbers after `trips` round trips to the other process, one at a time. */
async function blockIn(trips: number, size: number): Promise<{ first: bigint; last: bigint }> {
  for (let i = 1; i < trips; i++) {
    socket.write('?');
    await once(socket, 'data');
  }
  return block(size);
}

test('a buffer waiting on a fetch of 4 round trips: paused past its deadline, served', async () => {
  const buffer = new SegmentBuffer({
    tag: 't',
    minStep: 10,
    source: (size) => blockIn(4, size),
    fetchTimeoutMs: 100,
  });
  try {
    await inSocketCallback();
    const first = next;
    const p = buffer.next();
    stallLoop(300);
    assert.equal(await p, first, 'the block whose round trips went on after the pause');
  } finally {
    buffer.close();
  }
});

test('the service taking a block of 4 round trips for a client: paused past its wait, served', async () => {
  const registry = registryOver(async (tag, size) => ({ tag, ...(await blockIn(4, size ?? 10)) }));
  await inSocketCallback();
  const p = registry.take('t', 10);
  stallLoop(SEQUENCE_WAIT_MS + 200);
  const b = await p;
  assert.equal(b.last - b.first + 1n, 10n, 'the block whose round trips went on after the pause');
});

test('a store that never answers still fails the wait, a pause or not', async () => {
  const registry = registryOver(() => new Promise(() => undefined));
  const started = performance.now();
  const p = registry.take('t', 10);
  stallLoop(SEQUENCE_WAIT_MS + 200);
  await assert.rejects(p, /no answer within 1500 ms/);
  const waited = performance.now() - started;
  // The pause counts as one slice: the process then runs the rest of the wait.
  assert.ok(waited >= SEQUENCE_WAIT_MS + 200, `failed after ${waited} ms`);
});
