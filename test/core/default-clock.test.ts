// The process-wide clock (defaultNow, defaultClock) is MonotonicClock's algorithm with its
// defaults written out over module variables (issue 20: a smaller browser bundle). This file
// drives it and a `new MonotonicClock()` over the same stubbed `Date.now` and
// `performance.now`, so the two cannot drift apart. It runs in a process of its own (one per
// test file), where nothing has read the default clock before the stubs are in place.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultClock, defaultNow, MonotonicClock } from '../../packages/idforge/src/core/clock.js';

/** Runs `body` with `Date.now` and `performance.now` reading `t`; restores them after. */
function withStubbedTime(t: { wall: number; mono: number }, body: () => void): void {
  const dateNow = Date.now;
  const perfNow = performance.now;
  Date.now = () => t.wall;
  performance.now = () => t.mono;
  try {
    body();
  } finally {
    Date.now = dateNow;
    performance.now = perfNow;
  }
}

test('the default clock reads as new MonotonicClock() over the same wall and monotonic time', () => {
  const t = { wall: 1_700_000_000_000.25, mono: 5_000.5 };
  const seen: number[] = [];
  withStubbedTime(t, () => {
    const reference = new MonotonicClock();
    const clock = defaultClock();
    const compare = (what: string) => {
      const got = defaultNow();
      assert.equal(got, reference.nowPrecise(), `${what}: nowPrecise`);
      assert.equal(clock.nowPrecise(), got, `${what}: defaultClock() reads the same state`);
      assert.equal(clock.now(), Math.floor(got), `${what}: now() is the floor`);
      const stats = clock as unknown as { reanchors: number; wallBehindMs: number };
      assert.equal(stats.reanchors, reference.reanchors, `${what}: reanchors`);
      assert.equal(stats.wallBehindMs, reference.wallBehindMs, `${what}: wallBehindMs`);
      seen.push(got);
    };
    const step = (ms: number) => {
      t.wall += ms;
      t.mono += ms;
    };
    compare('first reading');
    step(100);
    compare('before the first check');
    step(200);
    compare('at the first check (250 ms)');
    t.wall -= 30_000; // an NTP step back: not followed, reported
    step(300);
    compare('after a step back');
    t.wall += 90_000; // a suspend: the wall clock moved on, the monotonic one did not
    step(260);
    compare('after a suspend, re-anchored');
    t.wall += 900; // ahead by less than resyncMs: no re-anchor
    step(260);
    compare('a small divergence');
    let seed = 11;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      t.mono += (seed % 97) / 7;
      t.wall += (seed % 3 === 0 ? -1 : 1) * (seed % 5000);
      compare(`random step ${i}`);
    }
  });
  assert.ok(
    seen.every((x, i) => i === 0 || x >= seen[i - 1]!),
    'never decreases',
  );
  assert.ok(
    (defaultClock() as unknown as { reanchors: number }).reanchors > 0,
    'the run re-anchored',
  );
});

test('back on the real clocks, it never goes back', () => {
  let last = defaultNow();
  for (let i = 0; i < 10_000; i++) {
    const now = defaultNow();
    assert.ok(now >= last, `${now} >= ${last}`);
    last = now;
  }
  assert.equal(typeof defaultClock().sleep, 'function');
});
