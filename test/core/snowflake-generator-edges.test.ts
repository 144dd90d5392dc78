// The Snowflake generator's fast path counts the sequence it hands out (found by the mutation
// run, issue 34): within one tick next() gives at most 2^sequenceBits IDs, each with the
// generator's own node fields, then waits for the next tick; the sequence never spills over.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decompose,
  getLayout,
  ManualClock,
  SnowflakeGenerator,
} from '../../packages/idforge/src/core/index.js';

test('one tick: 4096 IDs by next(), the 4097th in the next tick, the node fields intact', () => {
  const layout = getLayout('default');
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const gen = new SnowflakeGenerator({ layout, clock, fields: { node: 7 } });
  const ids = Array.from({ length: 4097 }, () => gen.next());
  const parts = ids.map((id) => decompose(layout, id));
  assert.ok(parts.every((p) => p.fields.node === 7));
  assert.equal(new Set(parts.slice(0, 4096).map((p) => p.unixMs)).size, 1, 'one tick');
  assert.deepEqual(
    parts.slice(0, 4096).map((p) => p.fields.sequence),
    Array.from({ length: 4096 }, (_, i) => i),
  );
  assert.equal(parts[4096]!.unixMs, parts[0]!.unixMs + 1, 'the next tick');
  assert.equal(parts[4096]!.fields.sequence, 0);
});
