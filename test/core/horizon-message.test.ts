// HorizonExceededError's message ends with the fix for the scheme that threw: a fixed format
// (UUIDv7, ULID, KSUID) has only its clock to check; a Snowflake layout can also be replaced
// by a new named layout. The fields are the same either way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../packages/idforge/src/core/clock.js';
import { HorizonExceededError } from '../../packages/idforge/src/core/errors.js';
import { SnowflakeGenerator } from '../../packages/idforge/src/core/snowflake/generator.js';
import { getLayout } from '../../packages/idforge/src/core/snowflake/presets.js';
import { UuidV7Generator } from '../../packages/idforge/src/core/uuid/v7.js';

const catchError = (f: () => unknown): HorizonExceededError => {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof HorizonExceededError, String(e));
    return e;
  }
  assert.fail('did not throw');
};

test('a UUIDv7 past 2^48 - 1 ms: the time, the horizon, the layout, and "check the clock"', () => {
  const g = new UuidV7Generator({ clock: new ManualClock(2 ** 48) });
  const e = catchError(() => g.next());
  assert.equal(
    e.message,
    'time +010889-08-02T05:31:50.656Z is past the layout\'s horizon +010889-08-02T05:31:50.656Z (layout "uuidv7"); check the clock',
  );
  assert.deepEqual(
    [e.code, e.name, e.layout, e.unixMs, e.epochMs, e.horizonMs],
    ['IDF_EPOCH_HORIZON', 'HorizonExceededError', 'uuidv7', 2 ** 48, 0, 2 ** 48],
  );
});

test('a UUIDv7 before 1970: the epoch in the message', () => {
  const g = new UuidV7Generator({ clock: new ManualClock(-1) });
  assert.equal(
    catchError(() => g.next()).message,
    'time 1969-12-31T23:59:59.999Z is before the layout\'s epoch 1970-01-01T00:00:00.000Z (layout "uuidv7"); check the clock',
  );
});

test('a Snowflake layout past its horizon: the message names the layout fix too', () => {
  const def = getLayout('default');
  const clock = new ManualClock(def.horizonMs);
  const gen = new SnowflakeGenerator({ node: 1, clock, onWarning: () => {} });
  const e = catchError(() => gen.next());
  assert.match(e.message, /past the layout's horizon .* \(layout "default"\); check the clock; /);
  assert.match(e.message, /define a new layout with a later epoch or more time bits/);
  assert.equal(e.horizonMs, def.horizonMs);
});
