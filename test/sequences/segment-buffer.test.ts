// The double buffer's logic over an in-memory block source (a counter with injectable
// latency and failures); the real stores run the same buffer in test/faults/sequences-*.
import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';
import type { BlockSource } from '../../packages/idforge/src/sequences/ports.js';
import { SegmentBuffer } from '../../packages/idforge/src/sequences/segment-buffer.js';
import { early } from '../helpers/wait.js';
import { pacedBuffer } from './segment-buffer-paced.js';

/** A counter handing out blocks; `down` makes it fail, `hang` never answer, `delay` wait. */
function counter(start = 1n) {
  const state = {
    next: start,
    calls: [] as number[],
    down: false,
    hang: false,
    /** Resolve the answer only when release() is called. */
    held: [] as (() => void)[],
    manual: false,
  };
  const source: BlockSource = (size) => {
    state.calls.push(size);
    if (state.down) {
      return Promise.reject(new StoreUnavailableError('test', 'mem://', 'takeSegment'));
    }
    const first = state.next;
    state.next += BigInt(size);
    const block = { first, last: first + BigInt(size) - 1n };
    if (state.hang) return new Promise(() => {});
    if (state.manual) return new Promise((r) => state.held.push(() => r(block)));
    return Promise.resolve(block);
  };
  return { state, source };
}

describe('SegmentBuffer', () => {
  test('serves contiguous increasing numbers across segments, sync once buffered', async () => {
    const { state, source } = counter(1000n);
    const buf = new SegmentBuffer({ tag: 't', source, minStep: 10, dynamicStep: false });
    assert.equal(buf.tryNext(), undefined, 'nothing buffered before the first fetch');
    const got: bigint[] = [await buf.next()];
    for (let i = 0; i < 95; i++) {
      const v = buf.tryNext();
      if (v === undefined) got.push(await buf.next());
      else got.push(v);
      await turn();
    }
    assert.deepEqual(
      got,
      Array.from({ length: 96 }, (_, i) => 1000n + BigInt(i)),
    );
    assert.ok(state.calls.every((s) => s === 10));
    assert.equal(buf.stats.served, 96n);
  });

  test('the next segment is fetched in the background once 10% of the current is used', async () => {
    const { state, source } = counter();
    const buf = new SegmentBuffer({ tag: 't', source, minStep: 100, dynamicStep: false });
    await buf.warm();
    assert.equal(state.calls.length, 1);
    for (let i = 0; i < 10; i++) buf.tryNext();
    assert.equal(state.calls.length, 1, 'not before 10%');
    buf.tryNext();
    assert.equal(state.calls.length, 2, 'at 10% the prefetch starts');
    await turn();
    for (let i = 0; i < 189; i++) assert.notEqual(buf.tryNext(), undefined);
    assert.equal(buf.stats.waits, 0);
  });

  test('dynamic step: doubles while segments last less than the target, halves when much longer', async () => {
    const { state, source } = counter();
    // Each number served advances the clock by msPerId: segments of n numbers last n * msPerId.
    const { buf, consume } = pacedBuffer({
      tag: 't',
      source,
      minStep: 100,
      maxStep: 1600,
      targetMs: 1000,
    });
    await consume(10_000, 0.001);
    assert.deepEqual(state.calls.slice(0, 5), [100, 200, 400, 800, 1600], `steps ${state.calls}`);
    assert.equal(Math.max(...state.calls), 1600, 'never above maxStep');
    await consume(5_000, 10);
    assert.equal(state.calls.at(-1), 100, `steps ${state.calls}`);
    assert.equal(buf.stats.step, 100, 'never below the stored step');
  });

  test('dynamic step: segments lasting between the target and twice it keep their step', async () => {
    let now = 0;
    const { state, source } = counter();
    const buf = new SegmentBuffer({
      tag: 't',
      source,
      minStep: 100,
      maxStep: 400,
      targetMs: 1000,
      now: () => now,
    });
    // 4 ms per number. A fetch starts once 10% of the segment before it is used, so the time
    // it measures spans 90% of one segment and 10% of the next: short while the step grows
    // (doubled to maxStep 400), then 400 numbers, 1600 ms, inside [targetMs, 2 x targetMs].
    for (let i = 0; i < 4_000; i++) {
      now += 4;
      await buf.next();
    }
    assert.deepEqual(state.calls.slice(0, 3), [100, 200, 400], `steps ${state.calls}`);
    assert.ok(state.calls.length > 8, `steps ${state.calls}`);
    assert.deepEqual(new Set(state.calls.slice(2)), new Set([400]), `steps ${state.calls}`);
    assert.equal(buf.stats.step, 400);
  });

  test('nextBatch: a count that is not an integer in [0, 2^24] is a RangeError, nothing taken', async () => {
    const { state, source } = counter();
    const buf = new SegmentBuffer({ tag: 't', source, minStep: 10, dynamicStep: false });
    for (const count of [1.5, Number.NaN, -1, 2 ** 24 + 1]) {
      await assert.rejects(
        buf.nextBatch(count),
        (e: unknown) =>
          e instanceof RangeError &&
          e.message.includes(`expected an integer in [0, 2^24], got ${count}`),
        String(count),
      );
    }
    assert.deepEqual(state.calls, [], 'no fetch');
    assert.deepEqual(await buf.nextBatch(3), [1n, 2n, 3n]);
    // 2^24 itself is taken: on a closed buffer it fails as closed, not as a bad count.
    buf.close();
    await assert.rejects(buf.nextBatch(2 ** 24), /sequence "t" is closed/);
  });

  test('prefetchAt 0: the next segment is fetched as soon as one is installed', async () => {
    const { state, source } = counter();
    const buf = new SegmentBuffer({
      tag: 't',
      source,
      minStep: 10,
      dynamicStep: false,
      prefetchAt: 0,
    });
    await buf.warm();
    assert.deepEqual(state.calls, [10, 10], 'the second fetch before any number is taken');
    buf.close();
  });

  // Virtual time for the failure tests: SegmentBuffer's timers (back-off, request bound) are
  // mocked and its `now` is the same clock, so the bounds are checked to the millisecond and
  // no test waits on the wall clock.
  const virtualTime = (t: TestContext) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const clock = { now: 0 };
    /** Moves time on 1 ms at a time; what is due now, and each timer's callbacks, run first. */
    const advance = async (ms: number, until: () => boolean = () => false) => {
      await turn();
      for (let i = 0; i < ms && !until(); i++) {
        clock.now += 1;
        t.mock.timers.tick(1);
        await turn();
      }
    };
    return { clock, advance };
  };

  test('store down: buffers keep serving, then a typed error at fetchTimeoutMs after few attempts, then recovery by itself', async (t) => {
    const { clock, advance } = virtualTime(t);
    const { state, source: store } = counter();
    const asked: number[] = [];
    const source: BlockSource = (size) => {
      asked.push(clock.now);
      return store(size);
    };
    const buf = new SegmentBuffer({
      tag: 'orders',
      source,
      minStep: 50,
      dynamicStep: false,
      fetchTimeoutMs: 500,
      now: () => clock.now,
      // Delays 25, 50, 100, 100, ... ms (the low end of each jittered range).
      backoff: { initialMs: 50, maxMs: 200, random: () => 0 },
    });
    await buf.warm();
    state.down = true;
    const served: bigint[] = [];
    for (let v = buf.tryNext(); v !== undefined; v = buf.tryNext()) served.push(v);
    assert.equal(served.length, 50, 'the whole buffered segment is served while the store is down');
    let settled = false;
    // Observed from creation: it is awaited only after time has been moved on.
    const request = early(() =>
      buf.next().finally(() => {
        settled = true;
      }),
    );
    await advance(499);
    assert.equal(settled, false, 'waits up to fetchTimeoutMs for the store');
    await advance(1);
    await assert.rejects(request, (e: unknown) => {
      assert.ok(e instanceof StoreUnavailableError, String(e));
      assert.equal(e.address, 'mem://');
      return true;
    });
    // The prefetch at 10%, then retries at 25, 75, 175, 275, 375 and 475 ms: backed off, not a
    // fetch per turn of the event loop.
    assert.deepEqual(asked, [0, 0, 25, 75, 175, 275, 375, 475], 'warm, then 10%, then retries');
    assert.equal(state.calls.length, 1 + 7, 'the store was asked only by the back-off timer');
    state.down = false;
    const downUntil = clock.now;
    // Nothing asks for a number: the back-off timer alone refills the buffer.
    await advance(1000, () => buf.stats.fetches > 1);
    assert.equal(buf.stats.fetches, 2, 'refilled by the background retry');
    assert.equal(clock.now - downUntil, 75, 'at the next back-off step (575 ms)');
    served.push(buf.tryNext()!);
    assert.equal(new Set(served).size, served.length, 'no duplicate');
    for (let i = 1; i < served.length; i++) assert.ok(served[i]! > served[i - 1]!);
    buf.close();
  });

  test('a store that never answers: the request fails at fetchTimeoutMs, naming the store', async (t) => {
    const { clock, advance } = virtualTime(t);
    const { state, source } = counter();
    state.hang = true;
    const buf = new SegmentBuffer({
      tag: 'orders',
      source,
      minStep: 10,
      fetchTimeoutMs: 200,
      backend: 'postgres',
      address: 'postgres://db:5432/x',
      now: () => clock.now,
    });
    let settled = false;
    const request = early(() =>
      buf.next().finally(() => {
        settled = true;
      }),
    );
    await advance(199);
    assert.equal(settled, false, 'still waiting before fetchTimeoutMs');
    await advance(1);
    await assert.rejects(
      request,
      (e: unknown) =>
        e instanceof StoreUnavailableError &&
        e.backend === 'postgres' &&
        /postgres:\/\/db:5432\/x/.test(e.message),
    );
    assert.equal(clock.now, 200, 'rejected at fetchTimeoutMs');
    assert.equal(state.calls.length, 1, 'one fetch, still in flight: no second one started');
    buf.close();
  });

  test('close() ends a request waiting on the store at once, as closed', async (t) => {
    const { clock, advance } = virtualTime(t);
    const { state, source } = counter();
    state.hang = true;
    const buf = new SegmentBuffer({
      tag: 'orders',
      source,
      minStep: 10,
      fetchTimeoutMs: 5_000,
      now: () => clock.now,
    });
    let settled = false;
    const request = early(() =>
      buf.next().finally(() => {
        settled = true;
      }),
    );
    await advance(100);
    assert.equal(settled, false, 'waiting on the store');
    buf.close();
    await advance(0);
    assert.equal(settled, true, 'ended by close(), not by fetchTimeoutMs');
    await assert.rejects(request, /sequence "orders" is closed/);
    assert.equal(clock.now, 100);
  });

  test('a 10x burst after the step has adapted never finds both buffers empty', async () => {
    // Virtual time: one turn of the event loop = 1 ms; the store answers after 20 ms.
    let now = 0;
    const { state, source } = counter();
    state.manual = true;
    const pending: { at: number; release: () => void }[] = [];
    const buf = new SegmentBuffer({
      tag: 't',
      source: (size) => {
        const p = source(size);
        pending.push({ at: now + 20, release: state.held.pop()! });
        return p;
      },
      minStep: 1000,
      targetMs: 2000,
      now: () => now,
    });
    const run = async (turns: number, perTurn: number) => {
      let waits = 0;
      for (let t = 0; t < turns; t++) {
        now += 1;
        for (const p of pending.filter((x) => x.at <= now)) p.release();
        pending.splice(0, pending.length, ...pending.filter((x) => x.at > now));
        for (let i = 0; i < perTurn; i++) {
          if (buf.tryNext() === undefined) {
            waits++;
            for (const p of pending) p.release();
            pending.length = 0;
            await buf.next();
          }
        }
        await turn();
      }
      return waits;
    };
    await run(20_000, 50); // usual rate: 50 per ms, for 20 s of virtual time
    const stepBefore = buf.stats.step;
    const waits = await run(5_000, 500); // ten times the usual rate
    assert.equal(waits, 0, `both buffers empty ${waits} times during the burst`);
    assert.ok(buf.stats.step >= stepBefore, `step ${stepBefore} -> ${buf.stats.step}`);
  });
});
