// The MariaDB adapter of the in-database tests (IDFORGE_MYSQL_URL, default
// mysql://root@127.0.0.1:3306/test): the suite's Engine over a database of the caller's own
// (its name carries a tag and the process id, so test files running at once never share
// one), shared by mariadb.test.ts and the MariaDB-only files.
import { execFileSync } from 'node:child_process';
import mysql from 'mysql2/promise';
import { serviceSkip } from '../helpers/services.js';
import type { Engine, Session } from './engine.js';

export const MARIADB_BASE = process.env.IDFORGE_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const base = new URL(MARIADB_BASE);

/** The skip reason when no MariaDB answers (false when one does). */
export const mariadbSkip = (): Promise<string | false> =>
  serviceSkip('MariaDB', base.hostname, Number(base.port || 3306));

const OPTIONS = { supportBigNumbers: true, bigNumberStrings: true, dateStrings: true } as const;

/** One statement on a connection of its own to the server (no database). */
export async function mariadbAdmin(sql: string): Promise<void> {
  const c = await mysql.createConnection({ uri: MARIADB_BASE, ...OPTIONS });
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** The URL of database `db` on the test server. */
export function mariadbUrl(db: string): string {
  const url = new URL(MARIADB_BASE);
  url.pathname = `/${db}`;
  return url.toString();
}

/** A session on `url`: rows as objects of text values. */
export async function mariadbSession(url: string): Promise<Session> {
  const c = await mysql.createConnection({ uri: url, ...OPTIONS });
  return {
    rows: async (sql) => {
      const [rows] = await c.query(sql);
      return Array.isArray(rows) ? (rows as Record<string, string>[]) : [];
    },
    close: () => c.end(),
  };
}

/** The engine adapter over database `idforge_sql_<tag>_<pid>`. */
export function mariadbEngine(tag: string): Engine {
  const db = `idforge_sql_${tag}_${process.pid}`;
  const url = mariadbUrl(db);
  return {
    name: 'mariadb',
    url,
    create: () => mariadbAdmin(`CREATE DATABASE ${db}`),
    drop: () => mariadbAdmin(`DROP DATABASE IF EXISTS ${db}`),
    session: () => mariadbSession(url),
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
        ['-h', u.hostname, '-P', u.port || '3306', '-u', decodeURIComponent(u.username), db],
        { input: text },
      );
    },
    userFunction: 'CREATE FUNCTION idforge_mine() RETURNS INT DETERMINISTIC RETURN 1',
  };
}
