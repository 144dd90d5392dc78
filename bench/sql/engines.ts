/**
 * The three engines of `npm run bench:sql` (main.ts): for each, the key schemes it compares
 * (idforge's functions against the engine's own random UUID and its counter), the table each
 * is inserted into, and a database of the bench's own where idforge's functions are
 * installed (by `openSqlFunctions`, as `idforge sql --apply` does) and which is dropped after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlFunctions, registerIdforgeFunctions } from '@idforge/stores';
import Database from 'better-sqlite3';
import { LAYOUTS } from 'idforge';
import { type SqlEngine, sqlFunctions } from 'idforge/sql';
import mysql from 'mysql2/promise';
import pg from 'pg';

/** One key scheme: its column, the INSERT of one row, and the expression alone. */
export interface Scheme {
  readonly name: string;
  readonly create: string;
  readonly insert: string;
  /** The key expression evaluated alone, or null (a counter column has none). */
  readonly expr: string | null;
  /** One INSERT … SELECT of n rows (one statement, one transaction). */
  readonly bulk: (n: number) => string;
}

/** One connection: runs a statement with parameters. */
export interface Conn {
  run(sql: string, params?: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}

export interface BenchEngine {
  readonly title: string;
  readonly schemes: readonly Scheme[];
  /** How many connections insert at once (SQLite: one, in transactions of `batch` rows). */
  readonly clients: number;
  readonly batch: number;
  /** `SELECT` evaluating `expr` n times. */
  alone(expr: string, n: number): string;
  version(): Promise<string>;
  connect(): Promise<Conn>;
  drop(): Promise<void>;
}

const DB = `idforge_bench_sql_${process.pid}`;

async function install(engine: SqlEngine, url: string): Promise<void> {
  const target = await openSqlFunctions(url);
  try {
    await target.apply(sqlFunctions(engine, { layout: LAYOUTS.default!, node: 1 }));
  } finally {
    await target.close();
  }
}

export async function postgres(base: string, clients: number): Promise<BenchEngine> {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${DB}`;
  await install('postgres', url.toString());
  const table = (name: string, key: string) => ({
    create: `CREATE TABLE b_${name} (id ${key} PRIMARY KEY, payload integer NOT NULL)`,
    insert: `INSERT INTO b_${name} (payload) VALUES ($1)`,
    bulk: (n: number) => `INSERT INTO b_${name} (payload) SELECT i FROM generate_series(1, ${n}) i`,
  });
  const engine: BenchEngine = {
    title: 'PostgreSQL',
    clients,
    batch: 1,
    schemes: [
      {
        name: 'bigint identity',
        ...table('identity', 'bigint GENERATED ALWAYS AS IDENTITY'),
        expr: null,
      },
      {
        name: 'gen_random_uuid()',
        ...table('v4', 'uuid DEFAULT gen_random_uuid()'),
        expr: 'gen_random_uuid()',
      },
      {
        name: 'idforge_uuidv7()',
        ...table('v7', 'uuid DEFAULT idforge_uuidv7()'),
        expr: 'idforge_uuidv7()',
      },
      {
        name: 'idforge_snowflake()',
        ...table('sf', 'bigint DEFAULT idforge_snowflake()'),
        expr: 'idforge_snowflake()',
      },
    ],
    alone: (e, n) => `SELECT count(${e}) FROM generate_series(1, ${n})`,
    async version() {
      const c = await engine.connect();
      const r = (await c.run('SHOW server_version')) as pg.QueryResult;
      await c.close();
      return `PostgreSQL ${r.rows[0].server_version}`;
    },
    async connect() {
      const c = new pg.Client({ connectionString: url.toString() });
      await c.connect();
      return { run: (sql, params) => c.query(sql, params), close: () => c.end() };
    },
    async drop() {
      const a = new pg.Client({ connectionString: base });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
      await a.end();
    },
  };
  return engine;
}

export async function mariadb(base: string, clients: number): Promise<BenchEngine> {
  const opts = { supportBigNumbers: true, bigNumberStrings: true };
  const admin = await mysql.createConnection({ uri: base, ...opts });
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${DB}`;
  await install('mariadb', url.toString());
  // Stored functions cannot be column DEFAULTs in MariaDB: each key is given in the INSERT.
  const table = (name: string, key: string, value: string | null) => ({
    create: `CREATE TABLE b_${name} (id ${key} PRIMARY KEY, payload INT NOT NULL) ENGINE=InnoDB`,
    insert:
      value === null
        ? `INSERT INTO b_${name} (payload) VALUES (?)`
        : `INSERT INTO b_${name} (id, payload) VALUES (${value}, ?)`,
    expr: value,
    bulk: (n: number) =>
      value === null
        ? `INSERT INTO b_${name} (payload) SELECT seq FROM seq_1_to_${n}`
        : `INSERT INTO b_${name} (id, payload) SELECT ${value}, seq FROM seq_1_to_${n}`,
  });
  const engine: BenchEngine = {
    title: 'MariaDB',
    clients,
    batch: 1,
    schemes: [
      { name: 'BIGINT AUTO_INCREMENT', ...table('ai', 'BIGINT AUTO_INCREMENT', null) },
      { name: 'UUID() (v1)', ...table('v1', 'UUID', 'UUID()') },
      { name: 'idforge_uuidv7()', ...table('v7', 'UUID', 'idforge_uuidv7()') },
      { name: 'idforge_snowflake()', ...table('sf', 'BIGINT', 'idforge_snowflake()') },
    ],
    alone: (e, n) => `SELECT SUM(LENGTH(${e})) FROM seq_1_to_${n}`,
    async version() {
      const c = await engine.connect();
      const [rows] = (await c.run('SELECT VERSION() AS v')) as [{ v: string }[]];
      await c.close();
      return `MariaDB ${rows[0]!.v}`;
    },
    async connect() {
      const c = await mysql.createConnection({ uri: url.toString(), ...opts });
      return { run: (sql, params) => c.query(sql, params), close: () => c.end() };
    },
    async drop() {
      const a = await mysql.createConnection({ uri: base, ...opts });
      await a.query(`DROP DATABASE IF EXISTS ${DB}`);
      await a.end();
    },
  };
  return engine;
}

export function sqlite(batch: number): BenchEngine {
  const dir = mkdtempSync(join(tmpdir(), 'idforge-bench-sql-'));
  const db = new Database(join(dir, 'bench.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  registerIdforgeFunctions(db, { layout: LAYOUTS.default!, node: 1 });
  const table = (name: string, key: string, value: string | null) => ({
    create: `CREATE TABLE b_${name} (id ${key} PRIMARY KEY, payload INTEGER NOT NULL)`,
    insert:
      value === null
        ? `INSERT INTO b_${name} (payload) VALUES (?)`
        : `INSERT INTO b_${name} (id, payload) VALUES (${value}, ?)`,
    expr: value,
    bulk: (n: number) =>
      `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n}) ` +
      (value === null
        ? `INSERT INTO b_${name} (payload) SELECT i FROM s`
        : `INSERT INTO b_${name} (id, payload) SELECT ${value}, i FROM s`),
  });
  const conn: Conn = {
    run: async (sql, params) => db.prepare(sql).run(...(params ?? [])),
    close: async () => {},
  };
  return {
    title: 'SQLite',
    clients: 1,
    batch,
    schemes: [
      { name: 'INTEGER PRIMARY KEY (rowid)', ...table('rowid', 'INTEGER', null) },
      { name: 'randomblob(16)', ...table('rb', 'BLOB', 'randomblob(16)') },
      { name: 'idforge_uuidv7()', ...table('v7', 'TEXT', 'idforge_uuidv7()') },
      { name: 'idforge_snowflake()', ...table('sf', 'INTEGER', 'idforge_snowflake()') },
    ],
    alone: (e, n) =>
      `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n}) SELECT count(${e}) FROM s`,
    version: async () =>
      `SQLite ${(db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v} (WAL, synchronous NORMAL, better-sqlite3, one connection)`,
    connect: async () => conn,
    drop: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
