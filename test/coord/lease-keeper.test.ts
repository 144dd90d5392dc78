// Direct tests of LeaseKeeper (src/coord/lease-keeper.ts): acquisition with refusals, back-off
// and a store that is down, all within waitMs; renewNow's success, loss, duplicate and failure
// paths with their counters; the background loop's schedule, its jittered back-off after
// failures (from retryMs, capped at min(8 x retryMs, (ttl - guard) / 4)) and its reset after a
// success; the reservation capped at the deadline; close().
//
// The store is the real SQLite lease store on a temp file, its clock the test's ManualClock (so
// leases expire when the test moves time). Faults are injected by a thin wrapper in front of it
// that also logs each call with its virtual time. Timers are node:test's mocked setTimeout,
// moved 1 ms at a time together with the ManualClock: every time asserted is exact, nothing
// waits on the wall clock. The jitter's random source is Math.random, mocked per test.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, type TestContext, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import Database from 'better-sqlite3';
import {
  NoFreeWorkerError,
  StoreUnavailableError,
} from '../../packages/idforge/src/coord/index.js';
import {
  LeaseKeeper,
  type LeaseKeeperSettings,
} from '../../packages/idforge/src/coord/lease-keeper.js';
import type { Lease, LeaseOwner, LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import { IdforgeError, ManualClock } from '../../packages/idforge/src/core/index.js';
import { SqliteLeaseStore } from '../../packages/stores/src/sqlite/lease-store.js';
import { suiteTempDir } from '../helpers/temp.js';
import { early } from '../helpers/wait.js';

const dir = suiteTempDir('idforge-lease-keeper-');
let files = 0;

/** Virtual time zero (unix ms): every time below is an offset from it. */
const T0 = Date.UTC(2026, 0, 1);
const NEG = Number.NEGATIVE_INFINITY;

const owner = (instanceId: string): LeaseOwner => ({
  instanceId,
  host: 'test-host',
  pid: 4242,
  startedAtMs: T0,
});

/** Settings the tests start from: one worker ID, so a second holder fills the range. */
const BASE = {
  min: 0,
  max: 0,
  ttlMs: 10_000,
  guardMs: 1_000,
  windowMs: 8_000,
  renewEveryMs: 3_000,
  retryMs: 160,
} as const;

interface Fault {
  /** Calls made while this holds (at virtual ms) reject with StoreUnavailableError. */
  down: (atMs: number) => boolean;
  /** Calls reject with this error (a driver bug: not a StoreUnavailableError). */
  other: Error | null;
  /** While set, calls wait for it before going on. */
  gate: Promise<void> | null;
}

/**
 * The real store behind a fault switch that logs each call as 'op@ms' (virtual ms from T0).
 * Only injected failures are scripted: every answer comes from the real SQLite store.
 */
function withFaults(real: LeaseStore, at: () => number) {
  const calls: string[] = [];
  const fault: Fault = { down: () => false, other: null, gate: null };
  let inFlight = 0;
  let maxInFlight = 0;
  const call = async <T>(op: string, fn: () => Promise<T>): Promise<T> => {
    const ms = at();
    calls.push(`${op}@${ms}`);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      if (fault.gate !== null) await fault.gate;
      if (fault.other !== null) throw fault.other;
      if (fault.down(ms)) {
        throw new StoreUnavailableError(real.backend, real.address, op, new Error('down'));
      }
      return await fn();
    } finally {
      inFlight--;
    }
  };
  const store: LeaseStore = {
    backend: real.backend,
    address: real.address,
    migrate: () => call('migrate', () => real.migrate()),
    acquire: (r) => call('acquire', () => real.acquire(r)),
    renew: (l, r) => call('renew', () => real.renew(l, r)),
    release: (l, m) => call('release', () => real.release(l, m)),
    list: () => call('list', () => real.list()),
    readMark: (w) => call('readMark', () => real.readMark(w)),
    serverTimeMs: () => call('serverTimeMs', () => real.serverTimeMs()),
    close: () => real.close(),
  };
  /** Times (virtual ms) of the calls of one operation. */
  const times = (op: string) =>
    calls.filter((c) => c.startsWith(`${op}@`)).map((c) => Number(c.slice(op.length + 1)));
  return { store, calls, fault, times, maxInFlight: () => maxInFlight };
}

/** What the keeper told its node. */
function recorder() {
  const log: string[] = [];
  const lost: { lease: Lease; duplicate: readonly string[] | null }[] = [];
  const duplicates: (readonly string[] | null)[] = [];
  const state = { lastIssuedMs: null as number | null };
  return {
    log,
    lost,
    duplicates,
    state,
    events: {
      onLost: (lease: Lease, duplicate: readonly string[] | null) =>
        lost.push({ lease, duplicate }),
      onDuplicate: (claimants: readonly string[] | null) => duplicates.push(claimants),
      lastIssuedMs: () => state.lastIssuedMs,
      log: (level: 'info' | 'warn' | 'error', message: string) => log.push(`${level} ${message}`),
    },
  };
}

/**
 * One test's world: a fresh SQLite file whose store runs on the ManualClock, mocked timers,
 * and `advance(ms)`, which moves clock and timers on together 1 ms at a time (what is due now
 * runs first), letting every callback's promise chain finish between steps.
 */
async function world(t: TestContext, random?: () => number) {
  // Before any keeper exists: its back-off takes Math.random at construction.
  if (random !== undefined) t.mock.method(Math, 'random', random);
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const clock = new ManualClock(T0);
  const path = join(dir, `keeper-${files++}.db`);
  const db = new Database(path);
  const real = new SqliteLeaseStore({
    database: db,
    address: `sqlite:${path}`,
    now: () => clock.now(),
  });
  await real.migrate();
  t.after(() => db.close());
  const at = () => clock.now() - T0;
  const advance = async (ms: number, until: () => boolean = () => false) => {
    await turn();
    t.mock.timers.tick(0);
    await turn();
    for (let i = 0; i < ms && !until(); i++) {
      clock.advance(1);
      t.mock.timers.tick(1);
      await turn();
    }
  };
  const faulty = () => withFaults(real, at);
  const keeper = (
    store: LeaseStore,
    events: ReturnType<typeof recorder>['events'],
    settings: Partial<LeaseKeeperSettings> = {},
    id = 'a',
  ) => new LeaseKeeper({ ...BASE, store, clock, owner: owner(id), ...settings }, events);
  return { clock, db, real, at, advance, faulty, keeper };
}

/** A sequence of random draws (the last one repeats). */
function draws(...values: number[]): () => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)]!;
}

/** Settles a flag when `p` does; `p` is observed from creation. */
function track<T>(start: () => Promise<T>) {
  const state = { settled: false };
  const p = early(() =>
    start().finally(() => {
      state.settled = true;
    }),
  );
  return { p, state };
}

describe('LeaseKeeper.acquire', () => {
  test('grants the lowest free ID: the deadline is sent + ttl - guard, the reservation the mark as stored', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const a = w.keeper(f.store, recorder().events, { min: 3, max: 5 });
    w.clock.advance(250);
    const lease = await a.acquire(0);
    assert.deepEqual(lease, { workerId: 3, instanceId: 'a', previousMarkMs: null, markMs: 0 });
    assert.equal(a.lease, lease);
    assert.equal(a.deadlineMs, T0 + 250 + 10_000 - 1_000);
    // Nothing reserved ahead at the grant (reserveMarkMs 0): the node reserves when it renews.
    assert.equal(a.reservedMs, 0);
    assert.deepEqual(a.counters, {
      acquired: 1,
      refusals: 0,
      renewals: 0,
      renewalFailures: 0,
      lost: 0,
      duplicates: 0,
    });
    const b = w.keeper(w.real, recorder().events, { min: 3, max: 5 }, 'b');
    assert.equal((await b.acquire(0)).workerId, 4);
    const [rec] = await w.real.list();
    assert.equal(rec!.instanceId, 'a');
    assert.equal(rec!.expiresAtMs, T0 + 250 + 10_000, 'expiry by the store clock');
    assert.equal(rec!.clockMs, T0 + 250);
    assert.deepEqual(f.calls, ['acquire@250']);
  });

  // Full range: attempts at the back-off steps (d = 160, 320, 640, 1280, 1280 ...: capped at 8 x
  // retryMs; each delay d/2 + random * d/2), the last sleep cut at the wait's end.
  const full: readonly { random: number; waitMs: number; attempts: number[] }[] = [
    { random: 0.5, waitMs: 1_000, attempts: [0, 120, 360, 840, 1_000] },
    { random: 0, waitMs: 1_000, attempts: [0, 80, 240, 560, 1_000] },
    {
      random: 0.5,
      waitMs: 5_000,
      // 120, 240, 480, 960, 960, 960 ... (without the cap: 1,920 after 840)
      attempts: [0, 120, 360, 840, 1_800, 2_760, 3_720, 4_680, 5_000],
    },
  ];
  for (const c of full) {
    test(`full range, random ${c.random}, waitMs ${c.waitMs}: refused at ${c.attempts.join(', ')} ms, then NoFreeWorkerError at exactly ${c.waitMs} ms`, async (t) => {
      const w = await world(t, () => c.random);
      await w.keeper(w.real, recorder().events, {}, 'holder').acquire(0);
      const f = w.faulty();
      const a = w.keeper(f.store, recorder().events);
      const { p, state } = track(() => a.acquire(c.waitMs));
      await w.advance(c.waitMs - 1);
      assert.equal(state.settled, false, `still waiting at ${c.waitMs - 1} ms`);
      await w.advance(1);
      await assert.rejects(p, (e: unknown) => {
        assert.ok(e instanceof NoFreeWorkerError, String(e));
        assert.ok(e instanceof IdforgeError);
        assert.equal(e.code, 'IDF_NO_FREE_WORKER');
        assert.equal(e.backend, 'sqlite');
        assert.equal(e.min, 0);
        assert.equal(e.max, 0);
        assert.equal(e.waitedMs, c.waitMs);
        assert.match(e.message, new RegExp(`no free worker ID in 0\\.\\.0 .* ${c.waitMs} ms`));
        return true;
      });
      assert.deepEqual(f.times('acquire'), c.attempts);
      assert.equal(a.counters.refusals, c.attempts.length);
      assert.equal(a.counters.acquired, 0);
      assert.equal(a.lease, null);
    });
  }

  test('full range with waitMs 0: one attempt, refused at once', async (t) => {
    const w = await world(t);
    await w.keeper(w.real, recorder().events, {}, 'holder').acquire(0);
    const f = w.faulty();
    const a = w.keeper(f.store, recorder().events);
    await assert.rejects(a.acquire(0), (e: unknown) => {
      assert.ok(e instanceof NoFreeWorkerError);
      assert.equal(e.waitedMs, 0);
      return true;
    });
    assert.deepEqual(f.calls, ['acquire@0']);
    assert.equal(a.counters.refusals, 1);
  });

  test('an ID freed during the wait is taken at the next attempt, with the final mark its holder set', async (t) => {
    const w = await world(t, () => 0.5);
    const holder = w.keeper(w.real, recorder().events, {}, 'holder');
    await holder.acquire(0);
    assert.equal(await holder.renewNow(), true); // reserves T0 + 8000
    const f = w.faulty();
    const a = w.keeper(f.store, recorder().events);
    const { p } = track(() => a.acquire(5_000));
    await w.advance(500);
    await holder.close(T0 + 250);
    await w.advance(1_000, () => a.lease !== null);
    const lease = await p;
    assert.deepEqual(f.times('acquire'), [0, 120, 360, 840]);
    assert.equal(w.at(), 840);
    assert.deepEqual(lease, {
      workerId: 0,
      instanceId: 'a',
      previousMarkMs: T0 + 250,
      markMs: T0 + 250,
    });
    assert.equal(a.reservedMs, T0 + 250);
    assert.equal(a.deadlineMs, T0 + 840 + 9_000);
    assert.equal(a.counters.refusals, 3);
    assert.equal(a.counters.acquired, 1);
  });

  test('a store that is down is retried with the same back-off within waitMs; up again, the lease is granted', async (t) => {
    const w = await world(t, () => 0.5);
    const f = w.faulty();
    f.fault.down = (ms) => ms < 500;
    const a = w.keeper(f.store, recorder().events);
    const { p } = track(() => a.acquire(5_000));
    await w.advance(5_000, () => a.lease !== null);
    const lease = await p;
    assert.deepEqual(f.times('acquire'), [0, 120, 360, 840]);
    assert.equal(lease.workerId, 0);
    assert.equal(a.deadlineMs, T0 + 840 + 9_000);
    assert.equal(a.counters.refusals, 0, 'a store failure is not a refusal');
    assert.equal(a.counters.acquired, 1);
  });

  test('a store down for the whole wait: the store error itself (typed), at exactly waitMs', async (t) => {
    const w = await world(t, () => 0.5);
    const f = w.faulty();
    f.fault.down = () => true;
    const a = w.keeper(f.store, recorder().events);
    const { p, state } = track(() => a.acquire(1_000));
    await w.advance(999);
    assert.equal(state.settled, false);
    await w.advance(1);
    await assert.rejects(p, (e: unknown) => {
      assert.ok(e instanceof StoreUnavailableError, String(e));
      assert.equal(e.code, 'IDF_STORE_UNAVAILABLE');
      assert.equal(e.backend, 'sqlite');
      assert.equal(e.operation, 'acquire');
      assert.equal((e.cause as Error).message, 'down');
      return true;
    });
    assert.deepEqual(f.times('acquire'), [0, 120, 360, 840, 1_000]);
    assert.equal(a.counters.refusals, 0);
    assert.equal(a.lease, null);
  });

  test('a store that is down with waitMs 0: rejects at once, one attempt', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    f.fault.down = () => true;
    const a = w.keeper(f.store, recorder().events);
    await assert.rejects(a.acquire(0), StoreUnavailableError);
    assert.deepEqual(f.calls, ['acquire@0']);
  });

  test('refusals and store failures share one wait and one back-off', async (t) => {
    const w = await world(t, () => 0.5);
    await w.keeper(w.real, recorder().events, {}, 'holder').acquire(0);
    const f = w.faulty();
    f.fault.down = (ms) => ms >= 100 && ms < 400; // attempts 2 and 3 fail, 1 and 4 are refused
    const a = w.keeper(f.store, recorder().events);
    const { p } = track(() => a.acquire(1_000));
    await w.advance(1_000);
    await assert.rejects(p, NoFreeWorkerError);
    assert.deepEqual(f.times('acquire'), [0, 120, 360, 840, 1_000]);
    assert.equal(a.counters.refusals, 3);
  });

  test('any other error is not waited for: it rejects at once', async (t) => {
    const w = await world(t, () => 0.5);
    const f = w.faulty();
    const bug = new TypeError('driver bug');
    f.fault.other = bug;
    const a = w.keeper(f.store, recorder().events);
    await assert.rejects(a.acquire(5_000), (e: unknown) => e === bug);
    assert.deepEqual(f.calls, ['acquire@0']);
  });
});

describe('LeaseKeeper.renewNow', () => {
  test('success: extends the deadline from the send time, reserves now + window, reports the last issued tick', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const r = recorder();
    const a = w.keeper(f.store, r.events);
    await a.acquire(0);
    w.clock.advance(500);
    r.state.lastIssuedMs = T0 + 400;
    assert.equal(await a.renewNow(), true);
    assert.equal(a.deadlineMs, T0 + 500 + 9_000);
    assert.equal(a.reservedMs, T0 + 500 + 8_000);
    assert.deepEqual(r.duplicates, [null]);
    const [rec] = await w.real.list();
    assert.deepEqual(
      [rec!.expiresAtMs, rec!.markMs, rec!.lastIssuedMs, rec!.clockMs, rec!.storeClockMs],
      [T0 + 500 + 10_000, T0 + 8_500, T0 + 400, T0 + 500, T0 + 500],
    );
    // The clock steps back 300 ms: the deadline follows the send time, the reservation never
    // moves back (here nor in the store).
    w.clock.advance(-300);
    assert.equal(await a.renewNow(), true);
    assert.equal(a.deadlineMs, T0 + 200 + 9_000);
    assert.equal(a.reservedMs, T0 + 8_500);
    assert.equal(await w.real.readMark(0), T0 + 8_500);
    assert.deepEqual(a.counters, {
      acquired: 1,
      refusals: 0,
      renewals: 2,
      renewalFailures: 0,
      lost: 0,
      duplicates: 0,
    });
    assert.deepEqual(f.calls, ['acquire@0', 'renew@500', 'renew@200']);
  });

  // The store extends the lease from when the renewal ARRIVES; the keeper cannot know when
  // that was, only that it was after the send: a deadline counted from the answer's arrival
  // would outlive the store's expiry by the time the request spent on its way.
  test('a renewal answered late: the deadline counts from the send, not from the answer', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const a = w.keeper(f.store, recorder().events);
    await a.acquire(0);
    w.clock.advance(500);
    let open!: () => void;
    f.fault.gate = new Promise((resolve) => {
      open = resolve;
    });
    const renewed = early(() => a.renewNow());
    await turn();
    w.clock.advance(2_000); // 2 s on its way: the store (on this clock) extends from T0 + 2,500
    f.fault.gate = null;
    open();
    assert.equal(await renewed, true);
    assert.equal(a.deadlineMs, T0 + 500 + 9_000, 'sent + ttl - guard');
    assert.equal(a.lastSentMs, T0 + 500);
    const [rec] = await w.real.list();
    assert.equal(rec!.expiresAtMs, T0 + 2_500 + 10_000, 'the store counted from the arrival');
  });

  test('the reservation is capped at the deadline (window > ttl - guard)', async (t) => {
    const w = await world(t);
    const a = w.keeper(w.real, recorder().events, { windowMs: 20_000 });
    await a.acquire(0);
    w.clock.advance(500);
    assert.equal(await a.renewNow(), true);
    assert.equal(a.deadlineMs, T0 + 9_500);
    assert.equal(a.reservedMs, a.deadlineMs, 'reserved up to the deadline, not now + 20 s');
    assert.equal(await w.real.readMark(0), T0 + 9_500);
  });

  test('lost after it expired (taken by another instance): onLost without a duplicate, bounds cleared', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const r = recorder();
    const a = w.keeper(f.store, r.events);
    const lease = await a.acquire(0);
    assert.equal(await a.renewNow(), true);
    w.clock.advance(10_001); // past the store's expiry (T0 + 10,000) and our deadline
    await w.keeper(w.real, recorder().events, {}, 'b').acquire(0);
    assert.equal(await a.renewNow(), false);
    assert.deepEqual(r.lost, [{ lease, duplicate: null }]);
    assert.deepEqual(r.duplicates, [null], 'onDuplicate only for held renewals');
    assert.equal(a.lease, null);
    assert.equal(a.deadlineMs, NEG);
    assert.equal(a.reservedMs, NEG);
    assert.deepEqual(a.counters, {
      acquired: 1,
      refusals: 0,
      renewals: 1,
      renewalFailures: 0,
      lost: 1,
      duplicates: 0,
    });
    // Without a lease nothing is sent.
    assert.equal(await a.renewNow(), false);
    assert.deepEqual(f.calls, ['acquire@0', 'renew@0', 'renew@10001']);
  });

  test('taken while ours was live by our own bound: onLost with the claimants, counted as a duplicate', async (t) => {
    const w = await world(t);
    const r = recorder();
    const a = w.keeper(w.real, r.events);
    const lease = await a.acquire(0);
    w.clock.advance(1_000);
    // The store edited by hand: instance b holds worker 0 and claims it, a's claim still live.
    w.db.prepare(`UPDATE idforge_leases SET instance_id = 'b' WHERE worker_id = 0`).run();
    w.db
      .prepare(
        'INSERT INTO idforge_claims (worker_id, instance_id, expires_at_ms) VALUES (0, ?, ?)',
      )
      .run('b', T0 + 20_000);
    assert.equal(await a.renewNow(), false);
    assert.deepEqual(r.lost, [{ lease, duplicate: ['a', 'b'] }]);
    assert.equal(a.counters.lost, 1);
    assert.equal(a.counters.duplicates, 1);
    assert.equal(a.lease, null);
  });

  test('an answer that arrives after our deadline (a partition held it) is a loss, not a duplicate', async (t) => {
    // Issue 10's partition test: the renewal was sent before the deadline, the link held it
    // while the lease expired and another node took the worker ID lawfully, and the answer
    // came back after. Before, judged by its send time, it raised a false DUPLICATE WORKER ID.
    const w = await world(t);
    const f = w.faulty();
    const r = recorder();
    const a = w.keeper(f.store, r.events);
    const lease = await a.acquire(0);
    assert.equal(a.deadlineMs, T0 + 9_000);
    w.clock.advance(8_000);
    let open!: () => void;
    f.fault.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const renewal = track(() => a.renewNow());
    await turn();
    w.clock.advance(2_001); // past our deadline (9,000) and the store's expiry (10,000)
    await w.keeper(w.real, recorder().events, {}, 'b').acquire(0);
    f.fault.gate = null;
    open();
    assert.equal(await renewal.p, false);
    assert.deepEqual(r.lost, [{ lease, duplicate: null }]);
    assert.equal(a.counters.duplicates, 0);
    assert.equal(a.counters.lost, 1);
    assert.ok(!r.log.some((l) => l.includes('DUPLICATE')), r.log.join('\n'));
    assert.deepEqual(f.calls, ['acquire@0', 'renew@8000']);
  });

  test('a stale claimant beside a held lease: onDuplicate each renewal, counted once per episode', async (t) => {
    const w = await world(t);
    const r = recorder();
    const a = w.keeper(w.real, r.events);
    await a.acquire(0);
    const claim = () =>
      w.db
        .prepare(
          'INSERT INTO idforge_claims (worker_id, instance_id, expires_at_ms) VALUES (0, ?, ?)',
        )
        .run('x', T0 + 60_000);
    claim();
    assert.equal(await a.renewNow(), true);
    assert.equal(await a.renewNow(), true);
    assert.equal(a.counters.duplicates, 1, 'one episode');
    w.db.prepare(`DELETE FROM idforge_claims WHERE instance_id = 'x'`).run();
    assert.equal(await a.renewNow(), true);
    claim();
    assert.equal(await a.renewNow(), true);
    assert.deepEqual(r.duplicates, [['a', 'x'], ['a', 'x'], null, ['a', 'x']]);
    assert.equal(a.counters.duplicates, 2, 'a second episode');
    assert.equal(a.counters.renewals, 4);
    assert.equal(a.counters.lost, 0);
  });

  test('a failed renewal keeps the lease and its bounds, warns once, and logs the recovery', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const r = recorder();
    const a = w.keeper(f.store, r.events);
    await a.acquire(0);
    assert.equal(await a.renewNow(), true);
    f.fault.down = (ms) => ms >= 1_000 && ms < 2_000;
    w.clock.advance(1_000);
    assert.equal(await a.renewNow(), true, 'still ours: the bounds have not been reached');
    w.clock.advance(500);
    assert.equal(await a.renewNow(), true);
    assert.equal(a.deadlineMs, T0 + 9_000, 'unchanged by failures');
    assert.equal(a.reservedMs, T0 + 8_000);
    const err = new StoreUnavailableError('sqlite', w.real.address, 'renew', new Error('down'));
    assert.deepEqual(r.log, [
      `warn lease renewal of worker ID 0 failed; issuing continues until ${new Date(T0 + 8_000).toISOString()}: ${err.message}`,
    ]);
    w.clock.advance(1_000);
    assert.equal(await a.renewNow(), true);
    assert.equal(r.log[1], 'info lease renewal of worker ID 0 recovered after 1500 ms');
    assert.equal(r.log.length, 2);
    assert.equal(a.deadlineMs, T0 + 2_500 + 9_000);
    // A failure that is not a StoreUnavailableError is a failed renewal too, named as it is.
    f.fault.other = new Error('driver bug');
    assert.equal(await a.renewNow(), true);
    assert.match(r.log[2]!, /^warn lease renewal of worker ID 0 failed; .*: Error: driver bug$/);
    assert.deepEqual(a.counters, {
      acquired: 1,
      refusals: 0,
      renewals: 2,
      renewalFailures: 3,
      lost: 0,
      duplicates: 0,
    });
  });

  test('concurrent calls are serialized: one renewal in flight at a time', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const a = w.keeper(f.store, recorder().events);
    await a.acquire(0);
    let open!: () => void;
    f.fault.gate = new Promise((resolve) => {
      open = resolve;
    });
    const first = early(() => a.renewNow());
    const second = early(() => a.renewNow());
    await turn();
    assert.deepEqual(f.times('renew'), [0], 'the second waits for the first');
    f.fault.gate = null;
    open();
    assert.deepEqual([await first, await second], [true, true]);
    assert.deepEqual(f.times('renew'), [0, 0]);
    assert.equal(f.maxInFlight(), 1);
    assert.equal(a.counters.renewals, 2);
  });

  test('before any lease: false, nothing sent', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    assert.equal(await w.keeper(f.store, recorder().events).renewNow(), false);
    assert.deepEqual(f.calls, []);
  });
});

describe('LeaseKeeper background loop', () => {
  test('renews every renewEveryMs when the reservation is far enough ahead', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const a = w.keeper(f.store, recorder().events); // window 8000: reservation due at +4000
    await a.acquire(0);
    a.start();
    await w.advance(12_000);
    // At once (nothing reserved yet), then every 3000 ms exactly.
    assert.deepEqual(f.times('renew'), [0, 3_000, 6_000, 9_000, 12_000]);
    assert.equal(a.reservedMs, T0 + 12_000 + 8_000);
    assert.equal(a.counters.renewals, 5);
    await a.close(null);
  });

  test('sleeps until the next renewal is due: one timer per renewal, set for renewEveryMs', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const timers = t.mock.method(globalThis, 'setTimeout');
    const a = w.keeper(f.store, recorder().events); // reservation due at +4000: period first
    await a.acquire(0);
    a.start();
    await w.advance(9_000);
    // A loop that woke more often would renew at the same times: only its timers show it.
    assert.deepEqual(f.times('renew'), [0, 3_000, 6_000, 9_000]);
    assert.deepEqual(
      timers.mock.calls.map((c) => c.arguments[1]),
      [0, 3_000, 3_000, 3_000, 3_000],
    );
    await a.close(null);
  });

  test('renews sooner when the reservation nears: once less than windowMs / 2 is left', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const a = w.keeper(f.store, recorder().events, { windowMs: 2_000 });
    await a.acquire(0);
    a.start();
    await w.advance(5_000);
    // The timer is set for exactly windowMs / 2 before the reservation, but a renewal is due
    // only when LESS than that is left: the wake-up at 1000 finds nothing due and the renewal
    // goes 1 ms later (so each cycle drifts by 1 ms). Still well before the reservation.
    assert.deepEqual(f.times('renew'), [0, 1_001, 2_002, 3_003, 4_004]);
    assert.equal(a.reservedMs, T0 + 4_004 + 2_000);
    await a.close(null);
  });

  test('after failures it backs off (jittered, from retryMs, capped at 8 x retryMs) and starts over after a success', async (t) => {
    // d = 160, 320, 640, 1280, 1280, 1280 (capped: (ttl - guard) / 4 = 2250 is larger), each
    // delay d/2 + r * d/2 with r drawn in turn: 80, 200, 480, 1120, 800, 960; after the
    // success the next failure starts again from 160: 80 + 0.5 * 80 = 120.
    const w = await world(t, draws(0, 0.25, 0.5, 0.75, 0.25, 0.5, 0.5));
    const f = w.faulty();
    f.fault.down = (ms) => (ms >= 1 && ms < 6_000) || (ms >= 9_000 && ms < 9_700);
    const r = recorder();
    const a = w.keeper(f.store, r.events);
    await a.acquire(0);
    a.start();
    await w.advance(12_760);
    assert.deepEqual(
      f.times('renew'),
      [0, 3_000, 3_080, 3_280, 3_760, 4_880, 5_680, 6_640, 9_640, 9_760, 12_760],
    );
    assert.equal(a.counters.renewalFailures, 7);
    assert.equal(a.counters.renewals, 4);
    assert.equal(a.lease?.workerId, 0, 'recovered before the deadline: still held');
    assert.deepEqual(
      r.log.map((l) => l.split(';')[0]!.replace(/: .*/, '')),
      [
        'warn lease renewal of worker ID 0 failed',
        'info lease renewal of worker ID 0 recovered after 3640 ms',
        'warn lease renewal of worker ID 0 failed',
        'info lease renewal of worker ID 0 recovered after 120 ms',
      ],
    );
    await a.close(null);
  });

  const caps: readonly {
    title: string;
    settings: Partial<LeaseKeeperSettings>;
    renews: number[];
  }[] = [
    {
      // (2000 - 400) / 4 = 400 < 8 x 160: d = 160, 320, 400, 400, ...; delays 120, 240, 300, 300.
      title: 'the back-off is capped at (ttl - guard) / 4 when that is below 8 x retryMs',
      settings: { ttlMs: 2_000, guardMs: 400, windowMs: 1_000, renewEveryMs: 500 },
      renews: [0, 500, 620, 860, 1_160, 1_460, 1_760],
    },
    {
      // (1000 - 200) / 4 = 200 < retryMs 300: the step stays at retryMs; delays 225. (The first
      // failure is at 251: due once less than windowMs / 2 of the reservation is left.)
      title: 'and never below retryMs',
      settings: { ttlMs: 1_000, guardMs: 200, windowMs: 500, renewEveryMs: 400, retryMs: 300 },
      renews: [0, 251, 476, 701, 926],
    },
  ];
  for (const c of caps) {
    test(c.title, async (t) => {
      const w = await world(t, () => 0.5);
      const f = w.faulty();
      f.fault.down = (ms) => ms > 0;
      const a = w.keeper(f.store, recorder().events, c.settings);
      await a.acquire(0);
      a.start();
      await w.advance(c.renews.at(-1)!);
      assert.deepEqual(f.times('renew'), c.renews);
      f.fault.down = () => false;
      await a.close(null);
    });
  }

  test('a lost lease stops the loop; the node is told once', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const r = recorder();
    const a = w.keeper(f.store, r.events);
    const lease = await a.acquire(0);
    a.start();
    await w.advance(1_000);
    // Taken by hand by instance b, which claims it: a's next renewal (at 3000) sees both.
    w.db.prepare(`UPDATE idforge_leases SET instance_id = 'b' WHERE worker_id = 0`).run();
    w.db
      .prepare(
        'INSERT INTO idforge_claims (worker_id, instance_id, expires_at_ms) VALUES (0, ?, ?)',
      )
      .run('b', T0 + 60_000);
    const timers = t.mock.method(globalThis, 'setTimeout');
    await w.advance(20_000);
    assert.deepEqual(f.times('renew'), [0, 3_000]);
    assert.deepEqual(
      timers.mock.calls.map((c) => c.arguments[1]),
      [],
      'the tick that saw the loss set no timer',
    );
    assert.deepEqual(r.lost, [{ lease, duplicate: ['a', 'b'] }]);
    assert.equal(a.counters.duplicates, 1);
    assert.equal(a.lease, null);
  });
});

describe('LeaseKeeper.close', () => {
  test('releases with the exact final mark (below the reservation), clears the bounds, and is idempotent', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const a = w.keeper(f.store, recorder().events);
    const lease = await a.acquire(0);
    assert.equal(await a.renewNow(), true);
    assert.equal(await w.real.readMark(0), T0 + 8_000);
    w.clock.advance(100);
    await a.close(T0 + 50);
    assert.equal(await w.real.readMark(0), T0 + 50, 'set exactly, lower than the reservation');
    assert.deepEqual(await w.real.list(), []);
    assert.equal(a.lease, null);
    assert.equal(a.deadlineMs, NEG);
    assert.equal(a.reservedMs, NEG);
    await a.close(T0 + 60);
    assert.deepEqual(f.times('release'), [100], 'released once');
    assert.equal(await w.real.readMark(0), T0 + 50);
    assert.equal(await a.renewNow(), false);
    // The next holder starts from the final mark.
    const next = await w.keeper(w.real, recorder().events, {}, 'b').acquire(0);
    assert.equal(next.previousMarkMs, T0 + 50);
    assert.equal(next.workerId, lease.workerId);
  });

  test('close(null) releases and keeps the reserved mark', async (t) => {
    const w = await world(t);
    const a = w.keeper(w.real, recorder().events);
    await a.acquire(0);
    assert.equal(await a.renewNow(), true);
    await a.close(null);
    assert.deepEqual(await w.real.list(), []);
    assert.equal(await w.real.readMark(0), T0 + 8_000);
  });

  test('waits for a renewal in flight, then releases: the final mark wins', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const a = w.keeper(f.store, recorder().events);
    await a.acquire(0);
    let open!: () => void;
    f.fault.gate = new Promise((resolve) => {
      open = resolve;
    });
    const renewing = early(() => a.renewNow());
    await turn();
    const closing = track(() => a.close(T0 + 5));
    await turn();
    assert.deepEqual(f.calls, ['acquire@0', 'renew@0'], 'no release while the renewal is out');
    assert.equal(closing.state.settled, false);
    f.fault.gate = null;
    open();
    assert.equal(await renewing, true);
    await closing.p;
    assert.deepEqual(f.calls, ['acquire@0', 'renew@0', 'release@0']);
    assert.equal(await w.real.readMark(0), T0 + 5);
  });

  test('stops the background loop', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    const a = w.keeper(f.store, recorder().events);
    await a.acquire(0);
    a.start();
    await w.advance(100);
    await a.close(null);
    await w.advance(20_000);
    assert.deepEqual(f.calls, ['acquire@0', 'renew@0', 'release@100']);
  });

  test('stops the loop until reset(): a lease acquired after close() is not renewed before', async (t) => {
    // What the node's re-acquisition relies on: after a failed attempt closed the keeper, it
    // calls reset() before acquiring again; a closed keeper left as it is renews nothing.
    const w = await world(t);
    const f = w.faulty();
    const a = w.keeper(f.store, recorder().events);
    await a.acquire(0);
    await a.close(null);
    await a.acquire(0);
    a.start();
    await w.advance(4_000);
    assert.deepEqual(f.times('renew'), [], 'closed: start() schedules nothing');
    a.reset();
    a.start();
    await w.advance(3_000);
    assert.deepEqual(f.times('renew'), [4_000, 7_000]);
    await a.close(null);
  });

  test('without a lease: nothing sent', async (t) => {
    const w = await world(t);
    const f = w.faulty();
    await w.keeper(f.store, recorder().events).close(T0);
    assert.deepEqual(f.calls, []);
  });
});
