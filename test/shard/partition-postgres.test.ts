// The salted-shard-key demonstration at small scale on the shared PostgreSQL (database test, a
// schema of its own, dropped afterwards): 4,000 time-ordered Snowflake IDs into two tables of 8
// range partitions. Unsalted, the partition holding "now" takes every insert (max/mean = 8);
// salted over 16 buckets, the inserts spread (max/mean under 1.5). Reading one time range costs
// one index scan unsalted and one per bucket salted, and both count the same rows. The counts
// come from pg_stat_user_tables, exact at the first read after pg_stat_force_next_flush().
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import {
  dropDemo,
  type PartitionDemoResult,
  runPartitionDemo,
} from '../../bench/shard/partition.js';
import { serviceSkip } from '../helpers/services.js';

const skip = await serviceSkip('PostgreSQL', '127.0.0.1', 5432);
const SCHEMA = `idforge_shard_test_${process.pid}`;
let client: pg.Client | undefined;
let result: PartitionDemoResult | undefined;

before(async () => {
  if (skip) return;
  client = new pg.Client('postgres://postgres@127.0.0.1:5432/test');
  await client.connect();
  result = await runPartitionDemo(client, {
    rows: 4000,
    buckets: 16,
    partitions: 8,
    schema: SCHEMA,
  });
});

after(async () => {
  if (client === undefined) return;
  await dropDemo(client, SCHEMA);
  const left = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [SCHEMA]);
  await client.end();
  assert.equal(left.rowCount, 0, 'the schema is dropped');
});

test('unsalted: the partition holding "now" takes every insert (max/mean = P)', { skip }, () => {
  const u = result!.unsalted;
  assert.equal(u.partitions.length, 8);
  assert.deepEqual(
    u.partitions.map((p) => p.inserts),
    [0, 0, 0, 0, 0, 0, 0, 4000],
  );
  assert.equal(u.maxOverMean, 8);
  assert.match(u.partitions[7]!.bound, /TO \(MAXVALUE\)/);
});

test('salted: the inserts spread over every partition (max/mean < 1.5)', { skip }, () => {
  const s = result!.salted;
  assert.equal(s.partitions.length, 8);
  assert.equal(
    s.partitions.reduce((a, p) => a + p.inserts, 0),
    4000,
  );
  assert.ok(
    s.partitions.every((p) => p.inserts > 0),
    JSON.stringify(s.partitions),
  );
  assert.ok(s.maxOverMean < 1.5, `max/mean ${s.maxOverMean}`);
  // PostgreSQL 15+: exact at the first read after the forced flush (no waiting).
  if (/PostgreSQL (1[5-9]|[2-9]\d)/.test(result!.server)) assert.equal(result!.statsPolls, 0);
});

test('one time range: one index scan unsalted, one per bucket salted, same rows', { skip }, () => {
  const { unsalted: u, salted: s } = result!;
  assert.equal(u.read.indexScans, 1);
  assert.equal(u.read.partitionsScanned, 1);
  assert.equal(s.read.indexScans, 16);
  assert.equal(s.read.partitionsScanned, 8);
  assert.ok(u.read.rows > 0);
  assert.equal(s.read.rows, u.read.rows);
  assert.ok(s.read.sharedHit + s.read.sharedRead > u.read.sharedHit + u.read.sharedRead);
});
