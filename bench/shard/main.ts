/**
 * The salted-shard-key demonstration (bench/shard/partition.ts) against one PostgreSQL:
 * `npm run bench:shard` (bench/shard/run.sh) starts a server of the project's own and runs this;
 * run it alone against any PostgreSQL you own with
 *
 *   node --import ./scripts/dev-loader.mjs bench/shard/main.ts --url postgres://postgres@127.0.0.1:15470/postgres \
 *     [--rows 1000000] [--buckets 16] [--partitions 8] [--out bench/shard/results] [--keep]
 *
 * It creates the schema idforge_shard_bench (dropped first if present, and at the end unless
 * --keep), prints the per-partition inserts and the time-range reads, and writes
 * OUT/partition-R-B-P.json and OUT/partition-R-B-P.svg.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { partitionChartSvg } from './chart.js';
import { dropDemo, type PartitionDemoResult, runPartitionDemo } from './partition.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:15470/postgres' },
    rows: { type: 'string', default: '1000000' },
    buckets: { type: 'string', default: '16' },
    partitions: { type: 'string', default: '8' },
    out: { type: 'string', default: 'bench/shard/results' },
    keep: { type: 'boolean', default: false },
  },
});
const whole = (name: string, text: string) => {
  if (!/^[1-9][0-9]*$/.test(text))
    throw new Error(`--${name}: expected a positive whole number, got "${text}"`);
  return Number(text);
};
const rows = whole('rows', values.rows);
const buckets = whole('buckets', values.buckets);
const partitions = whole('partitions', values.partitions);
const SCHEMA = 'idforge_shard_bench';

function report(r: PartitionDemoResult): string {
  const lines = [
    `${r.server.split(' on ')[0]}: ${r.rows.toLocaleString('en-US')} time-ordered Snowflake IDs, ${r.partitions} range partitions, ${r.buckets} salt buckets`,
    '',
    'inserts per partition (pg_stat_user_tables.n_tup_ins)',
    `partition  ${'unsalted'.padStart(10)}  ${'salted'.padStart(10)}`,
  ];
  for (let k = 0; k < r.partitions; k++) {
    const u = r.unsalted.partitions[k]!.inserts.toLocaleString('en-US');
    const s = r.salted.partitions[k]!.inserts.toLocaleString('en-US');
    lines.push(`p${String(k).padEnd(8)}  ${u.padStart(10)}  ${s.padStart(10)}`);
  }
  lines.push(
    `max/mean   ${r.unsalted.maxOverMean.toFixed(3).padStart(10)}  ${r.salted.maxOverMean.toFixed(3).padStart(10)}`,
    '',
    `one time range (IDs ${r.readFrom} to ${r.readTo}), EXPLAIN (ANALYZE, BUFFERS)`,
    `table      rows     index scans  partitions  shared hit  shared read  ms`,
  );
  for (const t of [r.unsalted, r.salted]) {
    const x = t.read;
    lines.push(
      `${t.table.padEnd(9)}  ${String(x.rows).padEnd(7)}  ${String(x.indexScans).padEnd(11)}  ${String(x.partitionsScanned).padEnd(10)}  ${String(x.sharedHit).padEnd(10)}  ${String(x.sharedRead).padEnd(11)}  ${x.executionMs.toFixed(2)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const client = new pg.Client(values.url);
await client.connect();
let stop = false;
const onSignal = () => {
  stop = true;
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
try {
  let last = 0;
  const result = await runPartitionDemo(client, {
    rows,
    buckets,
    partitions,
    schema: SCHEMA,
    onProgress: (table, done) => {
      if (stop) throw new Error('interrupted');
      if (done === rows || Date.now() - last > 2000) {
        last = Date.now();
        process.stderr.write(`${table}: ${done.toLocaleString('en-US')} rows\n`);
      }
    },
  });
  process.stdout.write(report(result));
  mkdirSync(values.out, { recursive: true });
  const base = join(values.out, `partition-${rows}-${buckets}-${partitions}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(`${base}.svg`, partitionChartSvg(result));
  process.stdout.write(`\nwrote ${base}.json and ${base}.svg\n`);
} catch (e) {
  if (!stop) throw e;
  process.stderr.write('bench:shard: interrupted; nothing written\n');
  process.exitCode = 130;
} finally {
  if (!values.keep) await dropDemo(client, SCHEMA);
  await client.end();
}
