// The PostgreSQL ticket server's durability, for real: the project's own PostgreSQL on port
// from the OS (scripts/services/postgres.sh; the shared server on 5432 is never touched) under 16
// concurrent callers is crashed with an immediate shutdown (pg_ctl -m immediate: no checkpoint,
// recovery from the WAL at the next start) three times mid-load and restarted. No ticket
// acknowledged to a caller before a crash may ever be issued again, and the tickets after
// recovery must be above every acknowledged one.
//
// What the ticket server relies on (docs/sequences-tickets.md): nextval WAL-logs the sequence
// ahead of what it hands out, and the commit of the SELECT flushes that WAL record before the
// client gets its number. The negative control removes exactly that: the same sequence made
// UNLOGGED (PostgreSQL 15: ALTER SEQUENCE ... SET UNLOGGED) writes no WAL at all, and crash
// recovery resets an unlogged relation to its init fork, which holds the sequence as it was
// at the ALTER. Every ticket acknowledged after the ALTER is therefore issued again after the
// crash: certain by construction, not a race with the WAL writer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import {
  openTicketServers,
  StoreUnavailableError,
  setupTicketServers,
} from '../../packages/stores/src/index.js';
import { freePort, ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { waitFor } from '../helpers/wait.js';

// The shared server's presence says whether PostgreSQL is installed here at all.
const skip = await serviceSkip('postgres', '127.0.0.1', 5432);
const PORT = await freePort();
const server = ownServer('postgres', PORT);
const base = `postgres://postgres@127.0.0.1:${PORT}/postgres`;
/** A request to a dead server gives up within 2 s (connect + query bound). */
const TIMEOUTS = { connectTimeoutMs: 1000, queryTimeoutMs: 1000 };
const CALLERS = 16;

type Opened = Awaited<ReturnType<typeof openTicketServers>>[number];
const opened: Opened[] = [];
async function open(namespace: string): Promise<Opened> {
  const [s] = await openTicketServers([`${base}?namespace=${namespace}`], TIMEOUTS);
  opened.push(s!);
  return s!;
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** The one sequence in `schema`, quoted, with its persistence ('p' logged, 'u' unlogged). */
async function sequenceIn(schema: string): Promise<{ name: string; persistence: string }> {
  return admin(async (c) => {
    const { rows } = await c.query<{ name: string; persistence: string }>(
      `SELECT format('%I.%I', n.nspname, s.relname) AS name, s.relpersistence AS persistence
         FROM pg_class s JOIN pg_namespace n ON n.oid = s.relnamespace
        WHERE s.relkind = 'S' AND n.nspname = $1`,
      [schema],
    );
    assert.equal(rows.length, 1, `one sequence in ${schema}`);
    return rows[0]!;
  });
}

interface Crash {
  /** Tickets acknowledged to a caller before and during the kill. */
  acked: bigint[];
  /** Requests that failed (the kill). */
  failed: number;
  restartMs: number;
}

/**
 * `CALLERS` loops of `take()` until the server dies; once `ackedBefore` tickets are in, the
 * server is killed (immediate shutdown) mid-load, then every caller's request has settled,
 * then it is started again (crash recovery). Anything but StoreUnavailableError is recorded
 * and fails the test.
 */
async function crashUnderLoad(take: () => Promise<bigint>, ackedBefore: number): Promise<Crash> {
  const acked: bigint[] = [];
  const unexpected: unknown[] = [];
  let failed = 0;
  let dead = false;
  const loop = async () => {
    while (!dead) {
      try {
        acked.push(await take());
      } catch (e) {
        if (!(e instanceof StoreUnavailableError)) unexpected.push(e);
        failed++;
        dead = true;
      }
    }
  };
  // Handled from creation: awaited only after the kill.
  const running = Promise.all(Array.from({ length: CALLERS }, loop));
  running.catch(() => undefined);
  try {
    await waitFor(() => dead || acked.length >= ackedBefore, `${ackedBefore} tickets`);
    assert.equal(dead, false, 'no request failed before the kill');
    await server.stop(true); // pg_ctl -m immediate: requests in flight die with it
  } finally {
    dead = true;
    await running;
  }
  assert.deepEqual(unexpected, [], 'only StoreUnavailableError while the server dies');
  const started = performance.now();
  await server.start();
  return { acked, failed, restartMs: Math.round(performance.now() - started) };
}

/**
 * `n` tickets one after another after a restart. A pooled connection broken by the crash may
 * fail the first requests (StoreUnavailableError); each is retried on the next connection, at
 * most 8 times in all.
 */
async function takeAfterRestart(take: () => Promise<bigint>, n: number): Promise<bigint[]> {
  const out: bigint[] = [];
  let failures = 0;
  while (out.length < n) {
    try {
      out.push(await take());
    } catch (e) {
      if (!(e instanceof StoreUnavailableError) || ++failures > 8) throw e;
    }
  }
  return out;
}

function max(xs: Iterable<bigint>): bigint {
  let m = 0n;
  for (const x of xs) if (x > m) m = x;
  return m;
}
function min(xs: readonly bigint[]): bigint {
  let m = xs[0]!;
  for (const x of xs) if (x < m) m = x;
  return m;
}

describe('PostgreSQL ticket server crashed under load (own server)', { skip }, () => {
  before(async () => {
    await server.stop(true, true); // whatever a previous run left: gone
    await server.start();
  });

  after(async () => {
    await Promise.all(opened.map((s) => s.close()));
    await server.stop(false, true).catch(() => undefined);
  });

  test('three immediate shutdowns mid-load: no acknowledged ticket is issued again, tickets after recovery are above every acknowledged one', async (t) => {
    const settings = await admin(async (c) => {
      const get = async (name: string) => (await c.query(`SHOW ${name}`)).rows[0][name];
      return {
        fsync: await get('fsync'),
        synchronous_commit: await get('synchronous_commit'),
        full_page_writes: await get('full_page_writes'),
      };
    });
    // The durable configuration the docs require (the defaults): what this test shows holds.
    assert.deepEqual(settings, { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' });
    const tickets = await open('idforge_crash');
    await setupTicketServers([tickets], 'crash');
    const seq = await sequenceIn('idforge_crash');
    assert.equal(seq.persistence, 'p', 'the sequence setup creates is WAL-logged');
    const take = () => tickets.next('crash');

    const everyTicket: bigint[] = [];
    const figures: string[] = [];
    for (let cycle = 1; cycle <= 3; cycle++) {
      const crash = await crashUnderLoad(take, 500);
      const ackedSoFar = new Set(everyTicket.concat(crash.acked));
      const last = max(everyTicket.concat(crash.acked));
      const next = await takeAfterRestart(take, 300);
      const reissued = next.filter((x) => ackedSoFar.has(x)).length;
      assert.equal(reissued, 0, `cycle ${cycle}: acknowledged tickets issued again`);
      assert.ok(
        min(next) > last,
        `cycle ${cycle}: ${min(next)} after recovery, acked up to ${last}`,
      );
      // nextval logs 32 values ahead: recovery skips at most that many (and what was in flight).
      assert.ok(next[0]! - last <= 32n + BigInt(CALLERS), `cycle ${cycle}: gap ${next[0]! - last}`);
      everyTicket.push(...crash.acked, ...next);
      figures.push(
        `cycle ${cycle}: ${crash.acked.length} acked up to ${last}, ${crash.failed} requests ` +
          `failed at the kill, restart ${crash.restartMs} ms, next ${next[0]} (gap ${next[0]! - last})`,
      );
    }
    const duplicates = everyTicket.length - new Set(everyTicket).size;
    assert.equal(duplicates, 0, 'no ticket issued twice across the three crashes');
    t.diagnostic(`${figures.join('; ')}; ${everyTicket.length} tickets in all, 0 duplicates`);
  });

  test('negative control: the same crash with the sequence UNLOGGED (its WAL removed) issues acknowledged tickets again', async (t) => {
    const tickets = await open('idforge_crash_ctl');
    await setupTicketServers([tickets], 'unsafe');
    const take = () => tickets.next('unsafe');
    const before = await takeAfterRestart(take, 10); // 1..10, before the ALTER
    const seq = await sequenceIn('idforge_crash_ctl');
    // The init fork is written now, holding the sequence as it is: after a crash, recovery
    // resets the sequence to this state, so its next ticket is max(before) + 1 again.
    await admin((c) => c.query(`ALTER SEQUENCE ${seq.name} SET UNLOGGED`));
    assert.equal((await sequenceIn('idforge_crash_ctl')).persistence, 'u');
    const crash = await crashUnderLoad(take, 500);
    const acked = new Set(crash.acked);
    const next = await takeAfterRestart(take, 300);
    const reissued = next.filter((x) => acked.has(x)).length;
    t.diagnostic(
      `control: ${crash.acked.length} acked (${max(before) + 1n}..${max(crash.acked)}), ` +
        `${crash.failed} failed at the kill; after recovery the sequence issued ${next[0]} ` +
        `again: ${reissued} of ${next.length} reissued`,
    );
    assert.equal(next[0], max(before) + 1n, 'reset to its state at the ALTER');
    assert.ok(reissued > 0, 'the crash check fails on a sequence that is not durable');
    assert.ok(!(min(next) > max(crash.acked)), 'and so does the "above every acked" check');
  });
});
