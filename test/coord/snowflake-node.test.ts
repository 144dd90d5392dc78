// The Snowflake node on the embedded SQLite store: leases, marks, fencing, duplicates and the
// fleet clock check, with clocks injected as offsets from the real one.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import {
  BehindMarkError,
  ClockSkewError,
  createSnowflakeNode,
} from '../../packages/idforge/src/coord/index.js';
import type { LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import {
  type Clock,
  decompose,
  getLayout,
  IdforgeError,
  ManualClock,
  SnowflakeGenerator,
} from '../../packages/idforge/src/core/index.js';
import { blockingSleep } from '../../packages/idforge/src/core/internal.js';
import { openLeaseStore } from '../../packages/stores/src/open.js';
import { faultyStore } from '../helpers/fault-store.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { suiteTempDir } from '../helpers/temp.js';
import { early, waitFor } from '../helpers/wait.js';

const dir = suiteTempDir('idforge-node-');
let n = 0;
const layout = getLayout('default');

function freshUrl(): string {
  return `sqlite:${join(dir, `node-${n++}.db`)}`;
}

function offsetClock(offsetMs: () => number): Clock {
  return {
    now: () => Math.floor(Date.now() + offsetMs()),
    nowPrecise: () => Date.now() + offsetMs(),
    sleep: blockingSleep,
  };
}

const quiet = { logger: memoryLogger(), maxSkewMs: Number.POSITIVE_INFINITY };

/**
 * `p`, or a rejection naming `what` after `ms`: a bound on an event wait, for waits whose own
 * timeout runs on a ManualClock that the test does not move (they would never time out).
 */
async function within<T>(p: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([p, bound]);
  } finally {
    clearTimeout(timer);
  }
}

function workerOf(id: bigint): number {
  return decompose(layout, id).fields.node!;
}

describe('SnowflakeNode on SQLite', () => {
  test('nodes sharing a store get distinct worker IDs and log them', async () => {
    const url = freshUrl();
    const stores: LeaseStore[] = [];
    const nodes = [];
    for (let i = 0; i < 3; i++) {
      const store = await openLeaseStore(url);
      stores.push(store);
      const logger = memoryLogger();
      nodes.push(await createSnowflakeNode({ store, workerIds: [5, 9], logger }));
      assert.match(logger.lines.join('\n'), new RegExp(`worker ID ${5 + i} \\(node`));
    }
    assert.deepEqual(
      nodes.map((x) => x.workerId),
      [5, 6, 7],
    );
    for (const node of nodes) {
      const ids = node.batch(5000);
      assert.ok(ids.every((id) => workerOf(id) === node.workerId));
    }
    assert.equal((await stores[0]!.list()).length, 3);
    for (const node of nodes) await node.close();
    assert.deepEqual(await stores[0]!.list(), []);
    for (const s of stores) await s.close();
  });

  test('close records the exact mark; a restart continues above every ID issued', async () => {
    const url = freshUrl();
    const store = await openLeaseStore(url);
    const a = await createSnowflakeNode({ store, workerIds: 1, ...quiet });
    const first = a.batch(10_000);
    const last = first.at(-1)!;
    await a.close();
    const mark = await store.readMark(1);
    const lastTickStart = decompose(layout, last).unixMs;
    assert.equal(mark, lastTickStart + 1, 'exclusive bound just past the last tick');
    const b = await createSnowflakeNode({ store, workerIds: 1, ...quiet });
    assert.ok(b.next() > last);
    await b.close();
    await store.close();
  });

  test('a clock behind the mark within tolerance is waited out, beyond it fails typed', async () => {
    const url = freshUrl();
    const store = await openLeaseStore(url);
    const a = await createSnowflakeNode({ store, workerIds: 2, ...quiet });
    const last = a.batch(1000).at(-1)!;
    await a.close();
    // Restart with the clock 800 ms behind: it waits until its own clock is past the mark,
    // then issues above `last` (what proves the wait is the first ID's time, not a stopwatch).
    const mark = (await store.readMark(2))!;
    const logger = memoryLogger();
    const b = await createSnowflakeNode({
      store,
      workerIds: 2,
      clock: offsetClock(() => -800),
      markToleranceMs: 2000,
      maxSkewMs: Number.POSITIVE_INFINITY,
      logger,
    });
    assert.match(logger.lines.join('\n'), /behind its high-water mark; waiting/);
    const firstAfter = b.next();
    assert.ok(firstAfter > last);
    assert.ok(decompose(layout, firstAfter).unixMs >= mark, 'issued only past the mark');
    await b.close();
    // 10 s behind with a 2 s tolerance: BehindMarkError naming the gap; the lease is released.
    await assert.rejects(
      createSnowflakeNode({
        store,
        workerIds: 2,
        clock: offsetClock(() => -10_000),
        markToleranceMs: 2000,
        ...quiet,
      }),
      (e: unknown) =>
        e instanceof BehindMarkError && e.gapMs > 9000 && e.gapMs < 11_000 && e.workerId === 2,
    );
    assert.deepEqual(await store.list(), []);
    await store.close();
  });

  test('a clock behind the mark that does not move refuses until it is past the mark', async () => {
    // The start waits out the gap in real time; a clock that did not move meanwhile (stopped,
    // stepped back again) is still behind, and only the mark floor keeps IDs above the last
    // holder's.
    const store = await openLeaseStore(freshUrl());
    const clock = new ManualClock(Date.now());
    const a = await createSnowflakeNode({ store, workerIds: 7, clock, ...quiet });
    clock.advance(500);
    const last = a.next();
    await a.close();
    const mark = (await store.readMark(7))!;
    clock.set(mark - 40);
    const b = await createSnowflakeNode({ store, workerIds: 7, clock, ...quiet });
    try {
      assert.throws(
        () => b.next(),
        (e: unknown) =>
          e instanceof IdforgeError &&
          e.code === 'IDF_NOT_READY' &&
          /past the high-water/.test(e.message),
        'refused while the clock is behind the mark',
      );
      assert.equal(b.readiness.pastMark, false);
      clock.set(mark);
      const first = b.next();
      assert.ok(first > last);
      assert.ok(decompose(layout, first).unixMs >= mark, 'issued only past the mark');
    } finally {
      await b.close();
      await store.close();
    }
  });

  test('store down while running: issues until the lease deadline, stops, then recovers', async () => {
    // An injected clock: the deadline is exact (last renewal sent + ttl - guard), not a window.
    const clock = new ManualClock(Date.now());
    const real = await openLeaseStore(freshUrl());
    const { store, control } = faultyStore(real);
    const node = await createSnowflakeNode({
      store,
      workerIds: 3,
      ttlMs: 1500,
      renewEveryMs: 200,
      retryMs: 50,
      clock,
      ...quiet,
    });
    try {
      const t0 = clock.now(); // every renewal so far was sent at t0: the clock has not moved
      node.next();
      control.down = true;
      const deadline = node.readiness.deadlineMs!;
      assert.equal(deadline, t0 + 1500 - 300, 'last renewal sent + ttl - guard (ttl / 5)');
      clock.set(deadline - 1); // the last 1 ms tick that ends by the deadline
      assert.equal(workerOf(node.next()), 3, 'still issuing up to the deadline');
      clock.set(deadline);
      let error: unknown;
      try {
        node.next();
      } catch (e) {
        error = e;
      }
      assert.ok(error instanceof IdforgeError, `stopped with ${String(error)}`);
      assert.equal(error.code, 'IDF_LEASE_LOST');
      // Waiting does not water the refusal down: when batchAsync's wait runs out it rejects
      // with the fence's LeaseLostError, not the wait's NotReadyError (the service answers
      // with that code).
      const waiting = early(() => node.batchAsync(1, 100));
      await new Promise((r) => setImmediate(r));
      clock.advance(101);
      await assert.rejects(within(waiting, 'batchAsync to give up'), { code: 'IDF_LEASE_LOST' });
      await waitFor(() => node.metrics.renewalFailures > 0, 'a failed renewal');
      assert.equal(node.readiness.ready, false);
      // Given time, batchAsync waits through the fence (a lost lease may come back) instead.
      const through = early(() => node.batchAsync(2, 60_000));
      control.down = false;
      const ids = await within(through, 'batchAsync to issue once the store is back');
      assert.deepEqual(ids.map(workerOf), [3, 3]);
      await within(
        early(() => node.whenReady()),
        'ready again once the store is back',
      );
      assert.equal(workerOf(node.next()), 3);
    } finally {
      await node.close();
      await real.close();
    }
  });

  test('a slow store: the node waits at the mark reservation instead of issuing past it', async () => {
    const clock = new ManualClock(Date.now());
    const real = await openLeaseStore(freshUrl());
    const faulty = faultyStore(real);
    const { control } = faulty;
    // Signals the first renewal sent while the store stalls (the keeper's, on its own timer).
    let stalledRenewal!: () => void;
    const renewing = new Promise<void>((r) => {
      stalledRenewal = r;
    });
    const store = {
      ...faulty.store,
      renew: (...args: Parameters<LeaseStore['renew']>) => {
        if (control.stall !== null) stalledRenewal();
        return faulty.store.renew(...args);
      },
    };
    const node = await createSnowflakeNode({
      store,
      workerIds: 4,
      ttlMs: 5000,
      markWindowMs: 300,
      clock,
      ...quiet,
    });
    let release!: () => void;
    control.stall = new Promise<void>((r) => {
      release = r;
    });
    try {
      const reserved = node.readiness.reservedMs!;
      clock.set(reserved - 1);
      const id = node.next();
      assert.ok(decompose(layout, id).unixMs < reserved, 'issues below the reservation');
      clock.set(reserved);
      assert.throws(
        () => node.next(),
        (e: unknown) => e instanceof IdforgeError && e.code === 'IDF_NOT_READY',
        'never at or past the reservation',
      );
      let settled = false;
      const waiting = early(() => node.batchAsync(3, 3000));
      void waiting.then(
        () => {
          settled = true;
        },
        () => {
          settled = true;
        },
      );
      await within(renewing, 'the renewal that reserves further, stalled');
      assert.equal(settled, false, 'batchAsync waits while the reservation is not persisted');
      assert.equal(node.readiness.ready, false);
      control.stall = null;
      release();
      const ids = await within(waiting, 'batchAsync once the store answers');
      assert.equal(ids.length, 3);
      assert.ok((await real.readMark(4))! > decompose(layout, ids[2]!).unixMs);
    } finally {
      control.stall = null;
      release();
      await node.close();
      await real.close();
    }
  });

  test('two live instances on one worker ID (store edited by hand): both stop, loudly', async () => {
    const url = freshUrl();
    const storeA = await openLeaseStore(url);
    const storeB = await openLeaseStore(url);
    const logA = memoryLogger();
    const logB = memoryLogger();
    const common = {
      workerIds: 6,
      ttlMs: 3000,
      renewEveryMs: 100,
      markWindowMs: 100,
      maxSkewMs: Infinity,
    };
    const faultyA = faultyStore(storeA);
    const a = await createSnowflakeNode({ store: faultyA.store, logger: logA, ...common });
    a.next();
    // A's renewals stall briefly; meanwhile someone deletes A's lease row by hand and B takes
    // worker ID 6 while A still runs, inside its deadline.
    let unstall!: () => void;
    faultyA.control.stall = new Promise<void>((r) => {
      unstall = r;
    });
    const db = new Database(url.slice('sqlite:'.length));
    db.prepare('DELETE FROM idforge_leases WHERE worker_id = 6').run();
    db.close();
    const b = await createSnowflakeNode({ store: storeB, logger: logB, ...common });
    faultyA.control.stall = null;
    unstall();
    assert.equal(b.workerId, 6);
    // Each sees the other's claim at its next renewal (every 100 ms).
    await waitFor(
      () => a.metrics.duplicatesDetected >= 1 && b.metrics.duplicatesDetected >= 1,
      'both instances to detect the duplicate',
    );
    assert.throws(() => a.next(), /not ready|fenced|claimed|DUPLICATE|duplicate/i);
    assert.throws(
      () => b.batch(2000),
      (e: unknown) => (e as IdforgeError).code === 'IDF_DUPLICATE_WORKER',
    );
    assert.match(logA.lines.join('\n'), /error idforge: DUPLICATE WORKER ID/);
    assert.match(logB.lines.join('\n'), /error idforge: DUPLICATE WORKER ID/);
    assert.ok(a.metrics.duplicatesDetected >= 1 && b.metrics.duplicatesDetected >= 1);
    // A's claim expires with its lease TTL; B, the holder, then resumes.
    await b.whenReady(5000);
    assert.equal(workerOf(b.next()), 6);
    // B saw the claim at every renewal while it lasted, yet says so once, and once that it resumes.
    const count = (re: RegExp) => logB.lines.filter((l) => re.test(l)).length;
    assert.ok(b.metrics.duplicatesDetected >= 1);
    assert.equal(count(/DUPLICATE WORKER ID/), 1, logB.lines.join('\n'));
    assert.equal(count(/the other claim on our worker ID has expired; resuming/), 1);
    await a.close();
    await b.close();
    await storeA.close();
    await storeB.close();
  });

  test('the fleet clock check refuses a node whose clock is off, with the measured skew', async () => {
    const url = freshUrl();
    const storeA = await openLeaseStore(url);
    const storeB = await openLeaseStore(url);
    const a = await createSnowflakeNode({ store: storeA, logger: memoryLogger() });
    await assert.rejects(
      createSnowflakeNode({
        store: storeB,
        clock: offsetClock(() => 3000),
        maxSkewMs: 1000,
        logger: memoryLogger(),
      }),
      (e: unknown) => e instanceof ClockSkewError && e.skewMs > 2800 && e.skewMs < 3200,
    );
    assert.equal((await storeA.list()).length, 1, 'the refused node released its lease');
    const c = await createSnowflakeNode({
      store: storeB,
      clock: offsetClock(() => 200),
      logger: memoryLogger(),
    });
    await c.close();
    await a.close();
    await storeA.close();
    await storeB.close();
  });
  test('a generator factory gets the leased worker ID and the fence; the node keeps its metrics', async () => {
    const store = await openLeaseStore(freshUrl());
    const inits: { fields: Readonly<Record<string, number>> }[] = [];
    const admitted: number[] = [];
    const node = await createSnowflakeNode({
      store,
      workerIds: 7,
      ...quiet,
      generator: (init) => {
        inits.push(init);
        // Another kind of generator over the same fence: it records each admitted tick.
        return new SnowflakeGenerator({
          ...init,
          admit: (t) => {
            init.admit(t);
            admitted.push(t);
          },
        });
      },
    });
    assert.deepEqual(
      inits.map((i) => i.fields),
      [{ node: 7 }],
    );
    const ids = node.batch(100);
    assert.ok(ids.every((id) => workerOf(id) === 7));
    assert.ok(admitted.length >= 1, 'the factory generator went through the node fence');
    assert.equal(node.metrics.issued, 100);
    await node.close();
    // Closed: the fence refuses, whatever generator the factory made.
    assert.throws(() => node.next(), /closed/);
    await store.close();
    await assert.rejects(
      createSnowflakeNode({ store, generator: 'x' as never, ...quiet }),
      /createSnowflakeNode generator: expected a function/,
    );
  });
});
