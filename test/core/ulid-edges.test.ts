// UlidGenerator's edges (found by the mutation run, issue 34): the default is not monotonic
// (two ULIDs in one millisecond draw fresh randomness, as the spec's plain ulid()), a clock
// reading of ±2^53 is a horizon error (its message once threw: a Date ends at ±8.64e15 ms),
// and one past it a wrong argument naming the range.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../packages/idforge/src/core/clock.js';
import { HorizonExceededError } from '../../packages/idforge/src/core/errors.js';
import { seededRandom } from '../../packages/idforge/src/core/random.js';
import { UlidGenerator } from '../../packages/idforge/src/core/ulid.js';

test('UlidGenerator is not monotonic by default: one millisecond, fresh random parts', () => {
  const gen = new UlidGenerator({
    clock: new ManualClock(1_700_000_000_000),
    random: seededRandom(1),
  });
  assert.equal(gen.monotonic, false);
  const a = gen.next();
  const b = gen.next();
  assert.equal(a.slice(0, 10), b.slice(0, 10), 'same millisecond');
  // Monotonic would give a's random part + 1: the same first 15 of its 16 characters.
  assert.notEqual(a.slice(10, 25), b.slice(10, 25));
});

for (const ms of [2 ** 53, -(2 ** 53)]) {
  test(`a clock reading of ${ms}, the end of the range, is a HorizonExceededError`, () => {
    const gen = new UlidGenerator({ clock: new ManualClock(ms) });
    assert.throws(
      () => gen.next(),
      (e: unknown) => e instanceof HorizonExceededError && e.message.includes(`time ${ms} ms`),
    );
  });
}

test('a clock reading past 2^53 is a RangeError naming the range', () => {
  const gen = new UlidGenerator({ clock: new ManualClock(2 ** 53 + 2) });
  assert.throws(
    () => gen.next(),
    (e: unknown) => e instanceof RangeError && /9007199254740992\]/.test(e.message),
  );
});

test('nextBytes() gives a new array of exactly 16 bytes', () => {
  for (const monotonic of [false, true]) {
    const gen = new UlidGenerator({ monotonic, clock: new ManualClock(1_700_000_000_000) });
    assert.equal(gen.nextBytes().length, 16);
  }
});
