// counterBlockSource's edges (found by the mutation run, issue 34): calls on one source are
// served one after another (a second call reaches the counter only once the first has raised
// its mark), and a reseed may go up to exactly the largest value a block can still end on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_SEQUENCE_VALUE } from '../../packages/idforge/src/core/wire.js';
import { counterBlockSource } from '../../packages/idforge/src/sequences/counter-source.js';
import { SequenceExhaustedError } from '../../packages/idforge/src/sequences/index.js';
import type { CounterStore, DurableMarkStore } from '../../packages/idforge/src/sequences/ports.js';

const quiet = { warn() {} };
const tick = () => new Promise((r) => setImmediate(r));

function stores(value = 0n, mark: bigint | null = null) {
  const held: (() => void)[] = [];
  const state = { value, mark, hold: false, incrs: 0 };
  const counter: CounterStore = {
    backend: 'memory',
    address: 'memory',
    async incrBy(_key, by) {
      state.incrs++;
      state.value += BigInt(by);
      return state.value;
    },
    async raiseTo(_key, v) {
      if (v > state.value) state.value = v;
      return state.value;
    },
    async close() {},
  };
  const marks: DurableMarkStore = {
    backend: 'memory',
    address: 'memory',
    async migrate() {},
    async read() {
      return state.mark;
    },
    async raise(_key, v) {
      if (state.hold) await new Promise<void>((r) => held.push(r));
      if (state.mark === null || v > state.mark) state.mark = v;
      return state.mark;
    },
    async close() {},
  };
  const release = () => {
    for (const r of held.splice(0)) r();
  };
  return { state, counter, marks, release };
}

test('a second call waits for the first: it reaches the counter only after the mark is raised', async () => {
  const s = stores();
  const take = counterBlockSource(s.counter, s.marks, 'orders', { logger: quiet });
  s.state.hold = true;
  const first = take(10);
  const second = take(5);
  for (let i = 0; i < 5; i++) await tick();
  assert.equal(s.state.incrs, 1, 'the second call has not reached the counter');
  s.state.hold = false;
  s.release();
  assert.deepEqual(await first, { first: 1n, last: 10n });
  assert.deepEqual(await second, { first: 11n, last: 15n });
});

test('a reseed up to exactly MAX - size serves the last block; one past it is exhausted', async () => {
  const size = 5;
  // The counter came back empty (a restart without persistence) under a mark near the top.
  const at = stores(0n, MAX_SEQUENCE_VALUE - 15n);
  const take = counterBlockSource(at.counter, at.marks, 'orders', {
    logger: quiet,
    reseedMargin: 10n,
  });
  assert.deepEqual(await take(size), {
    first: MAX_SEQUENCE_VALUE - 4n,
    last: MAX_SEQUENCE_VALUE,
  });
  const past = stores(0n, MAX_SEQUENCE_VALUE - 14n);
  const over = counterBlockSource(past.counter, past.marks, 'orders', {
    logger: quiet,
    reseedMargin: 10n,
  });
  await assert.rejects(over(size), SequenceExhaustedError);
});
