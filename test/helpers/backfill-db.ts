// The backfill tests' own hands on each engine: one connection apart from the backfill's (the
// application's, in the concurrent-writer test), making, reading and dropping tables of the
// test's own (named with the process id, so two runs on one server never meet).

import { after, before } from 'node:test';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { BackfillTarget } from '../../packages/idforge/src/public/index.js';
import { openBackfillTarget } from '../../packages/stores/src/index.js';
import { serviceSkip } from './services.js';

export const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const MY_URL = 'mysql://root@127.0.0.1:3306/test';

export type Engine = 'sqlite' | 'postgres' | 'mysql';

/** One connection of the test's own. Values read back as text (hex for bytes). */
export interface TestDb {
  readonly engine: Engine;
  /** The --store URL of the database. */
  readonly url: string;
  exec(sql: string, values?: unknown[]): Promise<void>;
  rows<R>(sql: string, values?: unknown[]): Promise<R[]>;
  /** `id` → the column's value as text (null when NULL), every row. */
  values(table: string, column: string): Promise<Map<string, string | null>>;
  /** The column's type as the engine names it, lower case. */
  columnType(table: string, column: string): Promise<string>;
  /** Names of unique indexes on exactly `column`. */
  uniqueIndexes(table: string, column: string): Promise<string[]>;
  /** The SQL type of the integer key and of a short text column. */
  readonly bigint: string;
  readonly text: string;
  close(): Promise<void>;
}

/** A skip reason when the engine's server is absent (and not required). */
export async function engineSkip(engine: Engine): Promise<string | false> {
  if (engine === 'postgres') return serviceSkip('PostgreSQL', '127.0.0.1', 5432);
  if (engine === 'mysql') return serviceSkip('MariaDB', '127.0.0.1', 3306);
  return false;
}

/** A connection to the engine's test database (`sqlitePath` for SQLite). */
export async function openTestDb(engine: Engine, sqlitePath: string): Promise<TestDb> {
  if (engine === 'sqlite') {
    const db = new Database(sqlitePath);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    const run = (sql: string, values: unknown[] = []) => {
      if (values.length === 0 && !/^\s*select/i.test(sql)) {
        db.exec(sql);
        return [];
      }
      const s = db.prepare(sql);
      if (s.reader) return s.all(...values);
      s.run(...values);
      return [];
    };
    return make(engine, `sqlite:${sqlitePath}`, 'INTEGER', 'TEXT', {
      exec: async (sql, v) => void run(sql, v),
      rows: async (sql, v) => run(sql, v) as never[],
      hex: (c) => `hex(${c})`,
      close: async () => {
        db.close();
      },
      columnType: async (t, c) =>
        (
          db.prepare(`SELECT type FROM pragma_table_info(?) WHERE name = ?`).get(t, c) as {
            type: string;
          }
        ).type,
      uniqueIndexes: async (t, c) =>
        (
          db
            .prepare(
              `SELECT l.name FROM pragma_index_list(?) l WHERE l."unique" = 1
                 AND (SELECT count(*) FROM pragma_index_info(l.name)) = 1
                 AND (SELECT name FROM pragma_index_info(l.name)) = ?`,
            )
            .all(t, c) as { name: string }[]
        ).map((r) => r.name),
    });
  }
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    return make(engine, PG_URL, 'bigint', 'text', {
      exec: async (sql, v) => void (await client.query(sql, v)),
      rows: async (sql, v) => (await client.query(sql, v)).rows as never[],
      hex: (c) => `${c}::text`,
      close: () => client.end(),
      columnType: async (t, c) =>
        (
          await client.query(
            `SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute
              WHERE attrelid = $1::regclass AND attname = $2`,
            [t, c],
          )
        ).rows[0].t,
      uniqueIndexes: async (t, c) =>
        (
          await client.query(
            `SELECT i.indexrelid::regclass::text AS n FROM pg_index i
               JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
              WHERE i.indrelid = $1::regclass AND i.indisunique AND i.indisvalid
                AND i.indnatts = 1 AND a.attname = $2`,
            [t, c],
          )
        ).rows.map((r) => r.n),
    });
  }
  const conn = await mysql.createConnection({
    uri: MY_URL,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  return make(engine, MY_URL, 'BIGINT', 'VARCHAR(40)', {
    exec: async (sql, v) => void (await conn.query(sql, v)),
    rows: async (sql, v) => (await conn.query(sql, v))[0] as never[],
    hex: (c) => `HEX(${c})`,
    close: () => conn.end(),
    columnType: async (t, c) =>
      (
        (
          await conn.query(
            `SELECT COLUMN_TYPE AS t FROM information_schema.COLUMNS
              WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?`,
            [t, c],
          )
        )[0] as { t: string }[]
      )[0]!.t,
    uniqueIndexes: async (t, c) =>
      (
        (
          await conn.query(
            `SELECT INDEX_NAME AS n FROM information_schema.STATISTICS
              WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND NON_UNIQUE = 0
              GROUP BY INDEX_NAME HAVING COUNT(*) = 1 AND MIN(COLUMN_NAME) = ?`,
            [t, c],
          )
        )[0] as { n: string }[]
      ).map((r) => r.n),
  });
}

interface Parts {
  exec(sql: string, values?: unknown[]): Promise<void>;
  rows(sql: string, values?: unknown[]): Promise<never[]>;
  hex(column: string): string;
  close(): Promise<void>;
  columnType(table: string, column: string): Promise<string>;
  uniqueIndexes(table: string, column: string): Promise<string[]>;
}

function make(engine: Engine, url: string, bigint: string, text: string, p: Parts): TestDb {
  return {
    engine,
    url,
    bigint,
    text,
    exec: p.exec,
    rows: p.rows,
    close: p.close,
    uniqueIndexes: p.uniqueIndexes,
    columnType: async (t, c) => (await p.columnType(t, c)).toLowerCase(),
    async values(table, column) {
      const rows = await p.rows(`SELECT id, ${p.hex(column)} AS v FROM ${table}`);
      const out = new Map<string, string | null>();
      for (const r of rows as { id: unknown; v: string | null }[]) {
        out.set(String(r.id), r.v === null || r.v === '' ? null : String(r.v).toLowerCase());
      }
      return out;
    },
  };
}

/** A table `name` of `rows` rows: ids 1, 3, 5... (odd, so a writer can insert between them). */
export async function seedTable(db: TestDb, name: string, rows: number): Promise<void> {
  await db.exec(`DROP TABLE IF EXISTS ${name}`);
  await db.exec(`CREATE TABLE ${name} (id ${db.bigint} PRIMARY KEY, payload ${db.text} NOT NULL)`);
  for (let from = 0; from < rows; from += 1000) {
    const tuples: string[] = [];
    for (let i = from; i < Math.min(rows, from + 1000); i++)
      tuples.push(`(${2 * i + 1}, 'p${2 * i + 1}')`);
    await db.exec(`INSERT INTO ${name} (id, payload) VALUES ${tuples.join(',')}`);
  }
}

/** Every row has a value, and no value repeats. */
export function assertFilledOnce(values: Map<string, string | null>): void {
  const seen = new Set<string>();
  for (const [id, v] of values) {
    if (v === null) throw new Error(`row ${id} is not filled`);
    if (seen.has(v)) throw new Error(`value ${v} repeats (row ${id})`);
    seen.add(v);
  }
}

/** A suite's own connection and runBackfill target on one engine (backfillSuite). */
export interface BackfillSuite {
  /** Open from the suite's `before` to its `after`. */
  readonly db: TestDb;
  readonly target: BackfillTarget;
  /** Tables the suite made: dropped after it. */
  readonly made: string[];
}

/**
 * Registers, in the calling describe, the opening of a connection to `engine`'s test database
 * (`sqlitePath` for SQLite) and of a backfill target on it before the tests, and after them the
 * closing of both, with every table in `made` dropped. Nothing is opened when `skip`.
 */
export function backfillSuite(
  engine: Engine,
  sqlitePath: string,
  skip: string | false,
): BackfillSuite {
  let db: TestDb | undefined;
  let target: BackfillTarget | undefined;
  const made: string[] = [];
  before(async () => {
    if (skip) return;
    db = await openTestDb(engine, sqlitePath);
    target = await openBackfillTarget(db.url);
  });
  after(async () => {
    if (skip) return;
    await target?.close();
    for (const name of made) await db?.exec(`DROP TABLE IF EXISTS ${name}`);
    await db?.close();
  });
  const opened = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error(`the ${engine} backfill suite is not open`);
    return value;
  };
  return {
    get db() {
      return opened(db);
    },
    get target() {
      return opened(target);
    },
    made,
  };
}
