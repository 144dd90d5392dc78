// Direct tests of the clock high-water mark policy (src/coord/watermark.ts): "refuse until past
// the mark". Every branch of waitForMark (no mark; clock at or past the mark's tick; behind
// within the tolerance; behind beyond it), at its boundaries (equal to the mark, one ms before
// and after, the gap equal to the tolerance and one ms over), on 1 ms, 10 ms and 1 s ticks,
// with the exact error type, code and fields; then ceilToTick and markAfterTick, and a property
// tying the three together.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { BehindMarkError } from '../../packages/idforge/src/coord/index.js';
import {
  ceilToTick,
  markAfterTick,
  waitForMark,
} from '../../packages/idforge/src/coord/watermark.js';
import { getLayout, IdforgeError, type Layout } from '../../packages/idforge/src/core/index.js';

const ms1 = getLayout('default'); // 1 ms ticks
const ms10 = getLayout('sonyflake'); // 10 ms ticks
const s1 = getLayout('baidu'); // 1 s ticks

/** What waitForMark must do: wait this many ms, or throw BehindMarkError with these fields. */
type Expected = number | { behind: { markMs: number; gapMs: number } };

interface Case {
  readonly title: string;
  readonly layout: Layout;
  readonly mark: number | null;
  readonly now: number;
  readonly tolerance: number;
  readonly expected: Expected;
}

const W = 7; // the worker ID the cases ask about
// Marks on a tick boundary of each layout, and one 3 ms into a 10 ms / 1 s tick.
const M = ms1.epochMs + 1_000_000;
const M10 = ms10.epochMs + 10 * 123_456; // a 10 ms tick start
const M1000 = s1.epochMs + 1000 * 54_321; // a 1 s tick start

const cases: readonly Case[] = [
  // No mark stored for the worker ID: nothing to wait for, whatever the clock or tolerance.
  { title: 'no mark, tolerance 0', layout: ms1, mark: null, now: M, tolerance: 0, expected: 0 },
  {
    title: 'no mark, clock at the epoch',
    layout: ms1,
    mark: null,
    now: ms1.epochMs,
    tolerance: 0,
    expected: 0,
  },
  { title: 'no mark, clock at 0', layout: ms1, mark: null, now: 0, tolerance: 0, expected: 0 },

  // 1 ms ticks: the mark is exclusive for issued IDs, so the clock AT the mark may issue.
  { title: 'clock equal to the mark', layout: ms1, mark: M, now: M, tolerance: 0, expected: 0 },
  { title: 'one ms after the mark', layout: ms1, mark: M, now: M + 1, tolerance: 0, expected: 0 },
  {
    title: 'far past the mark',
    layout: ms1,
    mark: M,
    now: M + 86_400_000,
    tolerance: 0,
    expected: 0,
  },
  {
    title: 'one ms before, tolerance 0: refused',
    layout: ms1,
    mark: M,
    now: M - 1,
    tolerance: 0,
    expected: { behind: { markMs: M, gapMs: 1 } },
  },
  {
    title: 'one ms before, tolerance 1 (gap = tolerance): wait 1',
    layout: ms1,
    mark: M,
    now: M - 1,
    tolerance: 1,
    expected: 1,
  },
  {
    title: 'gap = tolerance (500): wait 500',
    layout: ms1,
    mark: M,
    now: M - 500,
    tolerance: 500,
    expected: 500,
  },
  {
    title: 'gap = tolerance + 1 (501 > 500): refused',
    layout: ms1,
    mark: M,
    now: M - 501,
    tolerance: 500,
    expected: { behind: { markMs: M, gapMs: 501 } },
  },
  {
    title: 'gap = tolerance - 1: wait 499',
    layout: ms1,
    mark: M,
    now: M - 499,
    tolerance: 500,
    expected: 499,
  },
  {
    title: 'infinite tolerance: any gap is waited',
    layout: ms1,
    mark: M,
    now: M - 3_600_000,
    tolerance: Number.POSITIVE_INFINITY,
    expected: 3_600_000,
  },
  {
    title: 'a mark of 0 is a mark, not "none"',
    layout: ms1,
    mark: 0,
    now: 0,
    tolerance: 0,
    expected: 0,
  },
  {
    title: 'clock before a mark of 0 (before 1970) is refused',
    layout: ms1,
    mark: 0,
    now: -1,
    tolerance: 0,
    expected: { behind: { markMs: 0, gapMs: 1 } },
  },

  // 10 ms ticks (sonyflake): the mark is rounded UP to the next tick start before comparing.
  {
    title: '10 ms: at a boundary mark',
    layout: ms10,
    mark: M10,
    now: M10,
    tolerance: 0,
    expected: 0,
  },
  {
    title: '10 ms: one ms before a boundary mark, tolerance 1',
    layout: ms10,
    mark: M10,
    now: M10 - 1,
    tolerance: 1,
    expected: 1,
  },
  {
    title: '10 ms: mark 3 ms into a tick, clock at the mark: wait for the next tick (7)',
    layout: ms10,
    mark: M10 + 3,
    now: M10 + 3,
    tolerance: 7,
    expected: 7,
  },
  {
    title: '10 ms: mark 3 ms into a tick, clock at the mark, tolerance 6: refused (gap 7)',
    layout: ms10,
    mark: M10 + 3,
    now: M10 + 3,
    tolerance: 6,
    expected: { behind: { markMs: M10 + 10, gapMs: 7 } },
  },
  {
    title: '10 ms: mark 1 ms into a tick, clock one ms past it: wait 8',
    layout: ms10,
    mark: M10 + 1,
    now: M10 + 2,
    tolerance: 10,
    expected: 8,
  },
  {
    title: '10 ms: mark 9 ms into a tick, clock at the next tick start: 0',
    layout: ms10,
    mark: M10 + 9,
    now: M10 + 10,
    tolerance: 0,
    expected: 0,
  },
  {
    title: '10 ms: mark 9 ms into a tick, clock one ms before the next tick: wait 1',
    layout: ms10,
    mark: M10 + 9,
    now: M10 + 9,
    tolerance: 1,
    expected: 1,
  },

  // 1 s ticks (baidu).
  {
    title: '1 s: at a boundary mark',
    layout: s1,
    mark: M1000,
    now: M1000,
    tolerance: 0,
    expected: 0,
  },
  {
    title: '1 s: mark 1 ms into a tick, clock at the mark: wait 999',
    layout: s1,
    mark: M1000 + 1,
    now: M1000 + 1,
    tolerance: 999,
    expected: 999,
  },
  {
    title: '1 s: mark 1 ms into a tick, clock at the mark, tolerance 998: refused',
    layout: s1,
    mark: M1000 + 1,
    now: M1000 + 1,
    tolerance: 998,
    expected: { behind: { markMs: M1000 + 1000, gapMs: 999 } },
  },
  {
    title: '1 s: one ms past the tick the mark rounds to: 0',
    layout: s1,
    mark: M1000 + 1,
    now: M1000 + 1001,
    tolerance: 0,
    expected: 0,
  },
];

describe('waitForMark: refuse until past the mark', () => {
  for (const c of cases) {
    test(c.title, () => {
      const call = () => waitForMark(c.layout, W, c.mark, c.now, c.tolerance);
      if (typeof c.expected === 'number') {
        assert.equal(call(), c.expected);
        return;
      }
      const { markMs, gapMs } = c.expected.behind;
      assert.throws(call, (e: unknown) => {
        assert.ok(e instanceof BehindMarkError, `BehindMarkError, got ${String(e)}`);
        assert.ok(e instanceof IdforgeError);
        assert.equal(e.name, 'BehindMarkError');
        assert.equal(e.code, 'IDF_BEHIND_MARK');
        assert.equal(e.workerId, W);
        // markMs is the tick start the mark rounds up to: where issuing may begin.
        assert.equal(e.markMs, markMs);
        assert.equal(e.nowMs, c.now);
        assert.equal(e.gapMs, gapMs);
        assert.equal(e.gapMs, e.markMs - e.nowMs);
        assert.equal(e.toleranceMs, c.tolerance);
        assert.match(e.message, new RegExp(`is ${gapMs} ms behind`));
        assert.match(e.message, new RegExp(`worker ID ${W},`));
        assert.match(e.message, new RegExp(`tolerance of ${c.tolerance} ms`));
        assert.ok(e.message.includes(new Date(markMs).toISOString()), e.message);
        assert.ok(e.message.includes(new Date(c.now).toISOString()), e.message);
        return true;
      });
    });
  }
});

describe('ceilToTick and markAfterTick', () => {
  const ceilCases: readonly { layout: Layout; ms: number; expected: number }[] = [
    { layout: ms1, ms: M, expected: M },
    { layout: ms1, ms: M + 1, expected: M + 1 },
    { layout: ms1, ms: ms1.epochMs, expected: ms1.epochMs },
    { layout: ms10, ms: M10, expected: M10 },
    { layout: ms10, ms: M10 + 1, expected: M10 + 10 },
    { layout: ms10, ms: M10 + 9, expected: M10 + 10 },
    { layout: ms10, ms: M10 - 1, expected: M10 },
    { layout: ms10, ms: M10 + 10, expected: M10 + 10 },
    { layout: s1, ms: M1000 + 1, expected: M1000 + 1000 },
    { layout: s1, ms: M1000 - 1, expected: M1000 },
    // Before the epoch the grid extends backwards.
    { layout: ms10, ms: ms10.epochMs - 15, expected: ms10.epochMs - 10 },
  ];
  for (const { layout, ms, expected } of ceilCases) {
    test(`ceilToTick(${layout.name}, epoch ${ms - layout.epochMs >= 0 ? '+' : ''}${ms - layout.epochMs}) = epoch ${expected - layout.epochMs >= 0 ? '+' : ''}${expected - layout.epochMs}`, () => {
      assert.equal(ceilToTick(layout, ms), expected);
    });
  }

  test('markAfterTick is the next tick start: the tick just issued in is refused, the next is not', () => {
    for (const layout of [ms1, ms10, s1]) {
      const tick = layout.epochMs + layout.unitMs * 1000;
      const mark = markAfterTick(layout, tick);
      assert.equal(mark, tick + layout.unitMs);
      // A clock back in the tick issued in must wait; one at the next tick start may issue.
      assert.equal(waitForMark(layout, 0, mark, tick, layout.unitMs), layout.unitMs);
      assert.throws(() => waitForMark(layout, 0, mark, tick, layout.unitMs - 1), BehindMarkError);
      assert.equal(waitForMark(layout, 0, mark, mark, 0), 0);
    }
  });

  test('property: the wait is exactly the time to the first tick start at or after the mark, or a typed refusal', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(ms1, ms10, s1),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: -5000, max: 5000 }),
        fc.integer({ min: 0, max: 3000 }),
        (layout, markOffset, delta, tolerance) => {
          const mark = layout.epochMs + markOffset;
          const now = mark + delta;
          const from = ceilToTick(layout, mark);
          // from is a tick start, at or after the mark, less than one tick after it.
          assert.equal((from - layout.epochMs) % layout.unitMs, 0);
          assert.ok(from >= mark && from - mark < layout.unitMs);
          let wait: number;
          try {
            wait = waitForMark(layout, 1, mark, now, tolerance);
          } catch (e) {
            assert.ok(e instanceof BehindMarkError);
            assert.equal(e.gapMs, from - now);
            assert.ok(e.gapMs > tolerance);
            return;
          }
          assert.ok(wait >= 0 && wait <= tolerance);
          // After the wait the clock is at or past the tick start; one ms less would not be.
          assert.ok(now + wait >= from);
          if (wait > 0) assert.equal(now + wait, from);
          else assert.ok(now >= from);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
