// What the PostgreSQL lease store adds to the LeaseStore contract (lease-store.test.ts), on
// fresh schemas of the PostgreSQL fixture (test/helpers/backend-fixtures.ts): several pools
// (hosts) racing over expiring leases, namespaces, the server's clock, a renewal held across
// the expiry. A server that is absent, silent or stalls mid-session, and the URLs and
// namespaces refused, are in sql-server-outage.ts; four pools racing for one range, and
// migrating one schema at once, in sql-server-races.ts; both for every SQL server.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import { openPostgresLeaseStore } from '../../packages/stores/src/postgres/lease-store.js';
import { fixtureOf, namespaceOf } from '../helpers/backend-fixtures.js';
import { early, waitFor } from '../helpers/wait.js';
import { owner, report, request, untilExpired } from './lease-store.js';

const fx = await fixtureOf('postgres');
const { skip } = fx;
const URL_ = fx.server!.url;

/** A fresh schema of the fixture's (dropped after the tests). */
const freshNamespace = () => namespaceOf(fx.freshUrl('lease'));

/** A migrated store on `namespace`, closed when the test ends. */
async function openFresh(namespace = freshNamespace()): Promise<LeaseStore> {
  const store = fx.keep(await openPostgresLeaseStore(URL_, { namespace }));
  await store.migrate();
  return store;
}

describe('PostgreSQL lease store: on the server', { skip }, () => {
  test('a store that was never migrated rejects with StoreNotMigratedError', async () => {
    const store = await openPostgresLeaseStore(URL_, { namespace: freshNamespace() });
    fx.keep(store);
    for (const [operation, call] of [
      ['acquire', () => store.acquire(request(owner(), 0, 0))],
      ['list', () => store.list()],
    ] as const) {
      await assert.rejects(call(), {
        name: 'StoreNotMigratedError',
        code: 'IDF_STORE_NOT_MIGRATED',
        operation,
        message: /idforge migrate --store/,
      });
    }
  });

  test('namespaces are isolated; the URL may name one; close is idempotent', async () => {
    const ns = freshNamespace();
    const a = await openPostgresLeaseStore(`${URL_}?namespace=${ns}`);
    fx.keep(a);
    await a.migrate();
    const b = await openFresh();
    assert.equal((await a.acquire(request(owner(), 0, 0)))?.workerId, 0);
    assert.equal((await b.acquire(request(owner(), 0, 0)))?.workerId, 0);
    const c = await openFresh(ns);
    assert.equal(await c.acquire(request(owner(), 0, 0)), null, 'same namespace as a');
    await c.close();
    await c.close();
  });

  test('an expired lease taken over by racing hosts goes to exactly one', async () => {
    const ns = freshNamespace();
    const hosts = await Promise.all(Array.from({ length: 4 }, () => openFresh(ns)));
    const first = await hosts[0]!.acquire(request(owner(), 5, 5, 300));
    assert.ok(first);
    await untilExpired(hosts[0]!, first, 300);
    const got = await Promise.all(
      Array.from({ length: 12 }, (_, i) => hosts[i % 4]!.acquire(request(owner(), 5, 5))),
    );
    assert.equal(got.filter((l) => l !== null).length, 1);
  });

  test('grants racing over leases that keep expiring never deadlock', async () => {
    // Regression: a grant that loses a row keeps it locked; with TTLs so short that the row is
    // free again at the next candidate pick, losers each holding a row another wanted
    // deadlocked (PostgreSQL 40P01) until grants took turns on the per-namespace lock. A
    // deadlock shows as a rejection (PostgreSQL breaks it after deadlock_timeout) or as a round
    // that never completes: every call must resolve, with a valid grant or null.
    const ns = freshNamespace();
    const hosts = await Promise.all(Array.from({ length: 3 }, () => openFresh(ns)));
    let granted = 0;
    for (let round = 0; round < 15; round++) {
      const calls = Array.from({ length: 36 }, (_, i) => {
        const o = owner();
        return hosts[i % 3]!.acquire(request(o, 0, 23, 60)).then((l) => ({ o, l }));
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stuck = new Promise<'stuck'>((resolve) => {
        timer = setTimeout(() => resolve('stuck'), 20_000);
      });
      const settled = await Promise.race([Promise.allSettled(calls), stuck]);
      clearTimeout(timer);
      assert.notEqual(settled, 'stuck', `round ${round}: grants still waiting after 20 s`);
      if (settled === 'stuck') return;
      const failed = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      assert.deepEqual(
        failed.map(
          (e: { cause?: { code?: string }; message?: string }) => e.cause?.code ?? e.message,
        ),
        [],
        `round ${round}: grants rejected (40P01 is a deadlock)`,
      );
      for (const r of settled) {
        if (r.status !== 'fulfilled' || r.value.l === null) continue;
        const { o, l } = r.value;
        assert.ok(
          Number.isInteger(l.workerId) && l.workerId >= 0 && l.workerId <= 23,
          `${l.workerId}`,
        );
        assert.equal(l.instanceId, o.instanceId);
        granted++;
      }
      if (round === 0) assert.ok(granted >= 24, `round 0 granted ${granted} of 24 free IDs`);
      await sleep(20); // let some of the 60 ms leases lapse: the next round races over them
    }
  });

  test('expiry is the server clock plus the TTL, whatever the node clock says', async () => {
    const s = await openFresh();
    const o = owner();
    const before = await s.serverTimeMs();
    assert.ok(await s.acquire({ ...request(o, 0, 0, 10_000), clockMs: 1_000 }));
    const [r] = await s.list();
    assert.ok(r && before !== null);
    assert.equal(r.clockMs, 1_000);
    assert.ok(r.storeClockMs !== null && r.storeClockMs >= before);
    assert.equal(r.expiresAtMs, r.storeClockMs + 10_000);
  });
});

// Renewals take no advisory lock, so a grant may run while a renewal's transaction is open: the
// renewal has extended the lease (uncommitted) when the grant's snapshot still shows it expired.
// Only the grant's re-check of expiry under the row lock (ON CONFLICT ... WHERE expired) keeps
// it from taking a lease whose renewal then commits.
describe('PostgreSQL lease store: a renewal held across the expiry', { skip }, () => {
  test('a grant waiting on the renewing row does not take the renewed lease', async () => {
    const ns = freshNamespace();
    // Statements here wait on locks for as long as the test holds them.
    const store = await openPostgresLeaseStore(URL_, { namespace: ns, queryTimeoutMs: 20_000 });
    fx.keep(store);
    await store.migrate();
    const blocker = new pg.Client({ connectionString: URL_ });
    await blocker.connect();
    // Its own session: pg_stat_activity is read once per transaction, the blocker's is open.
    const observer = new pg.Client({ connectionString: URL_ });
    await observer.connect();
    // Long enough for the renewal below to reach the server before the lease expires.
    const held = await store.acquire(request(owner(), 0, 0, 2000));
    assert.ok(held);
    const [{ expiresAtMs } = { expiresAtMs: 0 }] = await store.list();
    const waiting = async (like: string) => {
      const r = await observer.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE wait_event_type = 'Lock' AND query LIKE $1 AND query LIKE $2`,
        [`%${ns}%`, like],
      );
      return r.rows[0].n > 0;
    };
    try {
      // The renewal's mark write waits on this lock after its lease row is extended and locked.
      await blocker.query('BEGIN');
      await blocker.query(`SELECT mark_ms FROM "${ns}".marks WHERE worker_id = 0 FOR UPDATE`);
      const renewed = early(() => store.renew(held, report(30_000, Date.now())));
      // A renewal that lost the race with the expiry would answer not held at once.
      const settled = renewed.then(() => true);
      await waitFor(
        async () => (await Promise.race([settled, waiting('%GREATEST%')])) === true,
        "the renewal waiting on the mark's row",
      );
      assert.ok(await waiting('%GREATEST%'), 'the renewal is blocked, not answered');
      await waitFor(
        async () => ((await store.serverTimeMs()) ?? 0) > expiresAtMs,
        'the first expiry to pass on the server clock',
      );
      const granted = early(() => store.acquire(request(owner(), 0, 0)));
      await waitFor(() => waiting('%candidate AS%'), 'the grant waiting on the lease row');
      await blocker.query('COMMIT');
      assert.equal((await renewed).held, true, 'the renewal held');
      assert.equal(await granted, null, 'the grant took nothing');
      assert.deepEqual(
        (await store.list()).map((l) => l.instanceId),
        [held.instanceId],
      );
    } finally {
      await blocker.query('ROLLBACK').catch(() => undefined);
      await blocker.end();
      await observer.end();
    }
  });
});
