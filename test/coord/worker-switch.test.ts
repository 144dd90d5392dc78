// Issue 23 §2: a node whose clock steps back past what it waits out switches worker ID
// (`onLargeRollback: 'switch-worker'`) instead of refusing until the clock catches up: running
// (the generator's rollback, or a clock gone back past the last renewal) and at a grant (a
// worker ID's mark far ahead). Every branch on the embedded SQLite store with injected clocks:
// the switch, the default refusal, no worker ID below the clock (refusal as before), the
// candidates given back with their marks untouched, and 0 duplicates across the step.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  BehindMarkError,
  createSnowflakeNode,
  NotReadyError,
} from '../../packages/idforge/src/coord/index.js';
import {
  type Clock,
  ClockRollbackError,
  decompose,
  getLayout,
} from '../../packages/idforge/src/core/index.js';
import { blockingSleep } from '../../packages/idforge/src/core/internal.js';
import { openLeaseStore } from '../../packages/stores/src/open.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { suiteTempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const dir = suiteTempDir('idforge-switch-');
let n = 0;
const layout = getLayout('default');
const HOUR = 3_600_000;

/** A store of its own per test. */
const freshStore = () => openLeaseStore(`sqlite:${join(dir, `switch-${n++}.db`)}`);

/** The real clock plus an offset the test moves (a step back: a negative offset). */
function steppedClock(): Clock & { offsetMs: number } {
  const c = {
    offsetMs: 0,
    now: () => Math.floor(Date.now() + c.offsetMs),
    nowPrecise: () => Date.now() + c.offsetMs,
    sleep: blockingSleep,
  };
  return c;
}

const base = { maxSkewMs: Number.POSITIVE_INFINITY, readyTimeoutMs: 5000 };
const workerOf = (id: bigint) => decompose(layout, id).fields.node!;

/** Leaves worker ID `w`'s mark at about now + `aheadMs` (a node issued there and closed). */
async function markAhead(url: Awaited<ReturnType<typeof freshStore>>, w: number, aheadMs: number) {
  const clock = steppedClock();
  clock.offsetMs = aheadMs;
  const node = await createSnowflakeNode({
    ...base,
    store: url,
    workerIds: w,
    clock,
    logger: memoryLogger(),
  });
  const last = node.batch(10).at(-1)!;
  await node.close();
  return decompose(layout, last).unixMs + 1;
}

describe("onLargeRollback: 'switch-worker'", () => {
  test('running: a step back of a minute switches worker ID; 0 duplicates; the old mark exact', async () => {
    const store = await freshStore();
    const clock = steppedClock();
    const logger = memoryLogger();
    const node = await createSnowflakeNode({
      ...base,
      store,
      clock,
      logger,
      workerIds: [0, 3],
      onLargeRollback: 'switch-worker',
    });
    const before = node.batch(20_000);
    const from = node.workerId!;
    clock.offsetMs = -60_000;
    assert.throws(
      () => node.next(),
      (e: unknown) =>
        e instanceof NotReadyError &&
        /switching worker ID: the clock stepped back \d+ ms/.test(e.message),
    );
    assert.match(node.readiness.reason, /switching worker ID/);
    await node.whenReady();
    const afterIds = node.batch(20_000);
    assert.notEqual(node.workerId, from);
    assert.equal(new Set([...before, ...afterIds]).size, 40_000, 'no ID repeats across the step');
    assert.ok(afterIds.every((id) => workerOf(id) === node.workerId));
    assert.ok(afterIds[0]! < before.at(-1)!, 'the IDs after the step sort below those before it');
    assert.equal(node.metrics.workerSwitches, 1);
    assert.deepEqual(
      { ...node.lastSwitch!, stepMs: 0, atMs: 0 },
      { fromWorkerId: from, toWorkerId: node.workerId, stepMs: 0, atMs: 0 },
    );
    assert.ok(node.lastSwitch!.stepMs > 59_000);
    assert.match(logger.text(), new RegExp(`switched to worker ID ${node.workerId}`));
    // The old worker ID was released with the end of its last tick, exactly.
    assert.equal(await store.readMark(from), decompose(layout, before.at(-1)!).unixMs + 1);
    assert.deepEqual(
      (await store.list()).map((l) => l.workerId),
      [node.workerId],
    );
    await node.close();
    await store.close();
  });

  test('refuse (the default): the same step refuses with ClockRollbackError, as before', async () => {
    const store = await freshStore();
    const clock = steppedClock();
    const node = await createSnowflakeNode({
      ...base,
      store,
      clock,
      logger: memoryLogger(),
      workerIds: [0, 3],
    });
    node.batch(100);
    clock.offsetMs = -60_000;
    assert.throws(() => node.next(), ClockRollbackError);
    assert.equal(node.workerId, 0);
    assert.equal(node.metrics.workerSwitches, 0);
    await node.close();
    await store.close();
  });

  test('no worker ID below the clock: refuses as without the switch, says so, marks untouched', async () => {
    const store = await freshStore();
    const mark1 = await markAhead(store, 1, 0);
    const clock = steppedClock();
    const logger = memoryLogger();
    const node = await createSnowflakeNode({
      ...base,
      store,
      clock,
      logger,
      workerIds: [0, 1],
      onLargeRollback: 'switch-worker',
    });
    assert.equal(node.workerId, 0);
    node.batch(100);
    clock.offsetMs = -60_000;
    assert.throws(() => node.next(), NotReadyError);
    await waitFor(
      () => /has a mark 1000 ms below the clock: refusing/.test(logger.text()),
      'the refusal logged',
    );
    await waitFor(() => !/switching/.test(node.readiness.reason), 'the switch attempt over');
    assert.throws(() => node.next(), ClockRollbackError);
    assert.equal(node.workerId, 0);
    assert.equal(await store.readMark(1), mark1, "the candidate's mark is as it was");
    assert.deepEqual(
      (await store.list()).map((l) => l.workerId),
      [0],
    );
    await node.close();
    await store.close();
  });

  test('at a grant: a worker ID an hour ahead is skipped for one below the clock', async () => {
    const store = await freshStore();
    const mark0 = await markAhead(store, 0, HOUR);
    const opts = { ...base, store, workerIds: [0, 3] as [number, number] };
    await assert.rejects(createSnowflakeNode({ ...opts, logger: memoryLogger() }), BehindMarkError);
    const logger = memoryLogger();
    const node = await createSnowflakeNode({ ...opts, logger, onLargeRollback: 'switch-worker' });
    assert.equal(node.workerId, 1);
    assert.ok(node.next() > 0n);
    assert.equal(node.lastSwitch?.fromWorkerId, 0);
    assert.equal(await store.readMark(0), mark0, 'the skipped worker ID keeps its mark');
    await node.close();
    // Every worker ID of the range ahead: BehindMarkError even with the switch.
    await assert.rejects(
      createSnowflakeNode({
        ...opts,
        workerIds: 0,
        logger: memoryLogger(),
        onLargeRollback: 'switch-worker',
      }),
      BehindMarkError,
    );
    assert.deepEqual(await store.list(), []);
    await store.close();
  });

  test('a node that never issued, its clock back past its last renewal: never admitted on the old deadline', async () => {
    const store = await freshStore();
    for (const onLargeRollback of ['refuse', 'switch-worker'] as const) {
      const clock = steppedClock();
      const node = await createSnowflakeNode({
        ...base,
        store,
        clock,
        logger: memoryLogger(),
        workerIds: [0, 3],
        onLargeRollback,
      });
      clock.offsetMs = -HOUR;
      if (onLargeRollback === 'refuse') {
        assert.throws(() => node.next(), ClockRollbackError);
        assert.equal(node.metrics.fencedRefusals, 1);
      } else {
        assert.throws(() => node.next(), /switching worker ID/);
        await node.whenReady();
        assert.ok(node.next() > 0n);
        assert.equal(node.metrics.workerSwitches, 1);
      }
      await node.close();
    }
    await store.close();
  });

  test('the option is checked', async () => {
    const store = await freshStore();
    await assert.rejects(
      createSnowflakeNode({ store, onLargeRollback: 'switch' as never }),
      /onLargeRollback: expected 'refuse' or 'switch-worker'/,
    );
    await store.close();
  });
});
