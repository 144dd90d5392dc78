// The TicketServer contract, run by ./ticket-server.test.ts on every backend the registry lists
// for tickets, on its real server. Several "servers" of one sequence are simulated by fresh
// locations (schemas, table prefixes) of the backend's fixture on the one shared server
// (test/helpers/backend-fixtures.ts); the fault suite (test/faults/tickets.test.ts) runs two
// real MariaDB processes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  StoreUnavailableError,
  setupTicketServers,
  UnknownTagError,
} from '../../packages/idforge/src/sequences/index.js';
import type { PlannableTicketServer } from '../../packages/idforge/src/sequences/ports.js';
import type { Backend } from '../../packages/stores/src/backend.js';
import type { BackendFixture } from '../helpers/backend-fixtures.js';
import { openRetrying } from '../helpers/store-errors.js';
import { stallableProxy } from '../helpers/tcp.js';

const serial = (n: number, from: bigint, inc: bigint) =>
  Array.from({ length: n }, (_, i) => from + BigInt(i) * inc);

export function ticketServerContract(backend: Backend, fx: BackendFixture): void {
  const { skip } = fx;
  const fresh = () => fx.freshUrl('tk');
  /** Opens the ticket server at `url` through the registry; closed when the test ends. */
  const open = async (url = fresh()) => fx.keep(await backend.open.tickets!(url, {}));
  const take = async (s: PlannableTicketServer, name: string, n: number) => {
    const out: bigint[] = [];
    for (let i = 0; i < n; i++) out.push(await s.next(name));
    return out;
  };

  describe(`TicketServer contract (${backend.name})`, { skip }, () => {
    test('tickets follow offset, offset + increment, ...; high() is the last one', async () => {
      const s = await open();
      assert.equal(await s.high('photos'), 0n, 'nothing before setup');
      await s.setup('photos', 3, 2);
      assert.deepEqual(await take(s, 'photos', 5), serial(5, 2n, 3n));
      assert.equal(await s.high('photos'), 14n);
    });

    test('setup is idempotent: running it again never restarts the series', async () => {
      const url = fresh();
      const s = await open(url);
      await s.setup('orders', 2, 1);
      assert.deepEqual(await take(s, 'orders', 3), [1n, 3n, 5n]);
      await s.setup('orders', 2, 1, 10_000n);
      const other = await open(url);
      await other.setup('orders', 2, 1);
      assert.deepEqual(
        await take(other, 'orders', 2),
        [7n, 9n],
        'floor ignored: settings unchanged',
      );
    });

    test('sequences with different settings on one server stay apart', async () => {
      const s = await open();
      await s.setup('a', 2, 1);
      await s.setup('b', 5, 5);
      const a: bigint[] = [];
      const b: bigint[] = [];
      // Interleaved and concurrent: pooled connections switch between both settings.
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          if (i % 2 === 0) a.push(await s.next('a'));
          else b.push(await s.next('b'));
        }),
      );
      assert.deepEqual(
        [...a].sort((x, y) => Number(x - y)),
        serial(20, 1n, 2n),
      );
      assert.deepEqual(
        [...b].sort((x, y) => Number(x - y)),
        serial(20, 5n, 5n),
      );
    });

    test('many connections at once: every ticket unique, in its residue, and each caller increasing', async () => {
      const url = fresh();
      const clients = await Promise.all([open(url), open(url), open(url), open(url)]);
      await clients[0]!.setup('photos', 4, 3);
      const perCaller = await Promise.all(
        clients.flatMap((c) => Array.from({ length: 5 }, () => take(c, 'photos', 50))),
      );
      const all = perCaller.flat();
      assert.equal(new Set(all).size, 1000);
      assert.ok(all.every((t) => t % 4n === 3n));
      for (const seq of perCaller) {
        for (let i = 1; i < seq.length; i++) assert.ok(seq[i]! > seq[i - 1]!, 'caller increasing');
      }
    });

    test('N servers set up by setupTicketServers split the space; adding one re-plans above all', async () => {
      const servers = [await open(), await open()];
      assert.equal(await setupTicketServers(servers, 'users'), 0n);
      const first = (await Promise.all(servers.map((s) => take(s, 'users', 5)))).flat();
      assert.deepEqual(
        first.sort((x, y) => Number(x - y)),
        serial(10, 1n, 1n),
        '2 servers: odd and even',
      );
      await take(servers[0]!, 'users', 20); // server 1 runs ahead, as servers drift
      servers.push(await open());
      const floor = await setupTicketServers(servers, 'users');
      assert.equal(floor, 49n, 'the largest ticket issued by any server');
      const again = await Promise.all(servers.map((s) => take(s, 'users', 5)));
      again.forEach((got, i) => {
        assert.ok(
          got.every((t) => t > floor && t % 3n === BigInt((i + 1) % 3)),
          `server ${i + 1}`,
        );
      });
      const all = [...first, ...again.flat()];
      assert.equal(new Set(all).size, all.length, 'no ticket reissued by the re-plan');
    });

    test('a wiped server set up again starts above the floor of the others', async () => {
      const s = await open();
      await s.setup('wiped', 2, 2, 1_000n);
      assert.deepEqual(await take(s, 'wiped', 2), [1002n, 1004n]);
    });

    test('a floor equal to the offset is already issued: the series starts one step above', async () => {
      // The boundary of "the first ticket above the floor": the offset itself is the floor.
      const s = await open();
      await s.setup('atoffset', 3, 2, 2n);
      assert.deepEqual(await take(s, 'atoffset', 2), [5n, 8n]);
    });

    test('a sequence never set up rejects with UnknownTagError naming the server and the fix', async () => {
      const s = await open();
      await assert.rejects(s.next('missing'), (e: unknown) => {
        assert.ok(e instanceof UnknownTagError, String(e));
        assert.equal(e.code, 'IDF_UNKNOWN_TAG');
        assert.equal(e.backend, backend.name);
        assert.equal(e.tag, 'missing');
        assert.equal(e.ticketServer, s.address);
        assert.match(e.message, /idforge ticket setup missing --servers/);
        return true;
      });
      assert.equal(await s.high('missing'), 0n);
    });

    test('bad names and plans are RangeErrors, before any I/O', async () => {
      const s = await open();
      for (const name of ['', 'Photos', 'a-b', 'a b', '1a', 'x'.repeat(49), "a'"]) {
        await assert.rejects(s.next(name), RangeError, name);
        await assert.rejects(s.setup(name, 1, 1), RangeError, name);
      }
      for (const [inc, off] of [
        [0, 1],
        [2, 3],
        [2, 0],
        [1.5, 1],
        [65_536, 1],
      ] as const) {
        await assert.rejects(s.setup('ok', inc, off), RangeError, `${inc}/${off}`);
      }
    });

    test('an absent server is StoreUnavailableError at open, within the timeout', async () => {
      const started = Date.now();
      await assert.rejects(
        backend.open.tickets!(fx.freshUrl('tk', { port: 1 }), { connectTimeoutMs: 500 }),
        (e: unknown) => e instanceof StoreUnavailableError && e.operation === 'connect',
      );
      assert.ok(Date.now() - started < 2000);
    });

    test('a server that stops answering is StoreUnavailableError within connect + query timeouts', async (t) => {
      assert.ok(fx.server !== undefined, `${backend.name} serves tickets from a server`);
      const proxy = await stallableProxy(fx.server.host, fx.server.port);
      t.after(() => proxy.close());
      const url = fx.freshUrl('tk', { port: proxy.port });
      const s = await openRetrying(() => backend.open.tickets!(url, { connectTimeoutMs: 400 }));
      try {
        await s.setup('stall', 1, 1);
        assert.equal(await s.next('stall'), 1n);
        proxy.stall();
        const started = Date.now();
        await assert.rejects(s.next('stall'), StoreUnavailableError);
        const waited = Date.now() - started;
        assert.ok(waited < 800 + 500, `gave up after ${waited} ms`);
      } finally {
        await s.close();
      }
    });
  });
}
