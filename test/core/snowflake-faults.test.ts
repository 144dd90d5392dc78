import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Clock, ManualClock } from '../../packages/idforge/src/core/clock.js';
import {
  ClockRollbackError,
  HorizonExceededError,
} from '../../packages/idforge/src/core/errors.js';
import { decompose } from '../../packages/idforge/src/core/snowflake/codec.js';
import { SnowflakeGenerator } from '../../packages/idforge/src/core/snowflake/generator.js';
import { getLayout } from '../../packages/idforge/src/core/snowflake/presets.js';
import { assertIncreasing, def, rig, T0 } from './snowflake-rig.js';

describe('faults', () => {
  test('beyond tolerance: ClockRollbackError with driftMs/toleranceMs, state untouched, then recovery', () => {
    const { clock, gen, parts } = rig({ toleranceMs: 10 });
    const before = [gen.next(), gen.next()];
    const stats = gen.stats;
    clock.advance(-50);
    for (let i = 0; i < 3; i++) {
      assert.throws(
        () => gen.next(),
        (e: unknown) =>
          e instanceof ClockRollbackError &&
          e.code === 'IDF_CLOCK_ROLLBACK' &&
          e.driftMs === 50 &&
          e.toleranceMs === 10,
      );
    }
    assert.deepEqual(gen.stats, stats);
    assert.equal(clock.slept, 0, 'no waiting beyond tolerance');
    clock.advance(45); // 5 ms behind: now within tolerance
    const after = [gen.next(), gen.next()];
    assertIncreasing([...before, ...after]);
    assert.equal(parts(after[0]!).tick, parts(before[1]!).tick);
    assert.equal(parts(after[0]!).fields.sequence, 2);
    assert.equal(gen.stats.rollbackWaits, 1);
  });

  test('toleranceMs 0 refuses any step back', () => {
    const { clock, gen } = rig({ toleranceMs: 0 });
    gen.next();
    clock.advance(-1);
    assert.throws(() => gen.next(), ClockRollbackError);
  });

  test('a clock that does not recover while waiting: bounded, then ClockRollbackError', () => {
    let now = T0;
    const stuck: Clock = { now: () => now, nowPrecise: () => now, sleep: () => {} };
    const gen = new SnowflakeGenerator({ node: 1, clock: stuck, toleranceMs: 10 });
    gen.next();
    now -= 4;
    assert.throws(
      () => gen.next(),
      (e: unknown) => e instanceof ClockRollbackError && e.driftMs > 10,
    );
  });

  test('sequence exhaustion moves to the next tick, waiting through clock.sleep', () => {
    const { clock, gen, parts } = rig();
    const ids = gen.batch(4096);
    assert.equal(parts(ids[4095]!).fields.sequence, 4095);
    const next = gen.next();
    assert.deepEqual([parts(next).tick, parts(next).fields.sequence], [parts(ids[0]!).tick + 1, 0]);
    assert.equal(gen.stats.exhaustionWaits, 1);
    assert.equal(clock.slept, 1);
  });

  test('sonyflake: 256 per 10 ms tick; the sequence sits above the machine', () => {
    const sf = getLayout('sonyflake');
    const clock = new ManualClock(sf.epochMs + 12_345);
    const gen = new SnowflakeGenerator({ layout: 'sonyflake', fields: { machine: 0xbeef }, clock });
    const ids = gen.batch(257);
    assert.equal(ids[1]! - ids[0]!, 1n << 16n);
    assert.deepEqual(decompose(sf, ids[256]!).fields, { sequence: 0, machine: 0xbeef });
    assert.equal(decompose(sf, ids[256]!).tick, decompose(sf, ids[0]!).tick + 1);
    assert.equal(clock.slept, 5, 'from 12,345 to the next tick at 12,350');
  });

  test('horizon: before the epoch, at the last tick, past the horizon', () => {
    const early = rig({}, def.epochMs - 1);
    assert.throws(
      () => early.gen.next(),
      (e: unknown) =>
        e instanceof HorizonExceededError &&
        e.code === 'IDF_EPOCH_HORIZON' &&
        e.unixMs === def.epochMs - 1 &&
        e.epochMs === def.epochMs &&
        e.horizonMs === def.horizonMs &&
        e.layout === 'default' &&
        /before the layout's epoch/.test(e.message),
    );
    const late = rig({}, def.horizonMs - 1);
    assert.equal(late.parts(late.gen.next()).tick, def.maxTick);
    late.clock.advance(1);
    assert.throws(() => late.gen.next(), /past the layout's horizon/);
    assert.equal(late.gen.stats.lastTick, def.maxTick);
  });

  test('the expired baidu preset: one warning at construction, then HorizonExceededError', () => {
    const warnings: string[] = [];
    const clock = new ManualClock(Date.parse('2025-06-01T00:00:00Z'));
    const gen = new SnowflakeGenerator({
      layout: 'baidu',
      fields: { worker: 1 },
      clock,
      onWarning: (m) => warnings.push(m),
    });
    assert.throws(() => gen.next(), HorizonExceededError);
    assert.throws(() => gen.nextString(), HorizonExceededError);
    assert.throws(() => gen.batch(3), HorizonExceededError);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /"baidu" expired at 2024-11-20T13:24:16.000Z/);
  });

  test('warnYears: warns exactly once when fewer years are left', () => {
    const fiveYears = def.horizonMs - 5 * 365.25 * 86_400_000;
    const warnings: string[] = [];
    const { gen } = rig({ onWarning: (m) => warnings.push(m) }, fiveYears);
    gen.batch(10_000);
    for (let i = 0; i < 100; i++) gen.next();
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /runs out at 2094-09-07T15:47:35.552Z, in 5\.0 years/);
    const none: string[] = [];
    rig({ warnYears: 4, onWarning: (m) => none.push(m) }, fiveYears);
    rig({ onWarning: (m) => none.push(m) });
    assert.equal(none.length, 0);
  });
});
