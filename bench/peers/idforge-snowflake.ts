/**
 * idforge's Snowflake generator as the benchmark uses it: the speed cases, the safety
 * contenders (default MonotonicClock and a raw wall clock) and the throughput subject.
 */
import { type Clock, MonotonicClock, wallClock } from '../../packages/idforge/src/core/clock.js';
import { ClockRollbackError } from '../../packages/idforge/src/core/errors.js';
import { SnowflakeGenerator } from '../../packages/idforge/src/core/snowflake/generator.js';
import { defineLayout, type Layout } from '../../packages/idforge/src/core/snowflake/layout.js';
import { getLayout } from '../../packages/idforge/src/core/snowflake/presets.js';
import type { RollbackCase, SnowflakeContender, ThroughputSubject } from './snowflake-peers.js';

/** The node ID every idforge generator of the benchmark uses. */
const NODE = 1;

/**
 * A bench-only layout with a 22-bit sequence (4,194,304 IDs per ms): no loop here reaches its
 * cap, so the time per ID is the generator's own cost, not the wait for the next millisecond.
 * Not a preset: real layouts need node bits.
 */
const UNCAPPED: Layout = defineLayout({
  name: 'bench-uncapped',
  epoch: '2025-01-01T00:00:00Z',
  fields: [
    { name: 'time', bits: 41 },
    { name: 'sequence', bits: 22 },
  ],
  source: 'bench/peers (not a preset)',
});

/** A constructed generator with the label the report shows. */
export interface IdforgeSnowflake {
  readonly label: string;
  readonly generator: SnowflakeGenerator;
}

/** Layout 'default' (41/10/12, 4,096 IDs per ms) on the default clock. */
export function idforgeSnowflake(): IdforgeSnowflake {
  return {
    label: "'default' (4,096/ms cap)",
    generator: new SnowflakeGenerator({ layout: 'default', node: NODE }),
  };
}

/** The bench-only 22-bit-sequence layout: measures the cost per ID without the cap. */
export function idforgeUncappedSnowflake(): IdforgeSnowflake {
  return {
    label: 'bench layout (22-bit sequence, uncapped)',
    generator: new SnowflakeGenerator({ layout: UNCAPPED }),
  };
}

function contender(
  name: string,
  makeClock: (() => Clock) | undefined,
  timeSource: string,
): SnowflakeContender {
  const note = `SnowflakeGenerator layout 'default', node ${NODE}`;
  return {
    name,
    timeSource,
    note: makeClock === undefined ? `${note}, default clock` : `${note}, clock: wallClock`,
    create() {
      const options = { layout: 'default', node: NODE };
      if (makeClock === undefined) {
        const gen = new SnowflakeGenerator(options);
        return { next: () => gen.next() };
      }
      const clock = makeClock();
      const gen = new SnowflakeGenerator({ ...options, clock });
      const describe =
        clock instanceof MonotonicClock
          ? () => `clock saw the wall ${clock.wallBehindMs.toFixed(0)} ms behind, kept counting`
          : undefined;
      return { next: () => gen.next(), describe };
    },
  };
}

/** idforge in the duplicate test (2a): what a caller gets by default. */
export function idforgeSafetyContender(): SnowflakeContender {
  return contender('idforge', undefined, 'MonotonicClock (performance.now)');
}

/**
 * idforge in the rollback test (2b): the default MonotonicClock, which counts on from
 * `performance.now()` and so never sees the wall clock's step; a MonotonicClock made to compare
 * itself with the stepped `Date.now()` every 10 ms, which sees the step and still never goes
 * back; and `wallClock`, which follows `Date.now()` and must refuse (ClockRollbackError)
 * rather than reissue.
 */
export function idforgeRollbackCases(): RollbackCase[] {
  return [
    {
      contender: contender('idforge', undefined, 'Date.now (MonotonicClock ignores it)'),
      label: 'idforge (default MonotonicClock)',
    },
    {
      contender: contender(
        'idforge',
        () => new MonotonicClock({ wall: () => Date.now(), checkEveryMs: 10 }),
        'Date.now (compared every 10 ms)',
      ),
      label: 'idforge (MonotonicClock reading the stepped Date.now)',
    },
    {
      contender: contender('idforge', () => wallClock, 'Date.now'),
      label: `idforge (wallClock; throws ${ClockRollbackError.name})`,
    },
  ];
}

/** The 2c subject: layout 'default' on the real (default) clock. */
export function idforgeThroughputSubject(): ThroughputSubject {
  const layout = getLayout('default');
  const gen = new SnowflakeGenerator({ layout, node: NODE });
  return {
    name: "idforge SnowflakeGenerator 'default'",
    source: { next: () => gen.next() },
    capPerMs: layout.maxIdsPerSecondPerNode / 1000,
    exhaustionWaits: () => gen.stats.exhaustionWaits,
  };
}
