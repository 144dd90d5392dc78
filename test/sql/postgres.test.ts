// `idforge sql` on PostgreSQL (IDFORGE_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test):
// the in-database suite (suite.ts) in a database of its own, dropped at the end.
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { serviceSkip } from '../helpers/services.js';
import type { Engine, Session } from './engine.js';
import { engineSuite } from './suite.js';

const BASE = process.env.IDFORGE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const base = new URL(BASE);
const skip = await serviceSkip('PostgreSQL', base.hostname, Number(base.port || 5432));
const DB = `idforge_sql_${process.pid}`;
const url = new URL(BASE);
url.pathname = `/${DB}`;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: BASE });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const engine: Engine = {
  name: 'postgres',
  url: url.toString(),
  create: () => admin((c) => c.query(`CREATE DATABASE ${DB}`)).then(() => {}),
  drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`)).then(() => {}),
  async session(): Promise<Session> {
    const c = new pg.Client({ connectionString: url.toString() });
    await c.connect();
    return {
      rows: async (sql) => (await c.query(sql)).rows,
      close: () => c.end(),
    };
  },
  series: (n) => `generate_series(1, ${n})`,
  ts: (ms) => `'${new Date(ms).toISOString()}'::timestamptz`,
  ms: (e) => `floor(extract(epoch FROM ${e}) * 1000)::bigint::text`,
  text: (e) => `(${e})::text`,
  setNow: (ms) => (ms === null ? 'RESET idforge.now_ms' : `SET idforge.now_ms = '${ms}'`),
  boundWaits: "SET statement_timeout = '2s'",
  bounds: (kind, from, to) =>
    `SELECT lowest::text AS lowest, highest::text AS highest FROM idforge_${kind}_bounds(${from}, ${to})`,
  async objects(s) {
    const rows = await s.rows(`SELECT relname AS v FROM pg_class WHERE relname LIKE 'idforge%'
      AND relnamespace = 'public'::regnamespace AND relkind IN ('r', 'S')
      UNION SELECT proname FROM pg_proc WHERE proname LIKE 'idforge%' AND pronamespace = 'public'::regnamespace
      ORDER BY 1`);
    return [...new Set(rows.map((r) => r.v!))];
  },
  maxTimeMs: 2 ** 48 - 1,
  async runScript(text) {
    execFileSync('psql', ['-v', 'ON_ERROR_STOP=1', '-q', '-d', url.toString()], { input: text });
  },
  userFunction: 'CREATE FUNCTION idforge_mine() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$',
};

engineSuite(engine, skip);
