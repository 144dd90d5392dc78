// `idforge bench db` on the real engines: SQLite (a temp file), PostgreSQL and MariaDB (the
// shared servers, in a database of the test's own: idforge_bench_test). Small loads: what is
// checked is that every figure the engine gives arrives, in the right field, with the right
// sign, and that the bench leaves nothing behind. The real figures are in docs/benchmarks.md.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  type BenchEngine,
  BenchTargetInUseError,
  benchTable,
  type DbBenchReport,
  defaultSchemes,
  runDbBench,
} from '../../packages/idforge/src/bench/index.js';
import { openBenchEngine } from '../../packages/stores/src/index.js';
import { serviceSkip } from '../helpers/services.js';
import { tempDir } from '../helpers/temp.js';

const PG_ADMIN = 'postgres://postgres@127.0.0.1:5432/test';
const PG_URL = 'postgres://postgres@127.0.0.1:5432/idforge_bench_test';
const MY_URL = 'mysql://root@127.0.0.1:3306/idforge_bench_test';

const ORDERED = ['bigint', 'sequence', 'snowflake', 'uuidv7', 'ulid', 'uuidv7-text', 'uuidv1-swap'];

/** What every engine's report must hold for a small default run. */
function checkReport(report: DbBenchReport, engine: string, rows: number): void {
  assert.equal(report.format, 'idforge.bench-db/1');
  assert.equal(report.engine, engine);
  assert.equal(report.rows, rows);
  assert.deepEqual(
    report.schemes.map((s) => s.scheme),
    defaultSchemes(report.engine),
  );
  assert.match(report.regime, /fits|does not fit/);
  for (const s of report.schemes) {
    const where = `${engine} ${s.scheme}`;
    assert.ok(s.loadSeconds > 0 && s.rowsPerSecond > 0, where);
    assert.ok(s.rowsPerSecondByTenth.length >= 1 && s.rowsPerSecondByTenth.length <= 10, where);
    assert.ok(
      s.rowsPerSecondByTenth.every((r) => r > 0),
      where,
    );
    assert.ok((s.tableBytes ?? 0) > 0, `${where} tableBytes`);
    assert.ok((s.primaryIndexBytes ?? 0) > 0, `${where} primaryIndexBytes`);
    if (ORDERED.includes(s.scheme)) assert.equal(s.orderInversions, 0, `${where} inversions`);
    else assert.ok(s.orderInversions > rows / 2, `${where}: random keys are mostly not appended`);
  }
  const by = (name: string) => report.schemes.find((s) => s.scheme === name)!;
  // 36 characters of text make a bigger primary index than 16 bytes, for the same keys.
  assert.ok(by('uuidv7-text').primaryIndexBytes! > by('uuidv7').primaryIndexBytes!);
}

/** The bench's tables left in the target (none after a run without --keep). */
async function leftovers(url: string): Promise<string[]> {
  const engine = await openBenchEngine(url);
  try {
    const all = await engine.foreignObjects();
    assert.deepEqual(all, [], 'the test database holds only what the bench made');
    return [];
  } finally {
    await engine.close();
  }
}

describe('bench db on SQLite', () => {
  const { dir, remove: removeDir } = tempDir('idforge-bench-');
  const url = `sqlite:${join(dir, 'bench.db')}`;
  after(removeDir);

  test('a default run measures every scheme and drops its tables', async () => {
    const engine = await openBenchEngine(url);
    let report: DbBenchReport;
    try {
      report = await runDbBench(engine, {
        rows: 2000,
        batch: 500,
        schemes: defaultSchemes('sqlite'),
      });
    } finally {
      await engine.close();
    }
    checkReport(report, 'sqlite', 2000);
    for (const s of report.schemes) {
      assert.ok(s.primaryLeafDensity! > 0 && s.primaryLeafDensity! <= 1, s.scheme);
      assert.equal(s.walBytes, null, 'SQLite keeps no WAL counter: null, not 0');
    }
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(join(dir, 'bench.db'));
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all();
    db.close();
    assert.deepEqual(tables, [], 'tables and the segment table are gone');
  });

  test('refuses a file holding tables of others, unless forced', async () => {
    const other = `sqlite:${join(dir, 'other.db')}`;
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(join(dir, 'other.db'));
    db.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY)');
    db.close();
    const engine = await openBenchEngine(other);
    try {
      await assert.rejects(
        runDbBench(engine, { rows: 10, schemes: ['uuidv7'] }),
        (e: unknown) =>
          e instanceof BenchTargetInUseError &&
          e.code === 'IDF_BENCH_TARGET_IN_USE' &&
          e.objects.join() === 'orders' &&
          /--force/.test(e.message),
      );
      const forced = await runDbBench(engine, { rows: 10, schemes: ['uuidv7'], force: true });
      assert.equal(forced.schemes[0]!.rows, 10);
    } finally {
      await engine.close();
    }
  });

  test('--keep leaves the table, and the next run replaces it as its own', async () => {
    let engine = await openBenchEngine(url);
    await runDbBench(engine, { rows: 50, schemes: ['ulid'], keep: true });
    await engine.close();
    engine = await openBenchEngine(url);
    try {
      assert.deepEqual(await engine.foreignObjects(), [], 'a kept table is the bench’s own');
      const again = await runDbBench(engine, { rows: 30, schemes: ['ulid'] });
      assert.equal(again.schemes[0]!.rows, 30);
    } finally {
      await engine.close();
    }
    await leftovers(url);
  });

  test('an abort between batches drops the half-loaded table and rejects', async () => {
    const engine = await openBenchEngine(url);
    const controller = new AbortController();
    try {
      await assert.rejects(
        runDbBench(engine, {
          rows: 5000,
          batch: 100,
          schemes: ['uuidv4', 'uuidv7'],
          keep: true,
          signal: controller.signal,
          onProgress: (p) => {
            if (p.rows >= 1000) controller.abort(new Error('SIGINT'));
          },
        }),
        /SIGINT/,
      );
    } finally {
      await engine.close();
    }
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(join(dir, 'bench.db'));
    const left = db
      .prepare('SELECT name FROM sqlite_schema WHERE name = ?')
      .all(benchTable('uuidv4'));
    db.close();
    assert.deepEqual(left, [], 'even with --keep, an interrupted load is dropped');
  });

  test('rows, batch and schemes are checked before anything is created', async () => {
    const engine = await openBenchEngine(url);
    try {
      await assert.rejects(runDbBench(engine, { rows: 0, schemes: ['uuidv7'] }), RangeError);
      await assert.rejects(
        runDbBench(engine, { rows: 10, batch: 10_001, schemes: ['uuidv7'] }),
        RangeError,
      );
      await assert.rejects(runDbBench(engine, { rows: 10, schemes: [] }), RangeError);
    } finally {
      await engine.close();
    }
  });
});

describe('bench db on PostgreSQL', async () => {
  const skip = await serviceSkip('PostgreSQL', '127.0.0.1', 5432);
  before(async () => {
    if (skip) return;
    const admin = new pg.Client({ connectionString: PG_ADMIN });
    await admin.connect();
    const exists = await admin.query(
      "SELECT 1 FROM pg_database WHERE datname = 'idforge_bench_test'",
    );
    if (exists.rowCount === 0) await admin.query('CREATE DATABASE idforge_bench_test');
    await admin.end();
  });

  test('a default run: sizes, leaf density, WAL and full-page images', { skip }, async () => {
    const engine: BenchEngine = await openBenchEngine(PG_URL);
    let report: DbBenchReport;
    try {
      report = await runDbBench(engine, {
        rows: 2000,
        batch: 500,
        schemes: defaultSchemes('postgres'),
      });
    } finally {
      await engine.close();
    }
    checkReport(report, 'postgres', 2000);
    assert.match(report.settings.shared_buffers ?? '', /\d/);
    assert.ok(report.cacheBytes! > 0);
    for (const s of report.schemes) {
      assert.ok(s.walBytes! > 0, `${s.scheme} walBytes`);
      assert.ok(s.fullPageImages! >= 0, `${s.scheme} fullPageImages is measured`);
      assert.ok(s.primaryLeafDensity! > 0 && s.primaryLeafDensity! <= 1, `${s.scheme} density`);
      assert.ok(s.secondaryIndexBytes! > 0);
    }
    await leftovers(PG_URL);
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const schema = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = 'idforge_bench'");
    await client.end();
    assert.equal(schema.rowCount, 0, 'the bench schema is dropped at close');
  });

  test('a table of another schema makes the database foreign', { skip }, async () => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query('CREATE TABLE IF NOT EXISTS public.users (id int)');
    const engine = await openBenchEngine(PG_URL);
    try {
      assert.deepEqual(await engine.foreignObjects(), ['public.users']);
    } finally {
      await engine.close();
      await client.query('DROP TABLE public.users');
      await client.end();
    }
  });
});

describe('bench db on MariaDB', async () => {
  const skip = await serviceSkip('MariaDB', '127.0.0.1', 3306);
  before(async () => {
    if (skip) return;
    const admin = await mysql.createConnection({ host: '127.0.0.1', user: 'root' });
    await admin.query('CREATE DATABASE IF NOT EXISTS idforge_bench_test');
    await admin.end();
  });

  test('a default run: clustered sizes, page splits, redo bytes', { skip }, async () => {
    const engine = await openBenchEngine(MY_URL);
    let report: DbBenchReport;
    try {
      report = await runDbBench(engine, {
        rows: 2000,
        batch: 500,
        schemes: defaultSchemes('mysql'),
      });
    } finally {
      await engine.close();
    }
    checkReport(report, 'mysql', 2000);
    assert.ok(defaultSchemes('mysql').includes('uuidv1-swap'));
    assert.match(report.settings.innodb_buffer_pool_size ?? '', /^\d+$/);
    for (const s of report.schemes) {
      assert.ok(s.redoBytes! > 0, `${s.scheme} redoBytes`);
      assert.ok(s.pageSplits! >= 0, `${s.scheme} page splits are measured`);
      assert.equal(s.tableBytes, s.primaryIndexBytes, 'InnoDB: the table is its primary index');
    }
    const by = (n: string) => report.schemes.find((s) => s.scheme === n)!;
    assert.ok(by('uuidv4').pageSplits! > 0, 'random keys split pages in the middle');
    await leftovers(MY_URL);
    const conn = await mysql.createConnection({ host: '127.0.0.1', user: 'root' });
    const [metrics] = await conn.query(
      "SELECT ENABLED + 0 AS e FROM information_schema.INNODB_METRICS WHERE name = 'index_page_splits'",
    );
    await conn.end();
    assert.equal(
      Number((metrics as { e: number }[])[0]!.e),
      0,
      'the metric it enabled is off again',
    );
  });

  test('a table of another name makes the database foreign', { skip }, async () => {
    const conn = await mysql.createConnection({
      host: '127.0.0.1',
      user: 'root',
      database: 'idforge_bench_test',
    });
    await conn.query('CREATE TABLE IF NOT EXISTS users (id int)');
    const engine = await openBenchEngine(MY_URL);
    try {
      assert.deepEqual(await engine.foreignObjects(), ['users']);
    } finally {
      await engine.close();
      await conn.query('DROP TABLE users');
      await conn.end();
    }
  });
});
