// Issue 8 §3: a Snowflake generator whose clock stops advancing issued the current tick's
// sequence and then blocked inside next() for ever (the exhaustion wait slept and re-read the
// clock with no bound). Now the wait is bounded by stallTimeoutMs (the sum of the sleeps asked
// of the clock), after which ClockStalledError names the stall; the state is unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Clock,
  ClockStalledError,
  SnowflakeGenerator,
} from '../../packages/idforge/src/core/index.js';

/** A clock stuck at `ms`: sleeping does not move it (a frozen VM clock, a broken clock). */
function frozenClock(ms: number) {
  const c = { ms, sleeps: 0, slept: 0 };
  const clock: Clock = {
    now: () => Math.floor(c.ms),
    nowPrecise: () => c.ms,
    sleep: (d: number) => {
      c.sleeps++;
      c.slept += d;
    },
  };
  return { c, clock };
}

const START = Date.UTC(2026, 0, 1);

test('a stalled clock: the tick sequence is issued, then a typed error after stallTimeoutMs', () => {
  const { c, clock } = frozenClock(START + 0.25);
  const g = new SnowflakeGenerator({ node: 1, clock, stallTimeoutMs: 50, warnYears: 0 });
  const ids = g.batch(4096);
  assert.equal(new Set(ids).size, 4096);
  assert.equal(g.stats.exhaustionWaits, 0);
  const error = (() => {
    try {
      g.next();
    } catch (e) {
      return e;
    }
    return null;
  })();
  assert.ok(error instanceof ClockStalledError, String(error));
  assert.equal(error.code, 'IDF_CLOCK_STALLED');
  assert.equal(error.stallTimeoutMs, 50);
  assert.equal(error.clockMs, START);
  assert.ok(error.waitedMs >= 50 && error.waitedMs < 51, `waited ${error.waitedMs}`);
  assert.match(error.message, /stallTimeoutMs 50/);
  assert.equal(g.stats.exhaustionWaits, 1);
  // 0.75 ms to the next tick, then the 0.05 ms floor: a bounded number of sleeps.
  assert.ok(c.sleeps > 0 && c.sleeps <= 1000, `${c.sleeps} sleeps`);
  // Unchanged state: once the clock moves on, issuing continues without a duplicate.
  c.ms = START + 1;
  const next = g.next();
  assert.ok(next > ids[ids.length - 1]!);
  assert.equal(g.stats.exhaustionWaits, 1);
});

test('the default bound is 1000 ms; 0 fails at once; a clock that moves is waited for', () => {
  const frozen = frozenClock(START);
  const g = new SnowflakeGenerator({ node: 1, clock: frozen.clock, warnYears: 0 });
  g.batch(4096);
  assert.throws(
    () => g.next(),
    (e: unknown) => e instanceof ClockStalledError && e.waitedMs >= 1000,
  );
  const zero = frozenClock(START);
  const z = new SnowflakeGenerator({ node: 1, clock: zero.clock, stallTimeoutMs: 0, warnYears: 0 });
  z.batch(4096);
  assert.throws(() => z.next(), ClockStalledError);
  assert.equal(zero.c.sleeps, 0);
  // A slow clock that moves 0.1 ms per sleep reaches the next tick well within the bound.
  const slow = frozenClock(START);
  const s = new SnowflakeGenerator({
    node: 1,
    clock: {
      ...slow.clock,
      sleep: () => {
        slow.c.ms += 0.1;
      },
    },
    warnYears: 0,
  });
  s.batch(4096);
  assert.ok(s.next() > 0n);
  assert.equal(s.stats.exhaustionWaits, 1);
});

test('stallTimeoutMs is validated and named', () => {
  assert.throws(
    () => new SnowflakeGenerator({ node: 1, stallTimeoutMs: -1 }),
    /SnowflakeGenerator stallTimeoutMs: expected/,
  );
  assert.throws(
    () => new SnowflakeGenerator({ node: 1, stallTimeoutMs: Number.NaN }),
    /SnowflakeGenerator stallTimeoutMs/,
  );
});
