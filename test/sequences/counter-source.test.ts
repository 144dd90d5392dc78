// counterBlockSource on in-memory stores whose every step can be held and released, so the
// orderings that matter (write-ahead, concurrent processes, a reset between two calls) are
// exact rather than timed. The real-server runs are in test/faults/redis-counter.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { counterBlockSource } from '../../packages/idforge/src/sequences/counter-source.js';
import {
  CounterRegressedError,
  SequenceExhaustedError,
} from '../../packages/idforge/src/sequences/index.js';
import type { CounterStore, DurableMarkStore } from '../../packages/idforge/src/sequences/ports.js';
import { early } from '../helpers/wait.js';

const quiet = { warn() {} };

/** A counter like Redis's: `reset()` is a restart without persistence. */
class MemoryCounter implements CounterStore {
  readonly backend = 'memory';
  readonly address = 'memory';
  value = 0n;
  readonly calls: string[] = [];
  async incrBy(_key: string, by: number): Promise<bigint> {
    this.value += BigInt(by);
    this.calls.push(`incrBy ${by} -> ${this.value}`);
    return this.value;
  }
  async raiseTo(_key: string, value: bigint): Promise<bigint> {
    if (value > this.value) this.value = value;
    this.calls.push(`raiseTo ${value}`);
    return this.value;
  }
  reset(): void {
    this.value = 0n;
  }
  async close(): Promise<void> {}
}

/** A mark store whose raises can be held (`hold`) until released, or made to fail. */
class MemoryMarks implements DurableMarkStore {
  readonly backend = 'memory';
  readonly address = 'memory';
  mark: bigint | null = null;
  hold = false;
  fail: Error | null = null;
  readonly held: Array<() => void> = [];
  readonly raises: bigint[] = [];
  async migrate(): Promise<void> {}
  async read(): Promise<bigint | null> {
    return this.mark;
  }
  async raise(_key: string, value: bigint): Promise<bigint> {
    if (this.fail) throw this.fail;
    if (this.hold) await new Promise<void>((resolve) => this.held.push(resolve));
    this.raises.push(value);
    if (this.mark === null || value > this.mark) this.mark = value;
    return this.mark;
  }
  release(): void {
    for (const r of this.held.splice(0)) r();
  }
  async close(): Promise<void> {}
}

const tick = () => new Promise((r) => setImmediate(r));

describe('counterBlockSource', () => {
  test('blocks of exactly size, consecutive, each mark raised to its last', async () => {
    const counter = new MemoryCounter();
    const marks = new MemoryMarks();
    const take = counterBlockSource(counter, marks, 'orders', { logger: quiet });
    assert.deepEqual(await take(10), { first: 1n, last: 10n });
    assert.deepEqual(await take(5), { first: 11n, last: 15n });
    assert.deepEqual(marks.raises, [10n, 15n]);
    assert.deepEqual(take.stats(), {
      tag: 'orders',
      blocks: 2,
      numbers: 15n,
      regressions: 0,
      reseeds: 0,
      floor: 15n,
    });
  });

  test('write-ahead: the block resolves only after its mark is durable', async () => {
    const marks = new MemoryMarks();
    marks.hold = true;
    const take = counterBlockSource(new MemoryCounter(), marks, 'k', { logger: quiet });
    let done = false;
    // Observed from creation: a rejection during the turns below fails this test, not the run.
    const p = early(() =>
      take(10).then((b) => {
        done = true;
        return b;
      }),
    );
    for (let i = 0; i < 5; i++) await tick();
    assert.equal(done, false, 'served before the mark was written');
    assert.equal(marks.mark, null);
    marks.release();
    assert.deepEqual(await p, { first: 1n, last: 10n });
    assert.equal(marks.mark, 10n);
  });

  test('a failed mark write serves nothing; the next call takes a fresh block', async () => {
    const marks = new MemoryMarks();
    const take = counterBlockSource(new MemoryCounter(), marks, 'k', { logger: quiet });
    marks.fail = new Error('disk full');
    await assert.rejects(take(10), /disk full/);
    marks.fail = null;
    assert.deepEqual(await take(10), { first: 11n, last: 20n }, 'the lost block is wasted');
    assert.equal(take.stats().blocks, 1);
  });

  test('a counter reset is detected and re-seeded above the mark (reseed, the default)', async () => {
    const counter = new MemoryCounter();
    const marks = new MemoryMarks();
    const warnings: string[] = [];
    const take = counterBlockSource(counter, marks, 'k', {
      reseedMargin: 1000n,
      logger: { warn: (m) => warnings.push(m) },
    });
    for (let i = 0; i < 3; i++) await take(100);
    counter.reset();
    assert.deepEqual(await take(100), { first: 1301n, last: 1400n });
    assert.deepEqual(counter.calls.slice(-3), [
      'incrBy 100 -> 100',
      'raiseTo 1300',
      'incrBy 100 -> 1400',
    ]);
    const s = take.stats();
    assert.equal(s.regressions, 1);
    assert.equal(s.reseeds, 1);
    assert.equal(s.floor, 1400n);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /counter "k" \(memory at memory\) returned 100, at or below .* 300/);
    assert.deepEqual(marks.raises, [100n, 200n, 300n, 1400n], 'no regressed block was marked');
  });

  test('refuse: CounterRegressedError and nothing at or below the mark, ever', async () => {
    const counter = new MemoryCounter();
    const marks = new MemoryMarks();
    const take = counterBlockSource(counter, marks, 'k', { onRegression: 'refuse', logger: quiet });
    for (let i = 0; i < 5; i++) await take(100);
    counter.reset();
    // Every refused call still moved Redis by 100 (INCRBY cannot be undone): the counter
    // climbs back over the mark (500) after five refusals and then serves above it.
    for (let i = 1; i <= 5; i++) {
      await assert.rejects(take(100), (e: unknown) => {
        assert.ok(e instanceof CounterRegressedError, String(e));
        assert.equal(e.key, 'k');
        assert.equal(e.value, BigInt(i * 100));
        assert.equal(e.markValue, 500n);
        assert.equal(e.code, 'IDF_COUNTER_REGRESSED');
        return true;
      });
    }
    assert.deepEqual(await take(100), { first: 501n, last: 600n });
    assert.equal(take.stats().regressions, 5);
    assert.equal(take.stats().reseeds, 0);
    assert.ok(!counter.calls.some((c) => c.startsWith('raiseTo')), 'refuse never reseeds');
  });

  test('a counter that keeps moving backwards gives up after maxReseeds', async () => {
    const counter = new MemoryCounter();
    const marks = new MemoryMarks();
    marks.mark = 10_000n;
    counter.raiseTo = async (_k, v) => {
      counter.calls.push(`raiseTo ${v}`);
      return v; // acknowledged, then lost (a Redis that restarts again and again)
    };
    const take = counterBlockSource(counter, marks, 'k', { maxReseeds: 2, logger: quiet });
    await assert.rejects(take(10), CounterRegressedError);
    assert.equal(counter.calls.filter((c) => c.startsWith('raiseTo')).length, 2);
    assert.equal(take.stats().regressions, 3);
  });

  test('the mark is read before every block: a stale floor cannot hide a reset', async () => {
    // Process A took the first block and went idle; B took many more; Redis restarted and
    // someone climbed past A's own floor without reseeding. A must still refuse.
    const counter = new MemoryCounter();
    const marks = new MemoryMarks();
    const a = counterBlockSource(counter, marks, 'k', { onRegression: 'refuse', logger: quiet });
    const b = counterBlockSource(counter, marks, 'k', { logger: quiet });
    await a(10);
    for (let i = 0; i < 10; i++) await b(10);
    counter.reset();
    counter.value = 50n;
    await assert.rejects(a(10), (e: unknown) => e instanceof CounterRegressedError);
    assert.equal(a.stats().floor, 110n, 'the floor came from the durable mark, not A alone');
  });

  test('no false alarm when another process raises the mark between INCRBY and raise', async () => {
    const counter = new MemoryCounter();
    const marks = new MemoryMarks();
    const a = counterBlockSource(counter, marks, 'k', { onRegression: 'refuse', logger: quiet });
    const b = counterBlockSource(counter, marks, 'k', { onRegression: 'refuse', logger: quiet });
    marks.hold = true;
    let paSettled = false;
    // INCRBY -> [1, 10], raise held. Observed from creation.
    const pa = early(() =>
      a(10).finally(() => {
        paSettled = true;
      }),
    );
    for (let i = 0; i < 5; i++) await tick();
    assert.equal(paSettled, false, "A's raise is held");
    marks.hold = false;
    assert.deepEqual(await b(10), { first: 11n, last: 20n }, 'B raised the mark to 20 first');
    marks.release();
    assert.deepEqual(await pa, { first: 1n, last: 10n }, 'A is legitimate: below 20, above 0');
    assert.deepEqual(await a(10), { first: 21n, last: 30n });
    assert.equal(a.stats().regressions + b.stats().regressions, 0);
  });

  test('calls on one source run one at a time, so its blocks increase', async () => {
    const marks = new MemoryMarks();
    const take = counterBlockSource(new MemoryCounter(), marks, 'k', { logger: quiet });
    const blocks = await Promise.all([1, 2, 3, 4, 5].map(() => take(3)));
    for (let i = 1; i < blocks.length; i++) assert.ok(blocks[i]!.first > blocks[i - 1]!.last);
  });

  test('a reseed that would pass 2^63 - 1 is SequenceExhaustedError', async () => {
    const counter = new MemoryCounter();
    const marks = new MemoryMarks();
    marks.mark = (1n << 63n) - 10n;
    const take = counterBlockSource(counter, marks, 'k', { logger: quiet });
    await assert.rejects(take(10), SequenceExhaustedError);
  });

  test('misuse is a RangeError', async () => {
    const c = new MemoryCounter();
    const m = new MemoryMarks();
    assert.throws(() => counterBlockSource(c, m, ''), RangeError);
    const bad = { onRegression: 'ignore' } as unknown as { onRegression: 'refuse' };
    assert.throws(() => counterBlockSource(c, m, 'k', bad), RangeError);
    assert.throws(() => counterBlockSource(c, m, 'k', { reseedMargin: 0n }), RangeError);
    assert.throws(() => counterBlockSource(c, m, 'k', { maxReseeds: -1 }), RangeError);
    const take = counterBlockSource(c, m, 'k');
    await assert.rejects(take(0), RangeError);
    await assert.rejects(take(1.5), RangeError);
    assert.equal(c.value, 0n, 'nothing was drawn');
  });
});
