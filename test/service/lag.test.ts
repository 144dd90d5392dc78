// The event-loop guard measures how late its timer fires: a stall reads as its own length,
// never as "infinite" (what the histogram-mean plugin it replaced reported for any window
// without a sample, refusing requests after a 100 ms stall whatever the limit).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LoopLag } from '../../packages/server/src/service/metrics/lag.js';
import { stallLoop, waitFor } from '../helpers/wait.js';

test('a stall shorter than the limit is measured, and is not overload', () => {
  const guard = new LoopLag(5000);
  guard.start();
  try {
    stallLoop(400);
    // Overdue by at least the stall minus one period (less a little: Date.now() is coarse).
    assert.ok(guard.lagMs >= 290, `lag ${guard.lagMs} ms after a 400 ms stall`);
    assert.equal(guard.overloaded, false);
  } finally {
    guard.stop();
  }
});

test('a stall longer than the limit is overload until the timer turns on time again', async () => {
  const guard = new LoopLag(300);
  guard.start();
  try {
    stallLoop(600);
    assert.ok(guard.lagMs >= 490, `lag ${guard.lagMs} ms after a 600 ms stall`);
    assert.equal(guard.overloaded, true);
    await waitFor(() => !guard.overloaded, 'the guard to clear');
    assert.ok(guard.lagMs <= 300);
  } finally {
    guard.stop();
  }
});

test('a stopped guard reports no lag; the limit must be positive', () => {
  const guard = new LoopLag(100);
  assert.equal(guard.lagMs, 0, 'not started');
  guard.start();
  guard.stop();
  stallLoop(250);
  assert.equal(guard.lagMs, 0, 'stopped');
  assert.throws(() => new LoopLag(0), RangeError);
});
