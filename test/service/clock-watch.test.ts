// ClockWatch driven by a stepped wall source and a ManualClock: no sleeping.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../packages/idforge/src/core/index.js';
import { ClockWatch } from '../../packages/server/src/service/domain/clock-watch.js';

const T0 = Date.UTC(2026, 0, 1);

function watch(warnMs = 20) {
  const clock = new ManualClock(T0);
  let wall = T0;
  const lines: [string, string][] = [];
  const w = new ClockWatch({
    clock,
    wall: () => wall,
    warnMs,
    log: (level, m) => void lines.push([level, m]),
  });
  return {
    w,
    clock,
    lines,
    set: (ms: number) => {
      wall = ms;
    },
  };
}

test('one warn line per crossing, one info line when back under half the threshold', () => {
  const { w, clock, lines, set } = watch();
  assert.deepEqual(w.check(), { nodeMs: T0, wallMs: T0, divergenceMs: 0, warn: false, reason: '' });
  set(T0 - 20);
  assert.equal(w.check().warn, false, 'at the threshold: no warning');
  set(T0 - 21);
  const r = w.check();
  assert.equal(r.warn, true);
  assert.equal(r.divergenceMs, -21);
  assert.match(r.reason, /^the wall clock is 21 ms behind this node's clock/);
  for (let i = 0; i < 5; i++) w.check();
  set(T0 - 3_600_000);
  assert.match(w.check().reason, /3600000 ms behind/);
  // Near the threshold, between half and all of it: still the same warning, no new line.
  set(T0 - 15);
  assert.equal(w.check().warn, true);
  assert.equal(lines.length, 1);
  assert.equal(lines[0]![0], 'warn');
  assert.match(lines[0]![1], /21 ms behind .*wallDivergenceWarnMs 20/);
  set(T0 - 10);
  assert.equal(w.check().warn, false);
  assert.deepEqual(lines[1], [
    'info',
    "the wall clock is back within 10 ms of this node's clock (-10 ms)",
  ]);
  // The node clock running ahead of a wall clock that stays (the same as a step back).
  set(T0);
  clock.advance(500);
  assert.match(w.check().reason, /500 ms behind/);
  set(T0 + 1000);
  assert.match(w.check().reason, /500 ms ahead/);
  assert.equal(lines.length, 3, 'a new crossing, then no line while it stays past half');
  assert.equal(lines[2]![0], 'warn');
});

test('the threshold is validated; start/stop are idempotent and unref their timer', () => {
  assert.throws(
    () => new ClockWatch({ clock: new ManualClock(), warnMs: 0, log() {} }),
    /warnMs: expected a positive number of ms, got 0/,
  );
  const { w } = watch();
  w.start();
  w.start();
  w.stop();
  w.stop();
});
