// `idforge sql` on MariaDB (IDFORGE_MYSQL_URL, default mysql://root@127.0.0.1:3306/test): the
// in-database suite (suite.ts) in a database of its own, dropped at the end.
import { execFileSync } from 'node:child_process';
import mysql from 'mysql2/promise';
import { serviceSkip } from '../helpers/services.js';
import type { Engine, Session } from './engine.js';
import { engineSuite } from './suite.js';

const BASE = process.env.IDFORGE_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const base = new URL(BASE);
const skip = await serviceSkip('MariaDB', base.hostname, Number(base.port || 3306));
const DB = `idforge_sql_${process.pid}`;
const url = new URL(BASE);
url.pathname = `/${DB}`;

const OPTIONS = { supportBigNumbers: true, bigNumberStrings: true, dateStrings: true } as const;

async function admin(sql: string): Promise<void> {
  const c = await mysql.createConnection({ uri: BASE, ...OPTIONS });
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const engine: Engine = {
  name: 'mariadb',
  url: url.toString(),
  create: () => admin(`CREATE DATABASE ${DB}`),
  drop: () => admin(`DROP DATABASE IF EXISTS ${DB}`),
  async session(): Promise<Session> {
    const c = await mysql.createConnection({ uri: url.toString(), ...OPTIONS });
    return {
      rows: async (sql) => {
        const [rows] = await c.query(sql);
        return Array.isArray(rows) ? (rows as Record<string, string>[]) : [];
      },
      close: () => c.end(),
    };
  },
  series: (n) => `seq_1_to_${n}`,
  ts: (ms) => `TIMESTAMP '${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')}'`,
  ms: (e) => `CAST(idforge_ms(${e}) AS CHAR)`,
  text: (e) => `CAST(${e} AS CHAR)`,
  setNow: (ms) => `SET @idforge_now_ms = ${ms === null ? 'NULL' : ms}`,
  boundWaits: 'SET SESSION lock_wait_timeout = 2',
  bounds: (kind, from, to) =>
    `SELECT JSON_VALUE(b, '$.lowest') AS lowest, JSON_VALUE(b, '$.highest') AS highest FROM (SELECT idforge_${kind}_bounds(${from}, ${to}) AS b) x`,
  async objects(s) {
    const rows = await s.rows(`SELECT table_name AS v FROM information_schema.tables
      WHERE table_schema = DATABASE() AND table_name LIKE 'idforge%'
      UNION SELECT routine_name FROM information_schema.routines
      WHERE routine_schema = DATABASE() AND routine_name LIKE 'idforge%' ORDER BY 1`);
    return rows.map((r) => r.v!);
  },
  maxTimeMs: Date.parse('9999-12-31T23:59:59.999Z'),
  async runScript(text) {
    const u = new URL(url);
    execFileSync(
      'mysql',
      ['-h', u.hostname, '-P', u.port || '3306', '-u', decodeURIComponent(u.username), DB],
      { input: text },
    );
  },
  userFunction: 'CREATE FUNCTION idforge_mine() RETURNS INT DETERMINISTIC RETURN 1',
};

engineSuite(engine, skip);
