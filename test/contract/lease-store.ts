// The LeaseStore contract (src/coord/ports.ts), run on every backend the registry lists for
// leases by ./lease-store.test.ts (and on the HTTP lease store by lease-store-http.test.ts),
// with a function that opens a fresh, empty store of the backend's fixture
// (test/helpers/backend-fixtures.ts: a SQLite or JSON file, a PostgreSQL schema, a Redis or etcd
// key prefix).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  Lease,
  LeaseOwner,
  LeaseRequest,
  LeaseStore,
} from '../../packages/idforge/src/coord/ports.js';
import { raceInProcesses } from './fixtures/race.js';

export interface ContractOptions {
  /** Opens a fresh store with an empty namespace, migrated. */
  readonly open: () => Promise<LeaseStore>;
  /** Shortest TTL the backend honours, in ms (etcd: 2000). */
  readonly shortTtlMs: number;
  /** Reason to skip, when the server is absent and services are not required. */
  readonly skip?: string | false;
  /**
   * The store has no clock a client can read (etcd): serverTimeMs() must resolve null and
   * list() report storeClockMs null. Otherwise both must be numbers near this host's clock.
   */
  readonly clockless?: boolean;
  /**
   * For a store whose calls block their thread (SQLite): a fresh location's URL and how to open
   * it. The "concurrent" test then races separate processes on it (./fixtures/race.ts), since
   * promises in one process would run such a store's calls one after another.
   */
  readonly processes?: {
    readonly freshUrl: () => string;
    readonly open: (url: string) => Promise<LeaseStore>;
  };
}

export function owner(): LeaseOwner {
  return { instanceId: randomUUID(), host: hostname(), pid: process.pid, startedAtMs: Date.now() };
}

export function request(o: LeaseOwner, min: number, max: number, ttlMs = 30_000): LeaseRequest {
  return { min, max, ttlMs, owner: o, clockMs: Date.now(), reserveMarkMs: Date.now() + 3000 };
}

export function report(ttlMs: number, reserveMarkMs: number) {
  return { ttlMs, reserveMarkMs, clockMs: Date.now(), lastIssuedMs: Date.now() - 1 };
}

/**
 * Resolves once `lease` is no longer listed: it expired by the store's own clock. Polls list()
 * (an event wait, not a fixed sleep); fails when it is still listed `boundMs` after its TTL.
 */
export async function untilExpired(s: LeaseStore, lease: Lease, ttlMs: number): Promise<void> {
  const started = Date.now();
  const boundMs = ttlMs + 15_000;
  for (;;) {
    const live = await s.list();
    if (!live.some((r) => r.workerId === lease.workerId && r.instanceId === lease.instanceId)) {
      return;
    }
    if (Date.now() - started > boundMs) {
      assert.fail(
        `lease of worker ID ${lease.workerId} still listed ${boundMs} ms after its grant`,
      );
    }
    await sleep(Math.max(10, Math.min(100, ttlMs / 10)));
  }
}

async function withStore(open: () => Promise<LeaseStore>, fn: (s: LeaseStore) => Promise<void>) {
  const store = await open();
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

export function leaseStoreContract(name: string, options: ContractOptions): void {
  const { open, shortTtlMs } = options;
  describe(`LeaseStore contract: ${name}`, { skip: options.skip ?? false }, () => {
    test('migrate is idempotent', () =>
      withStore(open, async (s) => {
        await s.migrate();
        await s.migrate();
        assert.deepEqual(await s.list(), []);
      }));

    test('acquire grants the lowest free worker ID, distinct per owner, null when full', () =>
      withStore(open, async (s) => {
        const a = await s.acquire(request(owner(), 3, 5));
        const b = await s.acquire(request(owner(), 3, 5));
        const c = await s.acquire(request(owner(), 3, 5));
        assert.deepEqual([a?.workerId, b?.workerId, c?.workerId], [3, 4, 5]);
        assert.equal(await s.acquire(request(owner(), 3, 5)), null);
        assert.equal(await s.acquire(request(owner(), 4, 4)), null, 'a specific held ID');
        const d = await s.acquire(request(owner(), 6, 6));
        assert.equal(d?.workerId, 6, 'a specific free ID');
      }));

    test('concurrent acquires from one range never share an ID', async () => {
      // Ten acquires of [0, 7]: on SQLite from four processes at once, elsewhere as promises
      // over this store's connections (which overlap on the wire).
      const procs = options.processes;
      const url = procs?.freshUrl();
      const store = url === undefined ? await open() : await procs!.open(url);
      try {
        let got: (Pick<Lease, 'workerId' | 'instanceId'> | null)[];
        if (url === undefined) {
          got = await Promise.all(
            Array.from({ length: 10 }, () => store.acquire(request(owner(), 0, 7))),
          );
        } else {
          const call = { kind: 'lease', min: 0, max: 7, ttlMs: 30_000 } as const;
          const per = [3, 3, 2, 2].map((k) => Array.from({ length: k }, () => call));
          got = (
            await raceInProcesses<Pick<Lease, 'workerId' | 'instanceId'> | null>(url, per)
          ).flat();
        }
        const granted = got.filter((l) => l !== null);
        const ids = granted.map((l) => l.workerId);
        assert.equal(ids.length, 8);
        assert.deepEqual(
          [...ids].sort((x, y) => x - y),
          [0, 1, 2, 3, 4, 5, 6, 7],
        );
        assert.equal(got.filter((l) => l === null).length, 2);
        const listed = await store.list();
        assert.deepEqual(
          listed.map((r) => [r.workerId, r.instanceId]),
          granted.sort((x, y) => x.workerId - y.workerId).map((l) => [l.workerId, l.instanceId]),
          'the store holds exactly the grants that were reported',
        );
      } finally {
        await store.close();
      }
    });

    test('list reports each live lease with its owner, expiry and mark', () =>
      withStore(open, async (s) => {
        const o = owner();
        const before = Date.now();
        const l = await s.acquire(request(o, 9, 9, 30_000));
        assert.ok(l);
        const [r, ...rest] = await s.list();
        assert.equal(rest.length, 0);
        assert.ok(r);
        assert.equal(r.workerId, 9);
        assert.equal(r.instanceId, o.instanceId);
        assert.equal(r.host, o.host);
        assert.equal(r.pid, o.pid);
        assert.equal(r.startedAtMs, o.startedAtMs);
        assert.ok(Math.abs(r.expiresAtMs - (before + 30_000)) < 5000, `expiry ${r.expiresAtMs}`);
        assert.equal(r.markMs, l.markMs);
      }));

    test('the mark: raised by grants and renewals, never lowered by them, set at release', () =>
      withStore(open, async (s) => {
        assert.equal(await s.readMark(1), null);
        const t = Date.now();
        const o = owner();
        const l = await s.acquire({ ...request(o, 1, 1), reserveMarkMs: t + 5000 });
        assert.ok(l);
        assert.equal(l.previousMarkMs, null);
        assert.equal(l.markMs, t + 5000);
        assert.equal(await s.readMark(1), t + 5000);
        const r1 = await s.renew(l, report(30_000, t + 9000));
        assert.equal(r1.held, true);
        assert.deepEqual(r1.claimants, [o.instanceId]);
        assert.equal(await s.readMark(1), t + 9000);
        await s.renew(l, report(30_000, t + 2000));
        assert.equal(await s.readMark(1), t + 9000, 'a renewal never lowers the mark');
        await s.release(l, t + 1234);
        assert.equal(await s.readMark(1), t + 1234, 'the holder sets it exactly at release');
        const l2 = await s.acquire({ ...request(owner(), 1, 1), reserveMarkMs: t });
        assert.ok(l2);
        assert.equal(l2.previousMarkMs, t + 1234);
        assert.equal(l2.markMs, t + 1234, 'a grant never lowers the mark');
      }));

    // Issue 32 item 8: a holder that issued nothing (or a caller through the service with a
    // `lease` token) released with finalMarkMs 0 and erased the mark a former holder left, so a
    // node restarted behind it reissued that holder's IDs. The release lowers a reservation
    // made during the lease, never the mark that was there when the lease was granted.
    test('a release never lowers the mark below the one found at grant', () =>
      withStore(open, async (s) => {
        const t = Date.now();
        const first = await s.acquire({ ...request(owner(), 5, 5), reserveMarkMs: t + 9000 });
        assert.ok(first);
        await s.release(first, t + 8000);
        assert.equal(await s.readMark(5), t + 8000, 'the first holder sets it exactly');
        const eraser = await s.acquire({ ...request(owner(), 5, 5), reserveMarkMs: 0 });
        assert.equal(eraser?.previousMarkMs, t + 8000);
        await s.release(eraser, 0);
        assert.equal(await s.readMark(5), t + 8000, 'a release to 0 keeps the mark of the grant');
        const next = await s.acquire({ ...request(owner(), 5, 5), reserveMarkMs: t + 8100 });
        assert.ok(next);
        assert.equal((await s.renew(next, report(30_000, t + 20_000))).held, true);
        await s.release(next, t + 8050);
        assert.equal(
          await s.readMark(5),
          t + 8050,
          'below its reservations, above the mark found at grant: set exactly',
        );
      }));

    test('renew and release by a non-holder change nothing', () =>
      withStore(open, async (s) => {
        const l = await s.acquire(request(owner(), 2, 2));
        assert.ok(l);
        const fake: Lease = { ...l, instanceId: randomUUID() };
        const r = await s.renew(fake, report(30_000, Date.now() + 60_000));
        assert.equal(r.held, false);
        assert.deepEqual(r.claimants, [l.instanceId]);
        assert.equal(await s.readMark(2), l.markMs, 'a non-holder cannot raise the mark');
        await s.release(fake, 0);
        assert.equal(await s.readMark(2), l.markMs, 'nor set it at release');
        assert.equal((await s.list()).length, 1);
        await s.release(l, null);
        await s.release(l, null);
        assert.deepEqual(await s.list(), [], 'release is idempotent');
        assert.equal(await s.readMark(2), l.markMs, 'release without a final mark keeps it');
      }));

    test('an expired lease is free again and its holder can no longer renew it', () =>
      withStore(open, async (s) => {
        const a = owner();
        const old = await s.acquire(request(a, 0, 0, shortTtlMs));
        assert.ok(old);
        assert.equal(await s.acquire(request(owner(), 0, 0)), null);
        await untilExpired(s, old, shortTtlMs);
        assert.deepEqual(await s.list(), []);
        // Expired, and nobody took the ID yet: the former holder still cannot renew it.
        const before = await s.renew(old, report(30_000, Date.now() + 60_000));
        assert.equal(before.held, false, 'renewed after expiry, before anyone took the ID');
        assert.ok(!before.claimants.includes(a.instanceId), `claimants ${before.claimants}`);
        const o = owner();
        const next = await s.acquire(request(o, 0, 0));
        assert.equal(next?.workerId, 0);
        const r = await s.renew(old, report(30_000, Date.now() + 60_000));
        assert.equal(r.held, false, 'renewed after another instance took the ID');
        assert.deepEqual(r.claimants, [o.instanceId]);
        assert.equal(await s.readMark(0), next?.markMs, 'the former holder raised no mark');
        assert.deepEqual(
          (await s.list()).map((l) => l.instanceId),
          [o.instanceId],
        );
      }));

    test('renewing an expired lease (nobody took it yet) returns not-held and changes nothing', () =>
      withStore(open, async (s) => {
        const l = await s.acquire(request(owner(), 4, 4, shortTtlMs));
        assert.ok(l);
        await untilExpired(s, l, shortTtlMs);
        const r = await s.renew(l, report(30_000, Date.now() + 60_000));
        assert.equal(r.held, false);
        assert.deepEqual(r.claimants, []);
        assert.deepEqual(await s.list(), [], 'the renewal did not bring the lease back');
        assert.equal(await s.readMark(4), l.markMs, 'nor raise the mark');
        const again = await s.renew(l, report(30_000, Date.now() + 60_000));
        assert.equal(again.held, false, 'a second try fails the same way');
        const next = await s.acquire(request(owner(), 4, 4));
        assert.equal(next?.workerId, 4, 'the ID is free to anyone');
        assert.equal(next.previousMarkMs, l.markMs);
      }));

    test('a renewal extends the lease past its first TTL', () =>
      withStore(open, async (s) => {
        const l = await s.acquire(request(owner(), 0, 0, shortTtlMs));
        assert.ok(l);
        for (let i = 0; i < 3; i++) {
          await sleep(shortTtlMs / 2);
          assert.equal((await s.renew(l, report(shortTtlMs, Date.now()))).held, true);
        }
        assert.equal(await s.acquire(request(owner(), 0, 0)), null);
      }));

    if (options.clockless) {
      test('no store clock: serverTimeMs is null and leases list storeClockMs null', () =>
        withStore(open, async (s) => {
          assert.equal(await s.serverTimeMs(), null);
          assert.ok(await s.acquire(request(owner(), 0, 0)));
          const [r] = await s.list();
          assert.equal(r?.storeClockMs, null);
        }));
    } else {
      test('serverTimeMs is the store clock, near this host clock, and stamps the leases', () =>
        withStore(open, async (s) => {
          const before = Date.now();
          const t = await s.serverTimeMs();
          assert.equal(typeof t, 'number', `server time ${t}`);
          assert.ok(Math.abs(t! - before) < 2000, `server time ${t}, host ${before}`);
          assert.ok(await s.acquire(request(owner(), 0, 0, 30_000)));
          const [r] = await s.list();
          assert.ok(r && typeof r.storeClockMs === 'number', `storeClockMs ${r?.storeClockMs}`);
          assert.ok(Math.abs(r.storeClockMs - t!) < 2000, `stamped ${r.storeClockMs}`);
          // Within a millisecond: Redis reports expiry as its clock at list time + PTTL, each
          // truncated to whole ms at a different instant, so the sum may land 1 ms short.
          const off = r.expiresAtMs - (r.storeClockMs + 30_000);
          assert.ok(Math.abs(off) <= 1, `expiry is the store clock + TTL (off by ${off} ms)`);
        }));
    }
  });
}

/**
 * For a store whose clock a test can set (SQLite, file): a lease expires AT its expiry
 * millisecond. A renewal one ms before it holds; one at that exact ms finds it expired, as a
 * grant would (both read "expired" as expiresAtMs <= now), and changes nothing, so that a
 * renewal and a grant at one instant never both win.
 */
export function expiryBoundary(name: string, open: (now: () => number) => Promise<LeaseStore>) {
  test(`${name}: a renewal at the exact expiry millisecond is too late, one ms before holds`, async () => {
    let now = 1_000_000;
    const s = await open(() => now);
    try {
      const l = await s.acquire(request(owner(), 0, 0, 10_000));
      assert.ok(l);
      now += 9_999;
      assert.equal((await s.renew(l, report(10_000, 0))).held, true, 'one ms before expiry');
      now += 10_000; // exactly the renewed expiry
      const late = await s.renew(l, report(10_000, 0));
      assert.deepEqual(late, { held: false, claimants: [] }, 'at the expiry ms');
      assert.deepEqual(await s.list(), [], 'the late renewal brought nothing back');
      assert.equal((await s.acquire(request(owner(), 0, 0)))?.workerId, 0, 'free to a grant');
    } finally {
      await s.close();
    }
  });
}
