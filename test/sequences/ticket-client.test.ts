// TicketClient's round robin, failover, back-off and probing over in-memory ticket servers with
// an injected clock; the real servers (two MariaDB processes, one SIGKILLed) are in
// test/faults/tickets.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';
import type { TicketServer } from '../../packages/idforge/src/sequences/ports.js';
import {
  TicketClient,
  type TicketServerEvent,
} from '../../packages/idforge/src/sequences/ticket-client.js';
import { early } from '../helpers/wait.js';

/** Server `offset` of `increment`; `down` fails, `held` keeps answers until released. */
class FakeServer implements TicketServer {
  readonly backend = 'fake';
  readonly address: string;
  down = false;
  hold = false;
  calls = 0;
  readonly held: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  #next: bigint;
  readonly #increment: bigint;

  constructor(offset: number, increment: number) {
    this.address = `fake://${offset}`;
    this.#next = BigInt(offset);
    this.#increment = BigInt(increment);
  }

  async setup(): Promise<void> {}
  async close(): Promise<void> {}

  async next(): Promise<bigint> {
    this.calls++;
    if (this.hold) {
      await new Promise<void>((resolve, reject) => this.held.push({ resolve, reject }));
    }
    if (this.down) throw new StoreUnavailableError('fake', this.address, 'next', new Error('down'));
    const t = this.#next;
    this.#next += this.#increment;
    return t;
  }
}

function setup(n: number, options: { retryAfterMs?: number; maxRetryAfterMs?: number } = {}) {
  const servers = Array.from({ length: n }, (_, i) => new FakeServer(i + 1, n));
  const clock = { t: 0 };
  const events: TicketServerEvent[] = [];
  const client = new TicketClient(servers, 'photos', {
    retryAfterMs: 100,
    maxRetryAfterMs: 1000,
    ...options,
    now: () => clock.t,
    onStateChange: (e) => events.push(e),
  });
  return { servers, clock, events, client };
}

async function take(client: TicketClient, n: number): Promise<bigint[]> {
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) out.push(await client.next());
  return out;
}

describe('TicketClient', () => {
  test('round robin: two servers with increment 2 give the odd/even split in turn', async () => {
    const { client } = setup(2);
    assert.deepEqual(await take(client, 6), [1n, 2n, 3n, 4n, 5n, 6n]);
    assert.deepEqual(
      client.stats().map((s) => [s.address, s.up, s.tickets, s.failures, s.failovers]),
      [
        ['fake://1', true, 3, 0, 0],
        ['fake://2', true, 3, 0, 0],
      ],
    );
  });

  test('a server that fails is skipped at once: every request still gets a ticket', async () => {
    const { servers, client, events } = setup(2);
    servers[0]!.down = true;
    assert.deepEqual(await take(client, 5), [2n, 4n, 6n, 8n, 10n]);
    assert.equal(servers[0]!.calls, 1, 'tried once, then left alone during its back-off');
    const [a, b] = client.stats();
    assert.deepEqual([a!.up, a!.failures, a!.failovers, a!.tickets], [false, 1, 1, 0]);
    assert.equal(b!.tickets, 5);
    assert.deepEqual(
      events.map((e) => [e.address, e.state]),
      [['fake://1', 'down']],
    );
  });

  test('a down server is probed after its back-off, doubled per failed probe, and brought back', async () => {
    const { servers, client, clock, events } = setup(2);
    servers[0]!.down = true;
    await take(client, 2); // down at t=0, retry at 100
    clock.t = 99;
    await take(client, 4);
    assert.equal(servers[0]!.calls, 1, 'not before 100 ms');
    clock.t = 100;
    await take(client, 1);
    assert.equal(servers[0]!.calls, 2, 'probed once at 100 ms; failed: next probe at 300');
    clock.t = 299;
    await take(client, 4);
    assert.equal(servers[0]!.calls, 2);
    servers[0]!.down = false;
    clock.t = 300;
    const after = await take(client, 4);
    assert.equal(servers[0]!.calls, 4, 'probed at 300 ms, answered, back in the rotation');
    assert.ok(after.includes(1n), 'the recovered server issues its own residue again');
    assert.deepEqual(
      events.map((e) => e.state),
      ['down', 'up'],
    );
    assert.equal(client.stats()[0]!.up, true);
  });

  test('the back-off stops growing at maxRetryAfterMs', async () => {
    const { servers, client, clock } = setup(2, { retryAfterMs: 100, maxRetryAfterMs: 250 });
    servers[0]!.down = true;
    await take(client, 1); // retry at 100
    const probesAt: number[] = [];
    for (clock.t = 0; clock.t <= 2000; clock.t += 10) {
      const before = servers[0]!.calls;
      await take(client, 2);
      if (servers[0]!.calls > before) probesAt.push(clock.t);
    }
    // 100, then +200, then +250 each time (capped).
    assert.deepEqual(probesAt.slice(0, 5), [100, 300, 550, 800, 1050]);
  });

  test('requests in flight when a server dies fail over without pushing its back-off up', async () => {
    const { servers, client, clock } = setup(2);
    servers[0]!.hold = true;
    // Each observed from creation: one failing during the turn below must not go unhandled.
    const pending = Array.from({ length: 10 }, () => early(() => client.next()));
    await new Promise((r) => setImmediate(r));
    servers[0]!.down = true;
    servers[0]!.hold = false;
    for (const h of servers[0]!.held.splice(0)) h.resolve();
    const got = await Promise.all(pending);
    assert.equal(new Set(got).size, 10);
    assert.equal(client.stats()[0]!.failures, 5);
    servers[0]!.down = false;
    clock.t = 100;
    await take(client, 2);
    assert.equal(client.stats()[0]!.up, true, 'probed at the first back-off (100 ms), not later');
  });

  test('one probe at a time: while a probe hangs, other requests skip that server', async () => {
    const { servers, client, clock } = setup(2);
    servers[0]!.down = true;
    await take(client, 2); // down at t=0; the turn is server 1's again
    clock.t = 100;
    servers[0]!.hold = true;
    let probeSettled = false;
    // Starts at server 1 (its turn), which hangs. Observed from creation.
    const probe = early(() =>
      client.next().finally(() => {
        probeSettled = true;
      }),
    );
    await new Promise((r) => setImmediate(r));
    assert.equal(probeSettled, false, 'the probe to server 1 is pending');
    const others = await take(client, 6);
    assert.ok(others.every((t) => t % 2n === 0n));
    assert.equal(servers[0]!.calls, 2, 'no second probe while the first is pending');
    servers[0]!.down = false;
    for (const h of servers[0]!.held.splice(0)) h.resolve();
    assert.equal((await probe) % 2n, 1n);
  });

  test('all servers down: StoreUnavailableError naming each; at once while all are in back-off', async () => {
    const { servers, client } = setup(2);
    for (const s of servers) s.down = true;
    await assert.rejects(client.next(), (e: unknown) => {
      assert.ok(e instanceof StoreUnavailableError);
      assert.equal(e.backend, 'fake');
      assert.equal(e.address, 'fake://1, fake://2');
      assert.ok(e.cause instanceof AggregateError);
      assert.equal(e.cause.errors.length, 2);
      // Each server by its backend and reason; the client's back-off timing is not the
      // caller's business (issue 9: a CLI user was told "next probe in 500 ms").
      const expected =
        'no ticket server of "photos" answered (all 2): fake at fake://1: down; ' +
        'fake at fake://2: down. Check that the servers are running and reachable.';
      assert.equal(e.message, expected);
      assert.equal(e.cause.message, expected);
      return true;
    });
    const calls = servers.map((s) => s.calls);
    await assert.rejects(client.next(), StoreUnavailableError);
    assert.deepEqual(
      servers.map((s) => s.calls),
      calls,
      'fails fast: nobody is due for a probe',
    );
  });

  test('other errors are passed on unchanged and never fail over', async () => {
    const { servers, client } = setup(2);
    servers[0]!.next = async () => {
      throw new RangeError('bad name');
    };
    await assert.rejects(client.next(), RangeError);
    assert.equal(servers[1]!.calls, 0);
    assert.equal(client.stats()[0]!.up, true);
  });

  test('tickets stay unique over three servers going down and up at random', async () => {
    const { servers, client, clock } = setup(3, { retryAfterMs: 5, maxRetryAfterMs: 20 });
    let seed = 7;
    const rand = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const seen = new Set<bigint>();
    const last = new Map<bigint, bigint>();
    let served = 0;
    for (let i = 0; i < 3000; i++) {
      clock.t += 1;
      if (rand() < 0.02) {
        const s = servers[Math.floor(rand() * 3)]!;
        s.down = !s.down;
      }
      if (servers.every((s) => s.down)) servers[0]!.down = false;
      try {
        const t = await client.next();
        assert.ok(!seen.has(t), `duplicate ${t}`);
        seen.add(t);
        const residue = t % 3n;
        assert.ok((last.get(residue) ?? 0n) < t, 'each server increasing');
        last.set(residue, t);
        served++;
      } catch (e) {
        assert.ok(e instanceof StoreUnavailableError);
      }
    }
    assert.ok(served > 2500, `served ${served}`);
    const stats = client.stats();
    assert.equal(
      stats.reduce((n, s) => n + s.tickets, 0),
      served,
    );
  });

  test('nextBatch: count tickets, unique; 0 is empty; a failure stops the batch', async () => {
    const { servers, client } = setup(2);
    assert.deepEqual(await client.nextBatch(0), []);
    const batch = await client.nextBatch(100);
    assert.equal(new Set(batch).size, 100);
    for (const s of servers) s.down = true;
    const before = servers.map((s) => s.calls);
    await assert.rejects(client.nextBatch(1000), StoreUnavailableError);
    const tried = servers.reduce((n, s, i) => n + s.calls - before[i]!, 0);
    assert.ok(tried <= 16, `stopped after the first failures (${tried} calls)`);
    for (const bad of [-1, 1.5, Number.NaN]) {
      await assert.rejects(client.nextBatch(bad), RangeError);
    }
  });

  test('construction: no servers or bad options are RangeErrors', () => {
    assert.throws(() => new TicketClient([], 'x'), RangeError);
    const one = [new FakeServer(1, 1)];
    assert.throws(() => new TicketClient(one, 'x', { retryAfterMs: 0 }), RangeError);
    assert.throws(() => new TicketClient(one, 'x', { maxRetryAfterMs: -1 }), RangeError);
    assert.throws(() => new TicketClient(one, 'x', { batchConcurrency: 1.5 }), RangeError);
  });
});
