// The Snowflake node's edges that the main suite does not pin (found by the mutation run,
// issue 34): the issued count across a close, readiness agreeing with next() at the lease
// deadline's last tick, a failed worker-ID switch retried after exactly 8 x retryMs, a
// duplicate claim's end logged once, when it ends (and a wait that runs out during it giving
// the claim), a lost lease leased again, and a failed re-acquisition leaving no generator.
// SQLite store, injected clocks.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import {
  createSnowflakeNode,
  type NodeLogger,
  NotReadyError,
} from '../../packages/idforge/src/coord/index.js';
import type { LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import {
  ClockRollbackError,
  decompose,
  type IdforgeError,
  ManualClock,
} from '../../packages/idforge/src/core/index.js';
import { openLeaseStore } from '../../packages/stores/src/open.js';
import { faultyStore } from '../helpers/fault-store.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { waitFor } from '../helpers/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-node-edges-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const freshStore = () => openLeaseStore(`sqlite:${join(dir, `edges-${n++}.db`)}`);

const quiet = () => ({ logger: memoryLogger(), maxSkewMs: Number.POSITIVE_INFINITY });

test('metrics.issued still counts the IDs issued before a close', async () => {
  const store = await freshStore();
  const node = await createSnowflakeNode({ store, workerIds: 1, ...quiet() });
  node.batch(7);
  node.next();
  assert.equal(node.metrics.issued, 8);
  await node.close();
  assert.equal(node.metrics.issued, 8, 'the retired generator counted');
  await store.close();
});

test("readiness at the lease deadline's last tick agrees with next(): held, then not", async () => {
  const clock = new ManualClock(Date.now());
  const real = await freshStore();
  const { store, control } = faultyStore(real);
  const node = await createSnowflakeNode({
    store,
    workerIds: 3,
    ttlMs: 1500,
    renewEveryMs: 200,
    retryMs: 50,
    clock,
    ...quiet(),
  });
  try {
    control.down = true; // no renewal moves the deadline from here on
    const deadline = node.readiness.deadlineMs!;
    clock.set(deadline - 1); // the last 1 ms tick that ends by the deadline
    assert.equal(node.readiness.leaseHeld, true);
    assert.equal(node.readiness.ready, true, node.readiness.reason);
    node.next();
    clock.set(deadline);
    assert.equal(node.readiness.leaseHeld, false);
    assert.throws(
      () => node.next(),
      (e: unknown) => (e as IdforgeError).code === 'IDF_LEASE_LOST',
    );
  } finally {
    control.down = false;
    await node.close();
    await real.close();
  }
});

test('a switch that found no worker ID is tried again after exactly 8 x retryMs', async () => {
  const store = await freshStore();
  const clock = new ManualClock(Date.now());
  // Worker ID 1's mark is at the clock: no candidate below a clock stepped back a minute.
  const other = await createSnowflakeNode({ store, workerIds: 1, clock, ...quiet() });
  other.batch(10);
  await other.close();
  const logger = memoryLogger();
  const retryMs = 100;
  const node = await createSnowflakeNode({
    store,
    clock,
    logger,
    workerIds: [0, 1],
    retryMs,
    onLargeRollback: 'switch-worker',
    maxSkewMs: Number.POSITIVE_INFINITY,
  });
  try {
    node.batch(10);
    clock.advance(-60_000);
    assert.throws(() => node.next(), NotReadyError, 'the first step back starts a switch');
    await waitFor(() => /below the clock: refusing/.test(logger.lines.join('\n')), 'no candidate');
    await waitFor(() => !/switching/.test(node.readiness.reason), 'the switch attempt over');
    const failedAt = clock.now(); // the clock has not moved since the switch began
    clock.set(failedAt + 8 * retryMs - 1);
    assert.throws(() => node.next(), ClockRollbackError, 'backing off: the rollback itself');
    clock.set(failedAt + 8 * retryMs);
    assert.throws(
      () => node.next(),
      (e: unknown) => e instanceof NotReadyError && /switching worker ID/.test(e.message),
      'tried again after 8 x retryMs',
    );
    await waitFor(() => !/switching/.test(node.readiness.reason), 'the second attempt over');
  } finally {
    await node.close();
    await store.close();
  }
});

test("a duplicate claim's end is logged once, when the claim is gone", async () => {
  const real = await freshStore();
  let intruder = false;
  const store: LeaseStore = {
    backend: real.backend,
    address: real.address,
    migrate: () => real.migrate(),
    acquire: (r) => real.acquire(r),
    renew: async (lease, report) => {
      const result = await real.renew(lease, report);
      return intruder ? { ...result, claimants: [...result.claimants, 'intruder'] } : result;
    },
    release: (l, m) => real.release(l, m),
    list: () => real.list(),
    readMark: (w) => real.readMark(w),
    serverTimeMs: () => real.serverTimeMs(),
    close: () => real.close(),
  };
  const logger = memoryLogger();
  const node = await createSnowflakeNode({
    store,
    workerIds: 2,
    renewEveryMs: 20,
    logger,
    maxSkewMs: Number.POSITIVE_INFINITY,
  });
  const resuming = () => logger.lines.filter((l) => /claim .* has expired; resuming/.test(l));
  try {
    intruder = true;
    await waitFor(() => node.metrics.duplicatesDetected === 1, 'the claim seen');
    const seenAt = node.metrics.renewals;
    await waitFor(() => node.metrics.renewals >= seenAt + 3, 'three renewals with the claim');
    assert.deepEqual(resuming(), [], 'nothing said while the claim lasts');
    assert.throws(
      () => node.next(),
      (e: unknown) => (e as IdforgeError).code === 'IDF_DUPLICATE_WORKER',
    );
    await assert.rejects(
      node.whenReady(0),
      (e: unknown) => (e as IdforgeError).code === 'IDF_DUPLICATE_WORKER',
      'a wait that runs out gives the claim, not a bare NotReadyError',
    );
    intruder = false;
    await node.whenReady(10_000);
    assert.equal(resuming().length, 1);
    node.next();
  } finally {
    await node.close();
    await real.close();
  }
});

test('a node whose lease row is deleted loses it, then leases again and issues', async () => {
  const file = join(dir, `edges-${n++}.db`);
  const store = await openLeaseStore(`sqlite:${file}`);
  const node = await createSnowflakeNode({
    store,
    workerIds: 4,
    renewEveryMs: 20,
    retryMs: 20,
    ...quiet(),
  });
  try {
    node.next();
    const db = new Database(file);
    db.prepare('DELETE FROM idforge_leases WHERE worker_id = 4').run();
    db.close();
    await waitFor(() => node.metrics.leasesLost >= 1, 'the loss seen at a renewal');
    await node.whenReady(20_000);
    assert.equal(node.workerId, 4);
    assert.ok(node.next() > 0n);
    assert.ok(node.metrics.leasesAcquired >= 2, 'leased again');
  } finally {
    await node.close();
    await store.close();
  }
});

test('a re-acquisition that fails once its generator is built leaves none behind', async () => {
  // The last step of an activation is the "leased" log line: a logger that throws there fails
  // the attempt after the generator exists. Until the next attempt, next() must give that
  // failure, as for any failed attempt, not reach a generator whose lease was given back.
  const file = join(dir, `edges-${n++}.db`);
  const store = await openLeaseStore(`sqlite:${file}`);
  const failure = new NotReadyError('the logger failed');
  let throwAt = Number.POSITIVE_INFINITY;
  let leased = 0;
  const logger: NodeLogger = {
    info: (m) => {
      if (/ leased from /.test(m) && ++leased === throwAt) throw failure;
    },
    warn: () => {},
    error: () => {},
  };
  const node = await createSnowflakeNode({
    store,
    workerIds: 5,
    ttlMs: 2_000, // the deleted lease's claim keeps worker ID 5 until it expires
    renewEveryMs: 20,
    // The attempts are ~retryMs apart (jittered, from retryMs / 2): long enough to look.
    retryMs: 10_000,
    logger,
    maxSkewMs: Number.POSITIVE_INFINITY,
  });
  try {
    node.next();
    throwAt = leased + 1;
    const db = new Database(file);
    db.prepare('DELETE FROM idforge_leases WHERE worker_id = 5').run();
    db.close();
    await waitFor(() => leased === throwAt, 'the failed re-acquisition');
    await waitFor(() => node.readiness.reason === failure.message, 'the failure as the reason');
    const refused = node.metrics.fencedRefusals;
    assert.throws(
      () => node.next(),
      (e: unknown) => e === failure,
    );
    assert.equal(node.metrics.fencedRefusals, refused, 'no generator asked');
    assert.equal(node.workerId, null);
  } finally {
    await node.close();
    await store.close();
  }
});

test('a lease lost while a worker switch leases another: the switch stands, from no worker ID, and the IDs carry the worker ID held', async () => {
  const file = join(dir, `edges-${n++}.db`);
  const real = await openLeaseStore(`sqlite:${file}`);
  // While `gate` is set, each acquire waits in `held` until the test lets it go, in order.
  const held: (() => void)[] = [];
  let gate = false;
  const store: LeaseStore = {
    backend: real.backend,
    address: real.address,
    migrate: () => real.migrate(),
    acquire: async (r) => {
      if (gate) await new Promise<void>((go) => held.push(go));
      return real.acquire(r);
    },
    renew: (lease, report) => real.renew(lease, report),
    release: (l, m) => real.release(l, m),
    list: () => real.list(),
    readMark: (w) => real.readMark(w),
    serverTimeMs: () => real.serverTimeMs(),
    close: () => real.close(),
  };
  const clock = new ManualClock(Date.now());
  const logger = memoryLogger();
  const node = await createSnowflakeNode({
    store,
    clock,
    logger,
    workerIds: [0, 2],
    renewEveryMs: 20,
    retryMs: 20,
    onLargeRollback: 'switch-worker',
    maxSkewMs: Number.POSITIVE_INFINITY,
  });
  try {
    node.batch(10);
    assert.equal(node.workerId, 0);
    gate = true;
    const t = clock.now();
    clock.set(t - 60_000);
    assert.throws(() => node.next(), NotReadyError, 'the step back starts a switch');
    await waitFor(() => held.length === 1, "the switch's acquire, held");
    // The clock back where it was: renewals are due again, and the next one finds the lease
    // gone; the re-acquisition that follows waits behind the switch's acquire.
    clock.set(t + 100);
    const db = new Database(file);
    db.prepare('DELETE FROM idforge_leases WHERE worker_id = 0').run();
    db.close();
    await waitFor(() => held.length === 2, "the re-acquisition's acquire, held");
    assert.equal(node.metrics.leasesLost, 1);
    gate = false;
    held[0]!();
    await waitFor(() => node.lastSwitch !== null && node.readiness.ready, 'the switch done');
    const to = node.lastSwitch!.toWorkerId;
    assert.deepEqual(
      [node.lastSwitch!.fromWorkerId, node.workerId],
      [-1, to],
      'switched from no worker ID (the lease was lost meanwhile)',
    );
    // Worker ID 0's mark now below the clock, the re-acquisition goes ahead.
    clock.set(t + 60_000);
    held[1]!();
    // The re-acquisition gets worker ID 0 back once the switch stands: it gives it back. (It
    // once built the generator for 0 on the switch's keeper, which renews 1: IDs of worker ID 0
    // that no lease kept.)
    await waitFor(
      async () => (await real.list()).every((l) => l.workerId !== 0),
      'worker ID 0 given back',
    );
    await node.whenReady(20_000);
    assert.equal(decompose(node.layout, node.next()).fields.node, to, 'IDs of the worker ID held');
    assert.deepEqual(
      (await real.list()).map((l) => l.workerId),
      [to],
    );
  } finally {
    gate = false;
    for (const go of held) go();
    await node.close();
    await real.close();
  }
});
