// What a dashboard, metrics and the admin route read from or tell a SegmentBuffer: snapshot(),
// the onFetch option and setMinStep(). Deterministic: an injected `now`, a block source whose
// answers the test releases, and mocked timers where a back-off must pass.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import type { SegmentFetchEvent } from '../../packages/idforge/src/sequences/index.js';
import {
  StoreUnavailableError,
  UnknownTagError,
} from '../../packages/idforge/src/sequences/index.js';
import type {
  BlockSource,
  SegmentStore,
  SegmentTag,
} from '../../packages/idforge/src/sequences/ports.js';
import { SegmentBuffer } from '../../packages/idforge/src/sequences/segment-buffer.js';
import { openSegmentSequence } from '../../packages/idforge/src/sequences/sequence.js';
import { pacedBuffer } from './segment-buffer-paced.js';

/**
 * A block source from 1 up: every call is recorded with its size; it answers when the test
 * calls `release()` (or at once with `auto`), and fails with `failure` while that is set.
 */
function heldSource(auto = false) {
  const state = {
    next: 1n,
    calls: [] as number[],
    held: [] as (() => void)[],
    failure: null as Error | null,
    auto,
  };
  const source: BlockSource = (size) => {
    state.calls.push(size);
    if (state.failure !== null) return Promise.reject(state.failure);
    const first = state.next;
    state.next += BigInt(size);
    const block = { first, last: first + BigInt(size) - 1n };
    if (state.auto) return Promise.resolve(block);
    return new Promise((resolve) => state.held.push(() => resolve(block)));
  };
  /** Answers every call in flight and lets the buffer see the answers. */
  const release = async () => {
    for (const r of state.held.splice(0)) r();
    await turn();
  };
  return { state, source, release };
}

describe('SegmentBuffer.snapshot', () => {
  test('shows the current segment and its next number, the second buffer and a fetch in flight', async () => {
    const { state, source, release } = heldSource();
    const buf = new SegmentBuffer({ tag: 'orders', source, minStep: 10, dynamicStep: false });
    const empty = { tag: 'orders', current: null, next: null, loading: false, step: 10 };
    assert.deepEqual(buf.snapshot(), empty, 'nothing loaded');
    const warming = buf.warm();
    assert.deepEqual(buf.snapshot(), { ...empty, loading: true }, 'the first fetch in flight');
    await release();
    await warming;
    assert.deepEqual(buf.snapshot(), {
      ...empty,
      current: { first: 1n, last: 10n, next: 1n },
    });
    assert.equal(buf.tryNext(), 1n);
    assert.equal(buf.tryNext(), 2n, 'the 10% trigger: the second fetch starts');
    assert.deepEqual(buf.snapshot(), {
      ...empty,
      current: { first: 1n, last: 10n, next: 3n },
      loading: true,
    });
    await release();
    const prefetched = buf.snapshot();
    assert.deepEqual(prefetched, {
      ...empty,
      current: { first: 1n, last: 10n, next: 3n },
      next: { first: 11n, last: 20n },
    });
    for (let v = 3n; v <= 10n; v++) assert.equal(buf.tryNext(), v);
    assert.deepEqual(
      buf.snapshot(),
      { ...empty, next: { first: 11n, last: 20n } },
      'the current segment used up: null, the next one waits',
    );
    assert.deepEqual(prefetched.current, { first: 1n, last: 10n, next: 3n }, 'a copy');
    assert.equal(buf.tryNext(), 11n);
    assert.deepEqual(buf.snapshot(), {
      ...empty,
      current: { first: 11n, last: 20n, next: 12n },
    });
    assert.equal(state.calls.length, 2, 'a snapshot never asks the source');
    buf.close();
  });

  test('current.next, else next.first, is always what tryNext returns', async () => {
    const { source } = heldSource(true);
    const buf = new SegmentBuffer({ tag: 't', source, minStep: 7, prefetchAt: 0.5 });
    await buf.warm();
    for (let i = 0; i < 200; i++) {
      const s = buf.snapshot();
      const expected = s.current?.next ?? s.next?.first;
      assert.equal(buf.tryNext(), expected, `call ${i}: ${JSON.stringify(s, (_, v) => String(v))}`);
      if (i % 3 === 0) await turn();
    }
    buf.close();
  });

  test('the step the next fetch asks for, as in stats', async () => {
    const { source } = heldSource(true);
    const { buf, consume } = pacedBuffer({ tag: 't', source, minStep: 10, targetMs: 1000 });
    await buf.warm();
    await consume(50, 1);
    assert.ok(buf.snapshot().step > 10, `step ${buf.snapshot().step}`);
    assert.equal(buf.snapshot().step, buf.stats.step);
    buf.close();
  });
});

describe('SegmentBuffer onFetch', () => {
  test('told after each fetch settles: duration by the injected clock, the size asked, no error', async () => {
    let now = 1000;
    const events: SegmentFetchEvent[] = [];
    const { source, release } = heldSource();
    const buf = new SegmentBuffer({
      tag: 'orders',
      source,
      minStep: 10,
      targetMs: 1000,
      now: () => now,
      onFetch: (e) => {
        // Told once the buffer's state reflects the fetch.
        assert.equal(buf.snapshot().loading, false);
        events.push(e);
      },
    });
    const warming = buf.warm();
    now += 35;
    assert.deepEqual(events, [], 'not before the fetch settles');
    await release();
    await warming;
    assert.deepEqual(events, [{ tag: 'orders', ms: 35, size: 10 }]);
    assert.equal('error' in events[0]!, false, 'no error key on success');
    buf.tryNext();
    buf.tryNext(); // the prefetch, 0 ms after the first fetch: the dynamic step doubles
    now += 2.5;
    await release();
    assert.deepEqual(events[1], { tag: 'orders', ms: 2.5, size: 20 });
    buf.close();
  });

  test('a failed fetch is told with its error; the callback never sees a success as one', async () => {
    let now = 0;
    const events: SegmentFetchEvent[] = [];
    const { state, source } = heldSource(true);
    const down = new StoreUnavailableError('postgres', 'postgres://db/x', 'takeSegment');
    state.failure = down;
    const buf = new SegmentBuffer({
      tag: 't',
      source,
      minStep: 5,
      now: () => now,
      onFetch: (e) => {
        now += 1;
        events.push(e);
      },
    });
    await assert.rejects(buf.warm(), (e) => e === down);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.error, down);
    assert.deepEqual({ ...events[0], error: null }, { tag: 't', ms: 0, size: 5, error: null });
    assert.equal(buf.stats.fetchFailures, 1);
    buf.close();
  });

  test('a callback that throws or rejects never reaches the buffer: it serves and recovers as without one', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { state, source } = heldSource(true);
    let told = 0;
    const make = (onFetch: (e: SegmentFetchEvent) => void) =>
      new SegmentBuffer({
        tag: 't',
        source,
        minStep: 10,
        dynamicStep: false,
        backoff: { initialMs: 50, maxMs: 200, random: () => 0 },
        onFetch,
      });
    const throwing = make(() => {
      told++;
      throw new Error('metrics broke');
    });
    const rejecting = make(async () => {
      told++;
      throw new Error('async metrics broke');
    });
    for (const buf of [throwing, rejecting]) {
      const before = told;
      const down = new Error('store down');
      state.failure = down;
      await assert.rejects(buf.warm(), (e) => e === down, "the store's error, not the callback's");
      state.failure = null;
      t.mock.timers.tick(25); // the back-off (25 ms at random 0): the retry runs by itself
      await turn();
      assert.equal(buf.stats.fetches, 1, 'refilled by the background retry');
      const got: bigint[] = [];
      for (let i = 0; i < 25; i++) {
        const v = buf.tryNext() ?? (await buf.next());
        got.push(v);
        await turn();
      }
      assert.equal(new Set(got).size, 25);
      for (let i = 1; i < got.length; i++) assert.ok(got[i]! > got[i - 1]!);
      assert.ok(told - before >= 3, `told ${told - before} times`);
      buf.close();
    }
    await turn(); // an unhandled rejection from the async callback would fail the run here
  });
});

describe('SegmentBuffer.setMinStep', () => {
  test('fixed step: the next fetch asks for the new minimum, raised or lowered', async () => {
    const { state, source } = heldSource(true);
    const buf = new SegmentBuffer({ tag: 't', source, minStep: 10, dynamicStep: false });
    await buf.warm();
    buf.setMinStep(50);
    assert.equal(buf.stats.step, 50);
    const drain = async (count: number) => {
      for (let i = 0; i < count; i++) {
        if (buf.tryNext() === undefined) await buf.next();
        await turn();
      }
    };
    await drain(10);
    assert.deepEqual(state.calls, [10, 50], 'the segment held is kept; the next one is 50');
    buf.setMinStep(5);
    assert.equal(buf.stats.step, 5);
    await drain(50);
    assert.deepEqual(state.calls, [10, 50, 5]);
    buf.close();
  });

  test('dynamic step: never below the new minimum, maxStep raised to it; a lower minimum is reached by halving', async () => {
    const { state, source } = heldSource(true);
    const { buf, consume } = pacedBuffer({
      tag: 't',
      source,
      minStep: 100,
      maxStep: 400,
      targetMs: 1000,
    });
    await consume(3000, 0.001);
    assert.equal(Math.max(...state.calls), 400, `steps ${state.calls}`);
    buf.setMinStep(1000); // above maxStep: maxStep follows
    assert.equal(buf.stats.step, 1000);
    let mark = state.calls.length;
    await consume(5000, 0.001); // fast: would double, capped at the raised maxStep
    await consume(5000, 100); // slow: would halve, floored at the new minimum
    assert.ok(state.calls.length - mark >= 5, `steps ${state.calls}`);
    assert.deepEqual(new Set(state.calls.slice(mark)), new Set([1000]), `steps ${state.calls}`);
    buf.setMinStep(100);
    assert.equal(buf.stats.step, 1000, 'lowering the minimum does not jump the dynamic step');
    mark = state.calls.length;
    await consume(3000, 100);
    assert.deepEqual(state.calls.slice(mark, mark + 4), [500, 250, 125, 100], `${state.calls}`);
    assert.equal(Math.min(...state.calls.slice(mark)), 100);
    buf.close();
  });

  test('a step that is not a positive number is a RangeError and changes nothing', async () => {
    const { source } = heldSource(true);
    const buf = new SegmentBuffer({ tag: 't', source, minStep: 10, dynamicStep: false });
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(
        () => buf.setMinStep(bad),
        (e) => e instanceof RangeError && /minStep: expected a positive number/.test(e.message),
        String(bad),
      );
    }
    assert.equal(buf.stats.step, 10);
    assert.equal(buf.snapshot().step, 10);
  });
});

test('openSegmentSequence: onFetch reaches the buffer; after store.setStep, setMinStep keeps its accounting right', async () => {
  // A one-tag store in memory that, like every SegmentStore, takes max(requested, stored).
  const row = { tag: 'orders', maxId: 0n, step: 10, description: '', updatedAtMs: 0 };
  const taken: number[] = [];
  const store: SegmentStore = {
    backend: 'memory',
    address: 'mem://',
    migrate: async () => {},
    createTag: async () => ({ ...row }),
    takeSegment: async (tag, step = 1) => {
      if (tag !== row.tag) throw new UnknownTagError(tag, 'memory');
      const used = Math.max(step, row.step);
      taken.push(used);
      row.maxId += BigInt(used);
      return { tag, first: row.maxId - BigInt(used) + 1n, last: row.maxId };
    },
    setStep: async (_tag, step) => {
      row.step = step;
      return { ...row } as SegmentTag;
    },
    getTag: async (tag) => (tag === row.tag ? { ...row } : null),
    listTags: async () => [{ ...row }],
    close: async () => {},
  };
  const events: SegmentFetchEvent[] = [];
  const buf = await openSegmentSequence(store, 'orders', {
    dynamicStep: false,
    onFetch: (e) => events.push(e),
  });
  assert.deepEqual(
    events.map((e) => [e.tag, e.size]),
    [['orders', 10]],
  );
  await store.setStep('orders', 40);
  buf.setMinStep(40);
  for (let i = 0; i < 12; i++) {
    if (buf.tryNext() === undefined) await buf.next();
    await turn();
  }
  assert.deepEqual(taken, [10, 40]);
  assert.deepEqual(
    events.map((e) => e.size),
    [10, 40],
  );
  assert.equal(buf.snapshot().step, 40);
  buf.close();
});
