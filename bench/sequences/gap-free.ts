/**
 * Section 3 of `npm run bench:sequences`: what a gap-free number costs. Per engine, numbers per
 * second of a transaction that numbers one invoice row and commits (BEGIN; number; INSERT;
 * COMMIT), the number taken three ways:
 *   - segment next(): a FormattedSequence over the engine's segment store (buffered, not
 *     gap-free: a restart wastes the rest of the segment);
 *   - gap-free next(tx), 1 writer: GapFreeSequence on the transaction's own connection;
 *   - gap-free next(tx), 4 writers at once (PostgreSQL, MariaDB): they queue on the period's
 *     row lock, one holder at a time from its UPDATE to its COMMIT.
 * SQLite has one writer at a time by design; its multi-process case is the test
 * (test/sequences/gap-free-sqlite.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  defineNumberFormat,
  describeFormat,
  FormattedSequence,
  GapFreeSequence,
  type GapFreeStore,
  segmentSource,
} from '../../packages/idforge/src/sequences/index.js';
import {
  MysqlGapFreeStore,
  PostgresGapFreeStore,
  SqliteGapFreeStore,
} from '../../packages/stores/src/index.js';
import { openSegmentStore } from '../../packages/stores/src/open.js';

/** Rounds per case; the median is printed. */
const ROUNDS = 3;

const format = defineNumberFormat('INV-{yyyy}-{mm}-{n:6}', { reset: 'monthly' });

/** One connection of an engine: a transaction around `body`, an insert, the gap-free store. */
interface Writer {
  tx: unknown;
  inTx(body: () => Promise<string>): Promise<void>;
  insert(text: string): Promise<void>;
  close(): Promise<void>;
}

interface Engine {
  name: string;
  segmentUrl: string;
  store: GapFreeStore<unknown>;
  writer(): Promise<Writer>;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  concurrent: boolean;
}

function postgres(ns: string): Engine {
  const url = 'postgres://postgres@127.0.0.1:5432/test';
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  return {
    name: 'postgres',
    segmentUrl: `${url}?namespace=${ns}`,
    store: new PostgresGapFreeStore({ pool, namespace: ns }) as GapFreeStore<unknown>,
    concurrent: true,
    setup: async () =>
      void (await pool.query(
        `CREATE SCHEMA IF NOT EXISTS "${ns}"; CREATE TABLE "${ns}".inv (text text)`,
      )),
    teardown: async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${ns}" CASCADE`);
      await pool.end();
    },
    async writer() {
      const c = await pool.connect();
      return {
        tx: c,
        async inTx(body) {
          await c.query('BEGIN');
          await body();
          await c.query('COMMIT');
        },
        insert: async (t) => void (await c.query(`INSERT INTO "${ns}".inv VALUES ($1)`, [t])),
        close: async () => c.release(),
      };
    },
  };
}

function mariadb(ns: string): Engine {
  const url = 'mysql://root@127.0.0.1:3306/test';
  const pool = mysql.createPool({ uri: url, connectionLimit: 8 });
  return {
    name: 'mysql',
    segmentUrl: `${url}?namespace=${ns}`,
    store: new MysqlGapFreeStore({ pool, namespace: ns }) as GapFreeStore<unknown>,
    concurrent: true,
    setup: async () => void (await pool.query(`CREATE TABLE \`${ns}_inv\` (text VARCHAR(32))`)),
    teardown: async () => {
      await pool.query(
        `DROP TABLE IF EXISTS \`${ns}_inv\`, \`${ns}_gap_free\`, \`${ns}_segments\``,
      );
      await pool.end();
    },
    async writer() {
      const c = await pool.getConnection();
      return {
        tx: c,
        async inTx(body) {
          await c.query('START TRANSACTION');
          await body();
          await c.query('COMMIT');
        },
        insert: async (t) => void (await c.query(`INSERT INTO \`${ns}_inv\` VALUES (?)`, [t])),
        close: async () => c.release(),
      };
    },
  };
}

function sqlite(dir: string): Engine {
  const file = join(dir, 'gapfree.db');
  const db = new Database(file, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  return {
    name: 'sqlite',
    segmentUrl: `sqlite:${join(dir, 'segments.db')}`,
    store: new SqliteGapFreeStore({ database: db }) as GapFreeStore<unknown>,
    concurrent: false,
    setup: async () => void db.exec('CREATE TABLE inv (text TEXT)'),
    teardown: async () => void db.close(),
    async writer() {
      const ins = db.prepare('INSERT INTO inv VALUES (?)');
      return {
        tx: db,
        async inTx(body) {
          db.exec('BEGIN IMMEDIATE');
          await body();
          db.exec('COMMIT');
        },
        insert: async (t) => void ins.run(t),
        close: async () => undefined,
      };
    },
  };
}

/** Transactions per second of `writers` writers doing `each` transactions, numbered by `take`. */
async function rate(
  engine: Engine,
  writers: number,
  each: number,
  take: (w: Writer) => Promise<string>,
): Promise<number> {
  const ws = await Promise.all(Array.from({ length: writers }, () => engine.writer()));
  const t0 = performance.now();
  await Promise.all(
    ws.map(async (w) => {
      for (let i = 0; i < each; i++)
        await w.inTx(async () => {
          const text = await take(w);
          await w.insert(text);
          return text;
        });
    }),
  );
  const s = (performance.now() - t0) / 1000;
  await Promise.all(ws.map((w) => w.close()));
  return (writers * each) / s;
}

async function measure(engine: Engine, each: number): Promise<string[][]> {
  await engine.setup();
  await engine.store.migrate();
  const segments = await openSegmentStore(engine.segmentUrl);
  await segments.migrate();
  await segments.createTag('inv', { step: 1000, description: describeFormat(format) });
  const seg = new FormattedSequence(segmentSource(segments), 'inv', format);
  const gap = new GapFreeSequence(engine.store, 'inv', format);
  // Warm-up, not counted: the first transactions pay for JIT, files and pools.
  await rate(engine, 1, 100, async () => (await seg.next()).text);
  await rate(engine, 1, 100, async (w) => (await gap.next(w.tx)).text);
  const cases: [string, number, (w: Writer) => Promise<string>][] = [
    ['segment next()', 1, async () => (await seg.next()).text],
    ['gap-free next(tx)', 1, async (w) => (await gap.next(w.tx)).text],
  ];
  if (engine.concurrent)
    cases.push([cases[0]![0], 4, cases[0]![2]], [cases[1]![0], 4, cases[1]![2]]);
  // Rounds interleave the cases (a shared machine's load then falls on all alike); the median.
  const rates: number[][] = cases.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, writers, take]] of cases.entries()) {
      rates[i]!.push(await rate(engine, writers, each, take));
    }
  }
  const rows = cases.map(([how, writers], i) => {
    const sorted = rates[i]!.sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    return [engine.name, how, String(writers), Math.round(median).toLocaleString('en-US')];
  });
  seg.close();
  await segments.close();
  await engine.teardown();
  return rows;
}

export async function gapFreePath(quick: boolean): Promise<void> {
  console.log(
    '\n## 3. Gap-free numbers: one row lock per number (BEGIN; number; INSERT; COMMIT)\n',
  );
  const each = quick ? 200 : 1000;
  const ns = `bench_gf_${randomBytes(3).toString('hex')}`;
  const rows: string[][] = [['engine', 'number taken by', 'writers', 'transactions/s']];
  const engines = [
    sqlite(mkdtempSync(join(tmpdir(), 'idforge-bench-gf-'))),
    postgres(ns),
    mariadb(ns),
  ];
  for (const engine of engines) {
    try {
      rows.push(...(await measure(engine, each)));
    } catch (e) {
      console.log(`(skipping ${engine.name}: ${(e as Error).message.split('\n')[0]})`);
      await engine.teardown().catch(() => undefined);
    }
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
  console.log(
    `\n${each} transactions per writer, median of ${ROUNDS} interleaved rounds. A gap-free period takes one transaction at a time: its row is locked from next(tx) to COMMIT, so concurrent writers queue on it (the rate is bounded by one holder at a time: its UPDATE, INSERT and COMMIT; more writers only overlap their BEGINs and round trips); segment numbers are taken without a lock in the caller's transaction (and are not gap-free).`,
  );
}
