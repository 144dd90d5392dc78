// The rig the Snowflake generator's tests share (snowflake-generator.test.ts,
// snowflake-faults.test.ts): a generator on a ManualClock at a tick well inside the default
// layout, and the check that IDs strictly increase.
import * as assert from 'node:assert/strict';
import { ManualClock } from '../../packages/idforge/src/core/clock.js';
import { decompose } from '../../packages/idforge/src/core/snowflake/codec.js';
import {
  SnowflakeGenerator,
  type SnowflakeGeneratorOptions,
} from '../../packages/idforge/src/core/snowflake/generator.js';
import { getLayout } from '../../packages/idforge/src/core/snowflake/presets.js';

export const def = getLayout('default');
export const T0 = def.epochMs + 1_000_000; // a tick well inside the default layout
export const quiet = { onWarning: () => {} };

/** A generator (node 7, warnings silenced) on a ManualClock at `start`, and its ID's parts. */
export function rig(options: SnowflakeGeneratorOptions = {}, start = T0) {
  const clock = new ManualClock(start);
  const gen = new SnowflakeGenerator({ node: 7, clock, ...quiet, ...options });
  const parts = (id: bigint) => decompose(gen.layout, id);
  return { clock, gen, parts };
}

export function assertIncreasing(ids: readonly bigint[]): void {
  for (let i = 1; i < ids.length; i++) {
    if (ids[i]! <= ids[i - 1]!) assert.fail(`not increasing at ${i}: ${ids[i - 1]} then ${ids[i]}`);
  }
}
