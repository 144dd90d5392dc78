// The SQL functions on SQLite: registerIdforgeFunctions on better-sqlite3 connections (SQLite
// has no stored functions), with the same vectors and bounds as PostgreSQL and MariaDB; one
// file is one counter whatever path spelling or thread reaches it (issue 32); and
// `idforge sql --store sqlite:` explaining that and creating no file.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { registerIdforgeFunctions } from '@idforge/stores';
import Database from 'better-sqlite3';
import { inspect, LAYOUTS, snowflakeTimestamp, ulid } from 'idforge';
import { snowflakeBounds } from 'idforge/snowflake';
import { uuidv7Bounds } from 'idforge/uuid';
import { sqliteTextMs, sqliteTextMsSql } from '../../packages/stores/src/sqlite/time-text.js';
import { tsEntry } from '../helpers/bundle.js';
import { cli } from '../helpers/cli.js';
import { suiteTempDir } from '../helpers/temp.js';
import { snowflakeVectors } from '../vectors/snowflake.js';
import {
  BOUNDS_FROM_MS,
  BOUNDS_TO_MS,
  snowflakeBoundVectors,
  uuidv7BoundVectors,
} from '../vectors/sql-bounds.js';
import { ulidVectors } from '../vectors/ulid.js';
import { RFC9562_VECTORS } from '../vectors/uuid.js';

const dir = suiteTempDir('idforge-sql-');
const CALLS = 10_000;

function open(file: string, layout = LAYOUTS.default!, node = 5) {
  const db = new Database(file);
  registerIdforgeFunctions(db, { layout, node });
  return db;
}

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

function column(db: Database.Database, sql: string): unknown[] {
  return db.prepare(sql).safeIntegers(true).pluck().all();
}

test('sqlite: two connections to one file × 10,000 idforge_snowflake(): no duplicate, node 5, the clock time; uuidv7 increasing per connection', () => {
  const file = join(dir, 'a.db');
  const [a, b] = [open(file), open(file)];
  const series = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CALLS})`;
  const start = Date.now();
  const ids = [a, b, a, b].flatMap((db) =>
    column(db, `${series} SELECT idforge_snowflake() FROM n`),
  );
  assert.equal(new Set(ids).size, 4 * CALLS);
  for (const id of ids) {
    const r = inspect(id as bigint, { layout: LAYOUTS.default! });
    assert.equal(r.fields!.node, 5);
    assert.ok(r.unixMs! >= start - 1 && r.unixMs! <= Date.now() + 1);
  }
  for (const db of [a, b]) {
    const us = column(db, `${series} SELECT idforge_uuidv7() FROM n`) as string[];
    for (let i = 1; i < us.length; i++)
      assert.ok(us[i]! > us[i - 1]!, `${us[i]} after ${us[i - 1]}`);
    assert.equal(inspect(us[0]!).version, 7);
  }
  a.close();
  b.close();
});

test('sqlite: the vectors and the library IDs decode with idforge_time, bounds equal the library and the vectors', () => {
  for (const v of snowflakeVectors) {
    const layout = LAYOUTS[v.layout]!;
    const db = open(':memory:', layout, 0);
    const ms = Date.parse(column(db, `SELECT idforge_time(${v.id})`)[0] as string);
    assert.equal(ms, snowflakeTimestamp(layout, BigInt(v.id)), v.id);
    const bv = snowflakeBoundVectors.find((x) => x.layout === v.layout);
    if (bv !== undefined) {
      const row = db
        .prepare('SELECT lowest, highest FROM idforge_snowflake_bounds(?, ?)')
        .safeIntegers(true)
        .get(BOUNDS_FROM_MS, BOUNDS_TO_MS) as { lowest: bigint; highest: bigint };
      const lib = snowflakeBounds(layout, BOUNDS_FROM_MS, BOUNDS_TO_MS);
      assert.deepEqual([row.lowest, row.highest], [lib.lowest, lib.highest]);
      assert.deepEqual([String(row.lowest), String(row.highest)], [bv.lowest, bv.highest]);
    }
    db.close();
  }
  const db = open(':memory:');
  const time = (x: string) => Date.parse(column(db, `SELECT idforge_time('${x}')`)[0] as string);
  for (const v of ulidVectors.filter((x) => x.time <= 8.64e15)) assert.equal(time(v.ulid), v.time);
  for (const v of RFC9562_VECTORS.filter((x) => x.version === 7))
    assert.equal(time(v.text), v.unixMs);
  const u = ulid();
  assert.equal(time(u), inspect(u).unixMs);
  const row = db
    .prepare('SELECT lowest, highest FROM idforge_uuidv7_bounds(?, ?)')
    .get(new Date(BOUNDS_FROM_MS).toISOString(), BOUNDS_TO_MS);
  assert.deepEqual(row, uuidv7Bounds(BOUNDS_FROM_MS, BOUNDS_TO_MS));
  assert.equal((row as { lowest: string }).lowest, uuidv7BoundVectors[0].lowest);
  const at = column(db, `SELECT idforge_uuidv7_at(${BOUNDS_FROM_MS})`)[0] as string;
  assert.equal(inspect(at).unixMs, BOUNDS_FROM_MS);
  assert.throws(
    () => registerIdforgeFunctions(db, { layout: LAYOUTS.default!, node: 1024 }),
    RangeError,
  );
  db.close();
});

test('sqlite: idforge sql --store sqlite: explains there is nothing to install and creates no file', async () => {
  const file = join(dir, 'never.db');
  const r = await cli(['sql', '--store', `sqlite:${file}`, '--apply', '--node', '1']);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /SQLite has no stored functions.*registerIdforgeFunctions\(db, \{ layout, node \}\)/,
  );
  assert.equal(existsSync(file), false);
});

test('sqlite: one file through three spellings (plain, /./, a symlink) is one counter: 0 duplicates', () => {
  const file = join(dir, 'spell.db');
  const a = open(file);
  symlinkSync(file, join(dir, 'spell-link.db'));
  const others = [open(`${dir}/./spell.db`), open(join(dir, 'spell-link.db'))];
  const mint = [a, ...others].map((db) =>
    db.prepare('SELECT idforge_snowflake()').pluck().safeIntegers(true),
  );
  const ids: unknown[] = [];
  for (let i = 0; i < 5000; i++) for (const s of mint) ids.push(s.get());
  assert.equal(new Set(ids).size, ids.length, `${ids.length - new Set(ids).size} duplicates`);
  for (const db of [a, ...others]) db.close();
});

type Minted = { ids?: bigint[]; error?: { code?: string; name: string; message: string } };

function minter(entry: string, data: Record<string, unknown>): Promise<Minted> {
  const worker = new Worker(entry, { workerData: data });
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`worker exited with ${code} before answering`)));
  });
}

test('sqlite: four worker threads minting on one file with node 5: 0 duplicates, a thread refused says why; a fifth thread with node 6 mints beside them', async (t) => {
  const file = join(dir, 'threads.db');
  new Database(file).close();
  const [entry] = tsEntry(fixture('sqlite-minter.ts'), { workspace: true });
  const gate = new Int32Array(new SharedArrayBuffer(4));
  const nodes = [5, 5, 5, 5, 6];
  const results = await Promise.all(
    nodes.map((node) => minter(entry!, { file, node, calls: 10_000, gate, workers: nodes.length })),
  );
  const ids = results.flatMap((r) => r.ids ?? []);
  assert.equal(new Set(ids).size, ids.length, `${ids.length - new Set(ids).size} duplicates`);
  assert.ok(results.filter((r) => r.ids !== undefined).length >= 2, 'node 5 and node 6 minted');
  assert.equal(results[4]!.ids?.length, 10_000, 'the thread of its own node is never refused');
  const refused = results.filter((x) => x.error !== undefined);
  t.diagnostic(`${ids.length} IDs, ${refused.length} of the 4 threads of node 5 refused`);
  for (const r of refused) {
    assert.equal(r.error!.code, 'IDF_NODE_IN_USE', r.error!.message);
    assert.match(r.error!.message, /node 5 .*threads\.db.* another thread or process/);
    assert.match(r.error!.message, /its own node/);
  }
});

test('sqlite: ISO text without a zone is UTC, under TZ=Asia/Shanghai too; fractions below the ms are floored', () => {
  const texts = [
    '2026-12-03 12:00:00',
    '2026-12-03T12:00:00.1239',
    '2026-12-03T12:00:00.999999Z',
    '2026-12-03T14:00:00.5+02:00',
    '2026-12-03',
  ];
  const [entry] = tsEntry(fixture('sqlite-times.ts'), { workspace: true });
  const out = JSON.parse(
    execFileSync(process.execPath, [entry!, ...texts, 'yesterday'], {
      env: { ...process.env, TZ: 'Asia/Shanghai' },
      encoding: 'utf8',
    }),
  ) as Record<string, [number, number] | string>;
  const noon = Date.UTC(2026, 11, 3, 12);
  const want = [noon, noon + 123, noon + 999, noon + 500, Date.UTC(2026, 11, 3)];
  assert.deepEqual(
    texts.map((t) => out[t]),
    want.map((ms) => [ms, ms]),
  );
  assert.match(String(out.yesterday), /expected unix ms or ISO 8601 text/);
});

test('sqlite: the functions and the backfill read every time text alike (time-text.ts, JavaScript and SQL)', () => {
  const db = open(':memory:');
  const sql = db.prepare(`WITH t(c) AS (SELECT ?) SELECT ${sqliteTextMsSql('c')} FROM t`).pluck();
  const texts = [
    '2026-12-03',
    '2026-12-03 12:00',
    '2026-12-03T12:00:59.999999',
    '2026-12-03 12:00:00.1239 Z',
    '2026-12-03T12:00:00.5-05:30',
    '0099-01-01T00:00:00Z',
    '2026-12-03t12:00:00z',
    '12:00',
    'yesterday',
  ];
  for (const text of texts) {
    const fromSql = sql.get(text) as number | null;
    const fromJs = sqliteTextMs(text);
    assert.equal(fromSql === null ? undefined : Math.floor(fromSql), fromJs, text);
  }
  db.close();
});
