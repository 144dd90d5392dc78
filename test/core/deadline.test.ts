// RunningDeadline: a wait bounded in the time the process ran. Virtual time: setTimeout is
// mocked and the deadline's clock is the same virtual clock, so a "stall" is the clock jumping
// while no timer ran, and every bound is checked to the millisecond.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { MAX_STALLS, SLICE_MS, STALL_MS } from '../../packages/idforge/src/core/deadline.js';
import { RunningDeadline } from '../../packages/idforge/src/core/internal.js';

function virtual(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const clock = { now: 0 };
  /** Runs `ms` of virtual time, 1 ms at a time, until `until()`. */
  const run = async (ms: number, until: () => boolean = () => false) => {
    await turn();
    for (let i = 0; i < ms && !until(); i++) {
      clock.now += 1;
      t.mock.timers.tick(1);
      await turn();
    }
  };
  /** The process does not run for `ms`: the clock moves, no timer fires meanwhile. */
  const stall = async (ms: number) => {
    clock.now += ms;
    t.mock.timers.tick(ms);
    await turn();
  };
  return { clock, run, stall };
}

const never = new Promise<void>(() => undefined);

function watch(p: Promise<boolean>) {
  const seen = { result: undefined as boolean | undefined };
  void p.then((r) => {
    seen.result = r;
  });
  return seen;
}

test('a process that runs: the wait ends at exactly ms', async (t) => {
  const { clock, run } = virtual(t);
  const seen = watch(new RunningDeadline(450, () => clock.now).race(never));
  await run(449);
  assert.equal(seen.result, undefined, 'still waiting at 449 ms');
  await run(1);
  await turn();
  assert.equal(seen.result, false, 'expired at 450 ms');
});

test('settling first wins, and leaves no timer behind', async (t) => {
  const { clock, run } = virtual(t);
  let settle!: () => void;
  const p = new Promise<void>((r) => {
    settle = r;
  });
  const seen = watch(new RunningDeadline(450, () => clock.now).race(p));
  await run(120);
  settle();
  await turn();
  assert.equal(seen.result, true);
  const rejected = Promise.reject(new Error('the store said no'));
  rejected.catch(() => undefined);
  assert.equal(await new RunningDeadline(450, () => clock.now).race(rejected), true);
});

test('a stall does not count: the rest of the wait runs after it', async (t) => {
  const { clock, run, stall } = virtual(t);
  const d = new RunningDeadline(450, () => clock.now);
  const seen = watch(d.race(never));
  await run(150);
  await stall(5000);
  await run(10);
  assert.equal(seen.result, undefined, 'not expired on waking from a 5 s stall');
  const woke = clock.now;
  await run(1000, () => seen.result !== undefined);
  await turn();
  assert.equal(seen.result, false);
  assert.equal(d.stalls, 1);
  // The stall's slice (armed at 100 ms, for 100 ms) is left out: 450 - 150 + 50 ms still to run.
  assert.ok(clock.now - woke <= 450 - 150 + SLICE_MS, `ran ${clock.now - woke} ms after waking`);
});

test('a timer late by no more than STALL_MS is running time', async (t) => {
  const { clock, run, stall } = virtual(t);
  const d = new RunningDeadline(450, () => clock.now);
  const seen = watch(d.race(never));
  await run(50);
  await stall(SLICE_MS + STALL_MS - 50); // fires STALL_MS late: a busy loop, not a stall
  await run(1000, () => seen.result !== undefined);
  await turn();
  assert.equal(d.stalls, 0);
  assert.equal(seen.result, false);
  assert.ok(clock.now <= 450 + STALL_MS, `expired at ${clock.now} ms`);
});

test(`only ${MAX_STALLS} stalls are left out: the bound stays hard`, async (t) => {
  const { clock, run, stall } = virtual(t);
  const d = new RunningDeadline(450, () => clock.now);
  const seen = watch(d.race(never));
  for (let i = 0; i < 20 && seen.result === undefined; i++) {
    await run(1);
    await stall(1000);
    await turn();
  }
  await turn();
  assert.equal(seen.result, false, 'expired although the process kept stalling');
  assert.equal(d.stalls, MAX_STALLS);
  assert.ok(clock.now < (MAX_STALLS + 2) * 1001, `expired at ${clock.now} ms`);
});
