// Issue 8 §1: a sequence whose store fails at once (ioredis offline, a synchronous SQLite
// read) made SegmentBuffer retry in a microtask loop: 100% CPU for the whole fetch timeout,
// timers and I/O starved, and a caller retrying at once never let the scheduled retry run.
// Cause: a waiting request started a new fetch as soon as the previous one failed, ignoring
// the back-off, and nothing in that loop yielded to the event loop. Fix: after a failure no
// fetch starts until a jittered back-off timer fires, whoever asks (src/core/backoff.ts).
// The real stores are taken down and brought back in test/faults/store-outage.test.ts.
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';
import { Backoff } from '../../packages/idforge/src/core/internal.js';
import type { BlockSource } from '../../packages/idforge/src/sequences/ports.js';
import { SegmentBuffer } from '../../packages/idforge/src/sequences/segment-buffer.js';

describe('Backoff', () => {
  test('delays grow by the factor up to maxMs, jittered within [step/2, step), and reset', () => {
    const low = new Backoff({ initialMs: 10, maxMs: 80, random: () => 0 });
    assert.deepEqual(
      Array.from({ length: 6 }, () => low.next()),
      [5, 10, 20, 40, 40, 40],
    );
    assert.equal(low.attempts, 6);
    low.reset();
    assert.equal(low.attempts, 0);
    assert.equal(low.next(), 5);
    const high = new Backoff({ initialMs: 10, maxMs: 80, random: () => 0.999 });
    const d = Array.from({ length: 5 }, () => high.next());
    assert.ok(d.every((x, i) => x < [10, 20, 40, 80, 80][i]! && x > [9, 19, 39, 79, 79][i]!));
  });

  test('options are validated and named', () => {
    assert.throws(() => new Backoff({ initialMs: 0 }), /Backoff initialMs: expected a positive/);
    assert.throws(() => new Backoff({ initialMs: 100, maxMs: 10 }), /Backoff maxMs/);
    assert.throws(() => new Backoff({ factor: 0.5 }), /Backoff factor/);
  });
});

/** A block source that fails at once while `down`, counting every attempt. */
function flakySource() {
  const s = { down: true, attempts: 0, next: 1n };
  const source: BlockSource = (size) => {
    s.attempts++;
    if (s.down) return Promise.reject(new StoreUnavailableError('test', 'mem://', 'take'));
    const first = s.next;
    s.next += BigInt(size);
    return Promise.resolve({ first, last: s.next - 1n });
  };
  return { s, source };
}

test('a store failing at once: bounded attempts, the event loop stays free, recovery follows', async () => {
  const { s, source } = flakySource();
  const buf = new SegmentBuffer({ tag: 'spin', source, minStep: 100, fetchTimeoutMs: 1000 });
  const lag = monitorEventLoopDelay({ resolution: 10 });
  const DOWN_MS = 1500;
  const t0 = performance.now();
  let upAt = Number.NaN;
  let firstOkAfterUp = Number.NaN;
  let failures = 0;
  let drawn = 0;
  const up = new Promise<void>((resolve) =>
    setTimeout(() => {
      lag.disable();
      s.down = false;
      upAt = performance.now();
      resolve();
    }, DOWN_MS),
  );
  lag.enable();
  // A caller that retries at once, as the reproduction did.
  while (performance.now() - t0 < DOWN_MS + 3000 && drawn < 500) {
    try {
      await buf.next();
      drawn++;
      if (Number.isNaN(firstOkAfterUp)) firstOkAfterUp = performance.now();
    } catch (error) {
      assert.ok(error instanceof StoreUnavailableError, String(error));
      failures++;
    }
    await turn();
  }
  await up;
  buf.close();
  const attemptsWhileDown = s.attempts - 1; // the last one succeeded
  const maxLagMs = lag.max / 1e6;
  const perSecond = attemptsWhileDown / (DOWN_MS / 1000);
  // Before the fix: ~10^5 attempts per second and a lag equal to the fetch timeout (1000 ms).
  // Half of it tells that block from what a busy machine's preemption alone stalls the loop.
  assert.ok(maxLagMs < 500, `event loop blocked for ${maxLagMs.toFixed(0)} ms while down`);
  assert.ok(perSecond <= 40, `${attemptsWhileDown} store attempts in ${DOWN_MS} ms`);
  assert.ok(failures >= 1, 'the caller saw the outage');
  assert.equal(drawn, 500, 'numbers are drawn again once the store is back');
  const recoveredMs = firstOkAfterUp - upAt;
  assert.ok(
    recoveredMs < 1500,
    `first number ${recoveredMs.toFixed(0)} ms after the store returned`,
  );
  assert.equal(buf.stats.failingStreak, 0);
});

test('while backing off, waiting requests start no fetch of their own', async () => {
  const { s, source } = flakySource();
  const buf = new SegmentBuffer({
    tag: 'wait',
    source,
    minStep: 10,
    fetchTimeoutMs: 2000,
    backoff: { initialMs: 200, maxMs: 200, random: () => 0.5 },
  });
  // 50 concurrent requests during one back-off period share the fetches.
  const waiting = Array.from({ length: 50 }, () => buf.next());
  const settled = Promise.allSettled(waiting);
  setTimeout(() => {
    s.down = false;
  }, 400);
  const results = await settled;
  buf.close();
  assert.ok(results.every((r) => r.status === 'fulfilled'));
  // Failed at 0 ms, then one attempt per 150 ms back-off until the store answered at 400 ms.
  assert.ok(s.attempts <= 6, `${s.attempts} attempts for 50 waiting requests`);
});
