import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  blockingSleep,
  ManualClock,
  MonotonicClock,
  wallClock,
} from '../../packages/idforge/src/core/clock.js';

/** A wall clock and a monotonic reading under the test's control. */
function rig(wallStart = 1_700_000_000_000) {
  const t = { wall: wallStart, mono: 1000 };
  const clock = new MonotonicClock({
    wall: () => t.wall,
    monotonic: () => t.mono,
    checkEveryMs: 100,
    resyncMs: 1000,
  });
  const step = (ms: number) => {
    t.wall += ms;
    t.mono += ms;
  };
  return { t, clock, step };
}

test('MonotonicClock starts at the wall time and follows the monotonic reading', () => {
  const { clock, step } = rig();
  assert.equal(clock.now(), 1_700_000_000_000);
  step(5.5);
  assert.equal(clock.now(), 1_700_000_000_005);
  assert.equal(clock.nowPrecise(), 1_700_000_000_005.5);
});

test('an NTP step back of the wall clock is not seen, and is reported', () => {
  const { t, clock, step } = rig();
  step(50);
  const before = clock.now();
  t.wall -= 30_000; // the wall clock steps back 30 s
  for (let i = 0; i < 5; i++) {
    step(100);
    const now = clock.now();
    assert.ok(now > before, 'keeps counting forwards');
  }
  assert.equal(clock.now(), before + 500);
  assert.equal(clock.wallBehindMs, 30_000);
  assert.equal(clock.reanchors, 0);
});

test('with followBackMs it follows a step back larger than that, and only such a step', () => {
  const t = { wall: 1_700_000_000_000, mono: 1000 };
  const clock = new MonotonicClock({
    wall: () => t.wall,
    monotonic: () => t.mono,
    checkEveryMs: 100,
    followBackMs: 1000,
  });
  const step = (ms: number) => {
    t.wall += ms;
    t.mono += ms;
  };
  step(200);
  const before = clock.now();
  t.wall -= 800; // under followBackMs: counted forwards, as without the option
  step(150);
  assert.equal(clock.now(), before + 150);
  assert.equal(clock.stepsBack, 0);
  t.wall -= 60_000; // a minute back: followed at the next check
  step(150);
  assert.equal(clock.now(), t.wall);
  assert.equal(clock.stepsBack, 1);
  assert.equal(clock.wallBehindMs, 0);
  step(10);
  assert.equal(clock.now(), t.wall, 'then counts forwards from there');
  assert.throws(() => new MonotonicClock({ followBackMs: -1 }), RangeError);
});

test('after a suspend (wall moves, monotonic stands still) it re-anchors forwards', () => {
  const { t, clock, step } = rig();
  step(200);
  const before = clock.now();
  t.wall += 60_000; // suspended for a minute: the monotonic clock did not advance
  step(150); // past the next check
  const after = clock.now();
  assert.equal(after, before + 60_150);
  assert.equal(clock.reanchors, 1);
});

test('a small forward divergence (under resyncMs) does not re-anchor', () => {
  const { t, clock, step } = rig();
  t.wall += 500;
  step(150);
  assert.equal(clock.reanchors, 0);
  assert.equal(clock.now(), 1_700_000_000_150);
});

test('MonotonicClock never decreases, whatever the wall clock does', () => {
  const { t, clock } = rig();
  let last = clock.nowPrecise();
  let seed = 7;
  for (let i = 0; i < 10_000; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    t.mono += (seed % 7) / 3;
    t.wall += (seed % 2 === 0 ? 1 : -1) * (seed % 3000);
    const now = clock.nowPrecise();
    assert.ok(now >= last, `step ${i}: ${now} < ${last}`);
    last = now;
  }
});

test('ManualClock: sleep advances time instead of blocking; set and advance may go back', () => {
  const c = new ManualClock(1000);
  c.sleep(2.5);
  assert.equal(c.nowPrecise(), 1002.5);
  assert.equal(c.now(), 1002);
  assert.equal(c.slept, 2.5);
  c.advance(-30);
  assert.equal(c.now(), 972);
  c.set(5);
  assert.equal(c.now(), 5);
});

test('blockingSleep blocks for at least the requested time; 0 and negatives return at once', () => {
  const t0 = performance.now();
  blockingSleep(5);
  assert.ok(performance.now() - t0 >= 4.9);
  blockingSleep(0);
  blockingSleep(-1);
  blockingSleep(Number.NaN);
});

test('wallClock is Date.now', () => {
  const a = Date.now();
  const b = wallClock.now();
  assert.ok(b >= a && b - a < 1000);
});
