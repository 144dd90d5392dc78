// Sequential time-ordered IDs (what a busy Snowflake node mints: thousands a millisecond,
// sequence counting up) spread evenly over the buckets of shardKey: Pearson's chi-square
// statistic stays under the 0.1% critical value. Negative controls on the same IDs fail the
// same check: a bucket from the ID's top bits (what a range-partitioned store does with the
// raw key) puts every ID in one bucket, and a keyed hash of the time prefix alone clumps each
// millisecond's burst into one bucket. Deterministic: the IDs are a fixed sequence.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compose, getLayout } from '../../packages/idforge/src/core/index.js';
import { shardKey } from '../../packages/idforge/src/shard/index.js';

const BUCKETS = 16;
const N = 16_000;
/** Chi-square critical value for 15 degrees of freedom at p = 0.001. */
const CRITICAL_15 = 37.697;

/** N IDs of layout `default` from node 7: 2,000 a millisecond, from 2025-06-01. */
function sequentialIds(): bigint[] {
  const layout = getLayout('default');
  const start = Date.UTC(2025, 5, 1);
  const ids: bigint[] = [];
  for (let i = 0; i < N; i++) {
    const unixMs = start + Math.floor(i / 2000);
    ids.push(compose(layout, { unixMs, fields: { node: 7, sequence: i % 2000 } }));
  }
  return ids;
}

function chiSquare(buckets: readonly number[]): number {
  const counts = new Array<number>(BUCKETS).fill(0);
  for (const b of buckets) counts[b]!++;
  const expected = buckets.length / BUCKETS;
  return counts.reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
}

const ids = sequentialIds();

test('shardKey spreads sequential Snowflake IDs evenly (chi-square under the 0.1% bound)', () => {
  for (let i = 1; i < N; i++) assert.ok(ids[i]! > ids[i - 1]!, 'the IDs are time-ordered');
  const stat = chiSquare(ids.map((id) => shardKey(id, { buckets: BUCKETS })));
  assert.ok(stat < CRITICAL_15, `chi-square ${stat.toFixed(1)} (bound ${CRITICAL_15})`);
  const keyed = chiSquare(
    ids.map((id) => shardKey(id, { buckets: BUCKETS, key: '0f'.repeat(16) })),
  );
  assert.ok(keyed < CRITICAL_15, `with another key: chi-square ${keyed.toFixed(1)}`);
});

test('negative control: the top bits of the ID (a range split) put every ID in one bucket', () => {
  const stat = chiSquare(ids.map((id) => Number(id >> 59n) % BUCKETS));
  assert.ok(stat > CRITICAL_15 * 100, `chi-square ${stat.toFixed(1)}`);
  assert.ok(stat >= N * (BUCKETS - 1) - 1e-6, 'all in one bucket: the largest statistic there is');
});

test('negative control: a keyed hash of the time prefix alone clumps each millisecond', () => {
  const stat = chiSquare(ids.map((id) => shardKey(id >> 22n, { buckets: BUCKETS })));
  assert.ok(stat > CRITICAL_15 * 10, `chi-square ${stat.toFixed(1)}`);
});
