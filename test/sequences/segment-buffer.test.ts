// The double buffer's logic over an in-memory block source (a counter with injectable
// latency and failures); the real stores run the same buffer in test/faults/sequences-*.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { StoreUnavailableError } from '../../src/core/index.js';
import type { BlockSource } from '../../src/sequences/ports.js';
import { SegmentBuffer } from '../../src/sequences/segment-buffer.js';

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
    let now = 0;
    const { state, source } = counter();
    const buf = new SegmentBuffer({
      tag: 't',
      source,
      minStep: 100,
      maxStep: 1600,
      targetMs: 1000,
      now: () => now,
    });
    // Each number served advances the clock by msPerId: segments of n numbers last n * msPerId.
    const consume = async (count: number, msPerId: number) => {
      for (let i = 0; i < count; i++) {
        now += msPerId;
        await buf.next();
      }
    };
    await consume(10_000, 0.001);
    assert.deepEqual(state.calls.slice(0, 5), [100, 200, 400, 800, 1600], `steps ${state.calls}`);
    assert.equal(Math.max(...state.calls), 1600, 'never above maxStep');
    await consume(5_000, 10);
    assert.equal(state.calls.at(-1), 100, `steps ${state.calls}`);
    assert.equal(buf.stats.step, 100, 'never below the stored step');
  });

  test('store down: buffers keep serving, then a typed error fast, then recovery by itself', async () => {
    const { state, source } = counter();
    const buf = new SegmentBuffer({
      tag: 'orders',
      source,
      minStep: 50,
      dynamicStep: false,
      fetchTimeoutMs: 500,
    });
    await buf.warm();
    state.down = true;
    const served: bigint[] = [];
    let error: unknown;
    for (let i = 0; i < 1000 && error === undefined; i++) {
      try {
        served.push(await buf.next());
      } catch (e) {
        error = e;
      }
    }
    assert.ok(error instanceof StoreUnavailableError, String(error));
    assert.ok(served.length >= 50 && served.length <= 100, `served ${served.length} from buffers`);
    state.down = false;
    const t0 = performance.now();
    while (buf.tryNext() === undefined) {
      await new Promise((r) => setTimeout(r, 20));
      assert.ok(performance.now() - t0 < 5000, 'refilled by background retries');
    }
    served.push(await buf.next());
    assert.equal(new Set(served).size, served.length + 0, 'no duplicate');
    for (let i = 1; i < served.length; i++) assert.ok(served[i]! > served[i - 1]!);
    assert.ok(buf.stats.fetchFailures > 0);
  });

  test('a store that never answers: the request fails within fetchTimeoutMs, naming the store', async () => {
    const { state, source } = counter();
    state.hang = true;
    const buf = new SegmentBuffer({
      tag: 'orders',
      source,
      minStep: 10,
      fetchTimeoutMs: 200,
      backend: 'postgres',
      address: 'postgres://db:5432/x',
    });
    const t0 = performance.now();
    await assert.rejects(
      buf.next(),
      (e: unknown) =>
        e instanceof StoreUnavailableError &&
        e.backend === 'postgres' &&
        /postgres:\/\/db:5432\/x/.test(e.message),
    );
    const waited = performance.now() - t0;
    assert.ok(waited >= 190 && waited < 1000, `waited ${waited} ms`);
    buf.close();
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
