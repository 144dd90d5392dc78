// The hybrid logical clock against Kulkarni et al. 2014, Fig. 5: the pure steps from a table
// of {state, remote, pt, expected}, then the class: counter overflow (wait, or fail typed),
// drift refusal leaving the state unchanged, a clock going backwards, options.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  type Clock,
  HorizonExceededError,
  ManualClock,
} from '../../packages/idforge/src/core/index.js';
import {
  compareHlc,
  HlcCounterOverflowError,
  HlcDriftError,
  type HlcTimestamp,
  HybridLogicalClock,
} from '../../packages/idforge/src/hlc/index.js';
import { hlcReceiveStep, hlcSendStep } from '../../packages/idforge/src/hlc/step.js';

const T = Date.parse('2026-03-01T00:00:00Z');
const ts = (l: number, c: number): HlcTimestamp => ({ l, c });

describe('send or local event (Fig. 5): l := max(l, pt); c := l unchanged ? c + 1 : 0', () => {
  const rows: [string, HlcTimestamp, number, HlcTimestamp][] = [
    ['fresh clock takes pt', ts(0, 0), 100, ts(100, 0)],
    ['pt ahead: new l, counter resets', ts(100, 5), 105, ts(105, 0)],
    ['pt equal to l: counter + 1', ts(100, 5), 100, ts(100, 6)],
    ['clock gone backwards: l kept, counter + 1', ts(100, 5), 90, ts(100, 6)],
  ];
  for (const [title, state, pt, expected] of rows) {
    test(title, () => assert.deepEqual(hlcSendStep(state, pt), expected));
  }
});

describe('receive event (Fig. 5): l := max(l, l_m, pt), c by which of them is l', () => {
  const rows: [string, HlcTimestamp, HlcTimestamp, number, HlcTimestamp][] = [
    ['pt ahead of both: pt, counter 0', ts(100, 3), ts(102, 9), 110, ts(110, 0)],
    ['remote ahead: its l, its c + 1', ts(100, 3), ts(105, 9), 101, ts(105, 10)],
    ['remote ahead, pt equal to it: its c + 1', ts(100, 3), ts(105, 9), 105, ts(105, 10)],
    ['local ahead: l kept, c + 1', ts(107, 3), ts(105, 9), 101, ts(107, 4)],
    ['local ahead, pt equal to it: c + 1', ts(105, 3), ts(100, 9), 105, ts(105, 4)],
    ['equal l, remote c larger: max(c) + 1', ts(105, 3), ts(105, 9), 101, ts(105, 10)],
    ['equal l, local c larger: max(c) + 1', ts(105, 12), ts(105, 9), 101, ts(105, 13)],
    ['equal l and pt: max(c) + 1', ts(105, 3), ts(105, 9), 105, ts(105, 10)],
    ['clock gone backwards: largest l kept', ts(200, 1), ts(150, 2), 100, ts(200, 2)],
  ];
  for (const [title, state, m, pt, expected] of rows) {
    test(title, () => assert.deepEqual(hlcReceiveStep(state, m, pt), expected));
  }

  test('property: the receipt is after both timestamps and its l is the max of the three', () => {
    const t = fc.record({ l: fc.integer({ min: 0, max: 50 }), c: fc.integer({ min: 0, max: 5 }) });
    fc.assert(
      fc.property(t, t, fc.integer({ min: 0, max: 50 }), (state, m, pt) => {
        const r = hlcReceiveStep(state, m, pt);
        assert.equal(compareHlc(r, state), 1);
        assert.equal(compareHlc(r, m), 1);
        assert.equal(r.l, Math.max(state.l, m.l, pt));
        const s = hlcSendStep(state, pt);
        assert.equal(compareHlc(s, state), 1);
      }),
      { numRuns: 300 },
    );
  });
});

/** The error `f` throws, checked to be a `type`. */
function thrown<E extends Error>(f: () => unknown, type: new (...a: never[]) => E): E {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof type, `expected ${type.name}, got ${String(e)}`);
    return e;
  }
  assert.fail(`expected ${type.name}, nothing was thrown`);
}

/** A clock stuck at `ms`: sleeping does not move it. */
function stuckClock(ms: number): Clock & { slept: number } {
  return {
    slept: 0,
    now: () => ms,
    nowPrecise: () => ms,
    sleep(d: number) {
      this.slept += d;
    },
  };
}

describe('HybridLogicalClock', () => {
  test('now() and receive() follow the steps, last is the latest timestamp, stats count', () => {
    const clock = new ManualClock(T);
    const h = new HybridLogicalClock({ clock });
    assert.deepEqual(h.last, ts(0, 0));
    assert.deepEqual(h.now(), ts(T, 0));
    assert.deepEqual(h.now(), ts(T, 1));
    assert.deepEqual(h.receive(ts(T + 300, 7)), ts(T + 300, 8));
    clock.advance(5);
    assert.deepEqual(h.now(), ts(T + 300, 9));
    assert.deepEqual(h.last, ts(T + 300, 9));
    assert.deepEqual(h.stats, { issued: 3, received: 1, waits: 0, refused: 0 });
  });

  test('a full counter waits for the physical clock to pass l, then continues at (pt, 0)', () => {
    const clock = new ManualClock(T);
    const h = new HybridLogicalClock({ clock, counterBits: 2 });
    for (let c = 0; c <= 3; c++) assert.deepEqual(h.now(), ts(T, c));
    assert.deepEqual(h.now(), ts(T + 1, 0));
    assert.equal(h.stats.waits, 1);
    assert.ok(clock.slept > 0 && clock.slept <= 1, `slept ${clock.slept}`);
  });

  test('a full counter after receiving a lead waits the lead out (within maxWaitMs)', () => {
    const clock = new ManualClock(T);
    const h = new HybridLogicalClock({ clock, counterBits: 1 });
    assert.deepEqual(h.receive(ts(T + 300, 1)), ts(T + 301, 0));
    assert.equal(clock.slept, 301);
  });

  test('a full counter on a stalled clock fails typed after maxWaitMs; the state is unchanged', () => {
    const clock = stuckClock(T);
    const h = new HybridLogicalClock({ clock, counterBits: 1, maxWaitMs: 5 });
    h.now();
    h.now();
    const e = thrown(() => h.now(), HlcCounterOverflowError);
    assert.equal(e.code, 'IDF_HLC_COUNTER_OVERFLOW');
    assert.deepEqual([e.lMs, e.maxCounter, e.maxWaitMs, e.clockMs], [T, 1, 5, T]);
    assert.ok(e.waitedMs <= 5 && e.waitedMs > 0 && clock.slept === e.waitedMs);
    assert.deepEqual(h.last, ts(T, 1));
    assert.deepEqual(h.stats, { issued: 2, received: 0, waits: 1, refused: 0 });
  });

  test('a lead longer than maxWaitMs fails at once, without sleeping', () => {
    const clock = new ManualClock(T);
    const h = new HybridLogicalClock({ clock, counterBits: 1, maxWaitMs: 100 });
    const e = thrown(() => h.receive(ts(T + 300, 1)), HlcCounterOverflowError);
    assert.equal(e.waitedMs, 0);
    assert.equal(clock.slept, 0);
    assert.deepEqual(h.last, ts(0, 0));
  });

  test('a remote more than maxDriftMs ahead is refused and leaves the state unchanged', () => {
    const clock = new ManualClock(T);
    const h = new HybridLogicalClock({ clock, maxDriftMs: 500 });
    h.now();
    const e = thrown(() => h.receive(ts(T + 501, 0)), HlcDriftError);
    assert.equal(e.code, 'IDF_HLC_DRIFT');
    assert.deepEqual([e.remoteMs, e.localMs, e.aheadMs, e.maxDriftMs], [T + 501, T, 501, 500]);
    assert.match(e.message, /501 ms ahead/);
    assert.deepEqual(h.last, ts(T, 0));
    assert.equal(h.stats.refused, 1);
    assert.deepEqual(h.now(), ts(T, 1), 'the next event continues from the old state');
    assert.deepEqual(h.receive(ts(T + 500, 0)), ts(T + 500, 1), 'exactly maxDriftMs is accepted');
  });

  test('the default maxDriftMs is 500 ms and maxWaitMs 1000 ms', () => {
    const clock = new ManualClock(T);
    const h = new HybridLogicalClock({ clock, counterBits: 1 });
    assert.throws(() => h.receive(ts(T + 501, 0)), HlcDriftError);
    h.receive(ts(T + 500, 1)); // counter full at T + 500: waits 501 ms, within 1000
    assert.deepEqual(h.last, ts(T + 501, 0));
  });

  test('a clock going backwards: l holds, the counter counts, timestamps still increase', () => {
    const clock = new ManualClock(T);
    const h = new HybridLogicalClock({ clock });
    h.now();
    clock.set(T - 1000);
    assert.deepEqual(h.now(), ts(T, 1));
    assert.deepEqual(h.receive(ts(T - 500, 3)), ts(T, 2));
    clock.set(T + 1);
    assert.deepEqual(h.now(), ts(T + 1, 0));
  });

  test('initial restores a high-water mark: the first timestamp is after it', () => {
    const h = new HybridLogicalClock({ clock: new ManualClock(T), initial: ts(T + 10, 5) });
    assert.deepEqual(h.last, ts(T + 10, 5));
    assert.deepEqual(h.now(), ts(T + 10, 6));
  });

  test('a physical clock past 2^48 - 1 ms is past the horizon', () => {
    const h = new HybridLogicalClock({ clock: new ManualClock(2 ** 48) });
    assert.throws(() => h.now(), HorizonExceededError);
  });

  test('options and arguments are validated, naming the option', () => {
    const bad: [unknown, RegExp, typeof TypeError | typeof RangeError][] = [
      [{ tick: 1 }, /only clock, maxDriftMs/, RangeError],
      [{ counterBits: 0 }, /counterBits: expected an integer in \[1, 16\]/, RangeError],
      [{ counterBits: 17 }, /counterBits/, RangeError],
      [{ maxDriftMs: -1 }, /maxDriftMs: expected a number >= 0/, RangeError],
      [{ maxWaitMs: Number.NaN }, /maxWaitMs/, RangeError],
      [{ clock: {} }, /clock: expected a Clock/, TypeError],
      [{ initial: ts(-1, 0) }, /initial\.l/, RangeError],
      [{ initial: ts(0, 2 ** 16) }, /initial\.c/, RangeError],
      [null, /options: expected an object/, TypeError],
    ];
    for (const [options, message, type] of bad) {
      assert.throws(
        () => new HybridLogicalClock(options as never),
        (e: Error) => {
          assert.ok(e instanceof type, `${e.constructor.name} for ${JSON.stringify(options)}`);
          assert.match(e.message, message);
          return true;
        },
      );
    }
    const h = new HybridLogicalClock({ clock: new ManualClock(T) });
    assert.throws(() => h.receive(null as never), TypeError);
    assert.throws(() => h.receive(ts(1.5, 0)), RangeError);
    assert.throws(() => h.receive({ l: '1', c: 0 } as never), TypeError);
    assert.deepEqual(h.stats, { issued: 0, received: 0, waits: 0, refused: 0 });
  });
});
