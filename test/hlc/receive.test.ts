// One HLC receive (issue 35): HybridLogicalClock and HlcIdGenerator merge a peer's timestamp
// through the same code (src/hlc/state.ts). Over random runs of local events, clock steps and
// received timestamps (ahead, behind, beyond the drift bound, counters near full), a clock with
// the generator's 12-bit counter and the generator end in the same state, with the same
// counters, and refuse the same timestamps.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ManualClock } from '../../packages/idforge/src/core/index.js';
import { HlcIdGenerator, HybridLogicalClock } from '../../packages/idforge/src/hlc/index.js';

const T = Date.parse('2026-03-01T00:00:00Z');

type Step =
  | { readonly kind: 'local' }
  | { readonly kind: 'tick'; readonly ms: number }
  | { readonly kind: 'receive'; readonly lead: number; readonly c: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.constant({ kind: 'local' as const }),
  fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: -20, max: 50 }) }),
  fc.record({
    kind: fc.constant('receive' as const),
    lead: fc.integer({ min: -100, max: 700 }),
    c: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 4090, max: 4095 })),
  }),
);

/** What a call did: its result's timestamp, or the class of what it threw. */
function outcome(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (e) {
    return (e as Error).name;
  }
}

test('the clock and the ID generator receive alike: same state, counters and refusals', () => {
  fc.assert(
    fc.property(fc.array(stepArb, { maxLength: 80 }), (steps) => {
      const options = { maxDriftMs: 500, maxWaitMs: 50 };
      const clockTime = new ManualClock(T);
      const idTime = new ManualClock(T);
      const clock = new HybridLogicalClock({ ...options, clock: clockTime, counterBits: 12 });
      const ids = new HlcIdGenerator({ ...options, clock: idTime, node: 1 });
      for (const s of steps) {
        let a: string;
        let b: string;
        if (s.kind === 'tick') {
          clockTime.advance(s.ms);
          idTime.advance(s.ms);
          continue;
        }
        if (s.kind === 'local') {
          a = outcome(() => clock.now());
          b = outcome(() => ids.next());
        } else {
          const remote = { l: clockTime.now() + s.lead, c: s.c };
          a = outcome(() => assert.deepEqual(clock.receive(remote), clock.last));
          b = outcome(() => ids.receive(remote));
        }
        assert.equal(a, b, `${JSON.stringify(s)}: the clock ${a}, the generator ${b}`);
        assert.deepEqual(clock.last, ids.last, JSON.stringify(s));
        assert.deepEqual(clock.stats, ids.stats);
        assert.equal(clockTime.nowPrecise(), idTime.nowPrecise(), 'the same waits');
      }
    }),
    { numRuns: 300 },
  );
});

test('a refused receive leaves both unchanged and is counted once', () => {
  const clock = new HybridLogicalClock({ clock: new ManualClock(T), counterBits: 12 });
  const ids = new HlcIdGenerator({ clock: new ManualClock(T), node: 2 });
  for (const h of [clock, ids]) {
    const before = h.last;
    assert.throws(() => h.receive({ l: T + 501, c: 0 }), { name: 'HlcDriftError' });
    assert.throws(() => h.receive({ l: -1, c: 0 }), RangeError);
    assert.deepEqual(h.last, before);
    assert.deepEqual(h.stats, { issued: 0, received: 0, waits: 0, refused: 1 });
  }
});
