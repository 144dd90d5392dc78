// Every UUIDv7 step checks its clock reading before anything else (issue 20 moved the check
// from re-seeding to the entry, so that uuidv7(), whose clock is the process-wide one, skips
// it): a reading a Date cannot hold is a RangeError in the "expected X, got Y" form, from
// every state, and the state is left as it was.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RandomPool, seededRandom } from '../../packages/idforge/src/core/random.js';
import {
  createUuidV7State,
  stepV7Counter,
  stepV7Fraction,
  stepV7Random,
  UuidV7Generator,
  type UuidV7Step,
} from '../../packages/idforge/src/core/uuid/v7.js';
import type { UuidV7State } from '../../packages/idforge/src/core/uuid/v7-state.js';

const STEPS: [string, UuidV7Step][] = [
  ['counter', stepV7Counter],
  ['fraction', stepV7Fraction],
  ['random', stepV7Random],
];
const BAD = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 8.64e15 + 1, -1e16];
const STATES: UuidV7State[] = [
  createUuidV7State(),
  { ms: 1000, randA: 5, randBHi: 7, randBLo: 9 },
  { ms: 2 ** 48 - 1, randA: 0xfff, randBHi: 0x3fffffff, randBLo: 0xffffffff },
];

for (const [method, step] of STEPS) {
  test(`${method}: a reading a Date cannot hold is a RangeError from every state`, () => {
    for (const state of STATES) {
      for (const now of BAD) {
        const s = { ...state };
        assert.throws(
          () => step(s, now, new RandomPool(seededRandom(1), 64)),
          (e: unknown) =>
            e instanceof RangeError &&
            e.message ===
              `uuidv7 clock reading: expected a finite number of unix ms, got number ${now}`,
          `${method} ${now}`,
        );
        assert.deepEqual(s, state, 'the state is unchanged');
      }
    }
  });

  test(`${method}: the largest readings a Date holds pass the check (then the horizon decides)`, () => {
    for (const now of [8.64e15, -8.64e15]) {
      assert.throws(
        () => step(createUuidV7State(), now, new RandomPool(seededRandom(1), 64)),
        (e: unknown) => !(e instanceof RangeError) && (e as Error).name === 'HorizonExceededError',
      );
    }
  });
}

test('a generator over a clock that reads NaN throws the RangeError, then recovers', () => {
  let reading = 1_700_000_000_000;
  const clock = { now: () => reading, nowPrecise: () => reading, sleep: () => {} };
  const g = new UuidV7Generator({ clock });
  const first = g.next();
  reading = Number.NaN;
  assert.throws(() => g.next(), RangeError);
  reading = 1_700_000_000_000;
  assert.ok(g.next() > first);
});
