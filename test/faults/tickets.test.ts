// Flickr's two ticket servers, for real: two MariaDB processes of our own (ports from
// the OS, started by scripts/services/mariadb.sh with their own data directories; the shared
// server on 3306 is never touched), set up with increment 2 and offsets 1 and 2, under load
// from one TicketClient. One is SIGKILLed mid-run, SIGSTOPped, and crashed repeatedly. Negative
// controls show each check able to fail: the crash test catches a server that is not durable,
// the duplicate check catches two servers set up with one offset, and the call-bound check
// catches a request to a frozen server made without the bound.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import {
  StoreUnavailableError,
  setupTicketServers,
} from '../../packages/idforge/src/sequences/index.js';
import { shortReason, TicketClient } from '../../packages/idforge/src/sequences/ticket-client.js';
import { MysqlTicketServer } from '../../packages/stores/src/mysql/ticket-server.js';
import { freePorts, freeze } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { waitFor } from '../helpers/wait.js';

// The shared server's presence says whether MariaDB is installed here at all.
const skip = await serviceSkip('mariadb', '127.0.0.1', 3306);
const PORTS = (await freePorts(2)) as [number, number];
const script = fileURLToPath(new URL('../../scripts/services/mariadb.sh', import.meta.url));
const run = promisify(execFile);
const service = (port: number, ...args: string[]) =>
  run('bash', [script, ...args, '--port', String(port)], { timeout: 240_000 });
const url = (port: number) => `mysql://root@127.0.0.1:${port}/test`;
/**
 * Bounds of every call: a request to a dead or frozen server gives up after 2 s. Wide enough
 * that a live server on a busy machine answers within them; the frozen-server test asserts
 * them with SLACK for the scheduling delay of a loaded machine.
 */
const TIMEOUTS = { connectTimeoutMs: 1000, queryTimeoutMs: 1000 };
const BOUND = TIMEOUTS.connectTimeoutMs + TIMEOUTS.queryTimeoutMs;
/** What a request may take past BOUND: the failover to the other server, and a busy machine. */
const SLACK = BOUND;

const servers: MysqlTicketServer[] = [];
const open = async (port: number) => {
  const s = await MysqlTicketServer.open(url(port), TIMEOUTS);
  servers.push(s);
  return s;
};

/**
 * Runs `workers` loops of `take` until `done()`; each acknowledged ticket is recorded. The
 * promise rejects with the first error `onError` rethrows (handled early: awaited later).
 * `inFlight()` settles once every request started so far has settled.
 */
function load(
  workers: number,
  take: () => Promise<bigint>,
  done: () => boolean,
  onTicket: (t: bigint, ms: number) => void,
  onError: (e: unknown) => void = (e) => {
    throw e;
  },
): Promise<void> & { inFlight(): Promise<void> } {
  const pending = new Set<Promise<bigint>>();
  const loop = async () => {
    while (!done()) {
      const started = performance.now();
      const request = take();
      pending.add(request);
      try {
        const t = await request;
        onTicket(t, performance.now() - started);
      } catch (e) {
        onError(e);
      } finally {
        pending.delete(request);
      }
    }
  };
  // The promise returned is handled from the start (a rejection before the caller awaits it
  // must not be an unhandled rejection); the caller's await still sees it.
  const all = Promise.all(Array.from({ length: workers }, loop)).then(() => {});
  all.catch(() => {});
  return Object.assign(all, {
    inFlight: () => Promise.allSettled([...pending]).then(() => {}),
  });
}

/** An onError for the crash loops: the server dying is expected, anything else is recorded. */
function expectUnavailable(unexpected: unknown[], onDead: () => void): (e: unknown) => void {
  return (e) => {
    if (!(e instanceof StoreUnavailableError)) unexpected.push(e);
    onDead();
  };
}

const max = (xs: Iterable<bigint>) => [...xs].reduce((a, b) => (a > b ? a : b), 0n);

describe('two ticket servers (MariaDB processes of our own)', { skip }, () => {
  before(async () => {
    for (const p of PORTS) await service(p, 'stop', '--kill', '--wipe');
    for (const p of PORTS) await service(p, 'start');
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    for (const p of PORTS) await service(p, 'stop', '--wipe').catch(() => {});
  });

  test('odd/even split under load; SIGKILL one mid-run: every request is served by the other; restarted, it is brought back', async (t) => {
    const [a, b] = [await open(PORTS[0]), await open(PORTS[1])];
    await setupTicketServers([a, b], 'photos');
    const t0 = performance.now();
    const events: string[] = [];
    const client = new TicketClient([a, b], 'photos', {
      retryAfterMs: 200,
      maxRetryAfterMs: 800,
      onStateChange: (e) =>
        events.push(
          `+${Math.round(performance.now() - t0)} ms ${e.address} ${e.state}` +
            (e.error ? ` (${shortReason(e.error)})` : ''),
        ),
    });
    let phase: 'before' | 'killing' | 'down' | 'restarted' = 'before';
    const acked = {
      before: [] as bigint[],
      killing: [] as bigint[], // while the kill runs: A's last answers may still arrive
      down: [] as bigint[],
      restarted: [] as bigint[],
    };
    let stop = false;
    const running = load(
      8,
      () => client.next(),
      () => stop,
      (ticket) => acked[phase].push(ticket),
    );

    await waitFor(() => acked.before.length >= 1000, '1,000 tickets before the kill');
    const killedAt = performance.now();
    phase = 'killing';
    await service(PORTS[0], 'stop', '--kill');
    // Every request in flight at the kill has settled: A's last answers are counted as 'killing'.
    await running.inFlight();
    phase = 'down';
    await waitFor(() => acked.down.length >= 500, '500 tickets while A is dead');
    // From here the server may answer at any moment (the start script returns only after it
    // does, and the client probes it meanwhile): its tickets count as after the restart.
    phase = 'restarted';
    await service(PORTS[0], 'start');
    const restartedAt = performance.now();
    await waitFor(
      () => acked.restarted.filter((x) => x % 2n === 1n).length >= 200,
      '200 odd tickets after the restart',
    ).catch(() => undefined); // asserted below, with the figures
    stop = true;
    await running; // rejects if any request failed: both servers down never happened

    const odd = (xs: bigint[]) => xs.filter((x) => x % 2n === 1n);
    const all = [...acked.before, ...acked.killing, ...acked.down, ...acked.restarted];
    assert.equal(new Set(all).size, all.length, '0 duplicates');
    const beforeOdd = odd(acked.before).length;
    const share = beforeOdd / acked.before.length;
    assert.ok(
      share > 0.3 && share < 0.7,
      `odd/even split before the kill: ${beforeOdd}/${acked.before.length}`,
    );
    assert.ok(acked.down.length > 100, 'the other server kept serving');
    assert.deepEqual(odd(acked.down), [], 'only even tickets while the odd server is dead');
    const back = odd(acked.restarted);
    assert.ok(back.length >= 200, 'the restarted server is back in the rotation');
    const lastOdd = max(odd([...acked.before, ...acked.killing]));
    assert.ok(
      back.every((x) => x > lastOdd),
      'no ticket the odd server acknowledged before the crash is issued again',
    );
    const [sa, sb] = client.stats();
    assert.equal(sa!.up, true);
    assert.ok(sa!.failures >= 1 && sa!.failovers >= 1);
    assert.equal(sb!.failures, 0);
    t.diagnostic(
      `tickets ${all.length} (before the kill ${acked.before.length}: ${beforeOdd} odd; during ` +
        `the kill ${acked.killing.length}; while A was dead ` +
        `${acked.down.length}, all even; after restart ${acked.restarted.length}); A: ` +
        `${sa!.failures} failures, ${sa!.failovers} failovers; killed-to-restart ` +
        `${Math.round(restartedAt - killedAt)} ms; InnoDB deadlock retries ` +
        `${a.deadlockRetries + b.deadlockRetries}; client events: ${events.join(' | ')}`,
    );
  });

  test('a SIGKILLed ticket server restarted under load: no ticket acknowledged before the crash is ever issued again', async (t) => {
    const a = await open(PORTS[0]);
    await a.setup('crash', 2, 1);
    const figures: string[] = [];
    for (let cycle = 1; cycle <= 3; cycle++) {
      const acked: bigint[] = [];
      const unexpected: unknown[] = [];
      let dead = false;
      let killing = false;
      const running = load(
        16,
        () => a.next('crash'),
        () => dead,
        (x) => acked.push(x),
        // Before the kill a refusal is a call that outlived its bound on a busy machine: the
        // load goes on. From the kill on, the first refusal ends it.
        expectUnavailable(unexpected, () => {
          if (killing) dead = true;
        }),
      );
      await waitFor(() => acked.length >= 200 * cycle, `${200 * cycle} tickets`);
      killing = true;
      await service(PORTS[0], 'stop', '--kill'); // mid-run: 16 requests in flight
      dead = true;
      await running;
      assert.deepEqual(unexpected, [], 'only StoreUnavailableError while the server dies');
      await service(PORTS[0], 'start');
      const ackedSet = new Set(acked);
      const last = max(acked);
      const afterRestart: bigint[] = [];
      for (let i = 0; i < 300; i++) afterRestart.push(await a.next('crash'));
      const reissued = afterRestart.filter((x) => ackedSet.has(x)).length;
      assert.equal(reissued, 0, `cycle ${cycle}: reissued tickets`);
      assert.ok(afterRestart[0]! > last, `cycle ${cycle}: ${afterRestart[0]} after ${last}`);
      assert.ok(acked.length > 50, `cycle ${cycle}: load before the crash (${acked.length})`);
      assert.ok(
        afterRestart.every((x) => x % 2n === 1n),
        'still its own residue after restart',
      );
      figures.push(`cycle ${cycle}: ${acked.length} acked up to ${last}, next ${afterRestart[0]}`);
    }
    t.diagnostic(figures.join('; '));
  });

  test('negative control: with innodb_flush_log_at_trx_commit = 0 the same crash reissues acknowledged tickets', async (t) => {
    const a = await open(PORTS[1]);
    await a.setup('unsafe', 1, 1);
    for (let i = 0; i < 10; i++) await a.next('unsafe');
    const admin = await mysql.createConnection({ host: '127.0.0.1', port: PORTS[1], user: 'root' });
    // Commits now sit in the log buffer for up to a second: a crash loses them.
    await admin.query('SET GLOBAL innodb_flush_log_at_trx_commit = 0');
    await admin.end();
    const acked: bigint[] = [];
    const unexpected: unknown[] = [];
    let dead = false;
    let killing = false;
    const running = load(
      16,
      () => a.next('unsafe'),
      () => dead,
      (x) => acked.push(x),
      expectUnavailable(unexpected, () => {
        if (killing) dead = true;
      }),
    );
    await waitFor(() => acked.length >= 300, '300 tickets');
    killing = true;
    await service(PORTS[1], 'stop', '--kill');
    dead = true;
    await running;
    assert.deepEqual(unexpected, [], 'only StoreUnavailableError while the server dies');
    await service(PORTS[1], 'start'); // my.cnf sets it back to 1
    const ackedSet = new Set(acked);
    const afterRestart: bigint[] = [];
    for (let i = 0; i < 100; i++) afterRestart.push(await a.next('unsafe'));
    const reissued = afterRestart.filter((x) => ackedSet.has(x)).length;
    assert.ok(reissued > 0, 'the crash test detects a server that is not durable');
    t.diagnostic(
      `${acked.length} acked up to ${max(acked)}; after the crash the server issued ${afterRestart[0]} again: ${reissued} of 100 reissued`,
    );
  });

  test('a frozen server (SIGSTOP): requests fail over within the call bound, none hangs; thawed, it comes back', async (t) => {
    const [a, b] = [await open(PORTS[0]), await open(PORTS[1])];
    await setupTicketServers([a, b], 'frozen');
    const client = new TicketClient([a, b], 'frozen', { retryAfterMs: 300, maxRetryAfterMs: 600 });
    const pid = Number(
      readFileSync(
        join(process.env.TMPDIR ?? tmpdir(), `idforge-mariadb-${PORTS[0]}`, 'mariadb.pid'),
        'utf8',
      ),
    );
    const tickets: bigint[] = [];
    let slowest = 0;
    let stop = false;
    const running = load(
      8,
      () => client.next(),
      () => stop,
      (x, ms) => {
        tickets.push(x);
        slowest = Math.max(slowest, ms);
      },
    );
    await waitFor(() => tickets.length >= 300, '300 tickets before the freeze');
    await freeze(pid);
    const frozenSince = performance.now();
    const frozenAt = tickets.length;
    try {
      await waitFor(
        () => client.stats()[0]!.failures >= 1 && tickets.length >= frozenAt + 300,
        'A to fail and B to serve 300 tickets while A is frozen',
      );
      // The freeze lasts twice the call bound in all (a fault of that length, not a wait for an
      // event): requests sent to A meanwhile outlive their bound.
      await sleep(2 * BOUND - (performance.now() - frozenSince));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const thawedAt = tickets.length;
    await waitFor(
      () => client.stats()[0]!.up && tickets.slice(thawedAt).some((x) => x % 2n === 1n),
      'A to serve again after SIGCONT',
    );
    stop = true;
    await running;
    assert.equal(new Set(tickets).size, tickets.length, '0 duplicates');
    assert.ok(
      slowest < BOUND + SLACK,
      `slowest request ${Math.round(slowest)} ms (bound ${BOUND} ms + ${SLACK} ms slack)`,
    );
    const [sa] = client.stats();
    assert.ok(sa!.failures >= 1, 'the frozen server failed requests');
    assert.equal(sa!.up, true, 'and came back after SIGCONT');
    t.diagnostic(
      `${tickets.length} tickets; slowest request ${Math.round(slowest)} ms; A failures ${sa!.failures}`,
    );
  });

  test('negative control: two servers set up with the same offset issue duplicates under the same load', async (t) => {
    const [a, b] = [await open(PORTS[0]), await open(PORTS[1])];
    await a.setup('same', 2, 1);
    await b.setup('same', 2, 1);
    const client = new TicketClient([a, b], 'same', { retryAfterMs: 200, maxRetryAfterMs: 800 });
    const tickets: bigint[] = [];
    let stop = false;
    const running = load(
      8,
      () => client.next(),
      () => stop,
      (x) => tickets.push(x),
    );
    // Both servers count 1, 3, 5, ...: as soon as each has answered once, a ticket repeats.
    const served = () => client.stats().map((s) => s.tickets);
    await waitFor(() => new Set(tickets).size < tickets.length, 'a ticket issued twice');
    stop = true;
    await running;
    const dups = tickets.length - new Set(tickets).size;
    t.diagnostic(`control: ${dups} of ${tickets.length} tickets issued twice (${served()})`);
    assert.notEqual(new Set(tickets).size, tickets.length, 'the duplicate check fails');
  });

  test('negative control: without the call bound, a request to a frozen server hangs past it', async (t) => {
    // The SIGSTOP scenario with the bound taken away: a connection with minute-long timeouts.
    const a = await MysqlTicketServer.open(url(PORTS[0]), {
      connectTimeoutMs: 60_000,
      queryTimeoutMs: 60_000,
    });
    servers.push(a);
    await a.setup('unbounded', 2, 1);
    await a.next('unbounded');
    const pid = Number(
      readFileSync(
        join(process.env.TMPDIR ?? tmpdir(), `idforge-mariadb-${PORTS[0]}`, 'mariadb.pid'),
        'utf8',
      ),
    );
    let settled = false;
    let ms = 0;
    await freeze(pid);
    try {
      const started = performance.now();
      let outcome = 'still waiting';
      const request = a.next('unbounded').then(
        (v) => {
          outcome = `answered ${v}`;
        },
        (e: unknown) => {
          outcome = `failed: ${e instanceof Error ? e.message : String(e)}`;
        },
      );
      request.finally(() => {
        settled = true;
        ms = performance.now() - started;
      });
      // Still waiting once the bound the suite asserts, with its slack, has passed.
      await sleep(BOUND + SLACK + 100);
      assert.equal(settled, false, `the request to the frozen server: ${outcome}`);
      process.kill(pid, 'SIGCONT');
      await request;
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    t.diagnostic(`control: the request took ${Math.round(ms)} ms (bound ${BOUND} ms)`);
    assert.ok(!(ms < BOUND + SLACK), 'the call-bound check fails without the bound');
  });
});
