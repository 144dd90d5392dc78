// The gap-free stores the edge and refusal tests run on, one per engine, each with its own
// connection and a fresh namespace `t_<tag>_<random>` (the stores' own tables). Called inside a
// describe(): after that suite the table or schema is dropped and the connection closed.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after } from 'node:test';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { MysqlPromisePool } from '../../packages/stores/src/driver-types.js';
import {
  MysqlGapFreeStore,
  PostgresGapFreeStore,
  SqliteGapFreeStore,
} from '../../packages/stores/src/index.js';
import { SERVERS } from '../helpers/namespaces.js';
import { tempDir } from '../helpers/temp.js';

const namespace = (tag: string) => `t_${tag}_${randomBytes(4).toString('hex')}`;

/** A SQLite file of a temporary directory, and a store on it; both removed after the suite. */
export function sqliteGapFree(tag: string): {
  db: Database.Database;
  store: SqliteGapFreeStore;
} {
  const { dir, remove } = tempDir(`idforge-${tag}-`);
  const db = new Database(join(dir, `${tag}.db`));
  after(() => {
    db.close();
    remove();
  });
  const store = new SqliteGapFreeStore({ database: db, namespace: namespace(tag) });
  return { db, store };
}

/** A pool of `max` on the shared PostgreSQL, and a store on schema `ns`; dropped after. */
export function postgresGapFree(tag: string, max: number) {
  const ns = namespace(tag);
  const pool = new pg.Pool({ connectionString: SERVERS.postgres.url, max });
  after(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${ns}" CASCADE`);
    await pool.end();
  });
  const store = new PostgresGapFreeStore({ pool, namespace: ns });
  return { ns, pool, store };
}

/** A pool of `connectionLimit` on the shared MariaDB, and a store on prefix `ns`; dropped after. */
export function mysqlGapFree(tag: string, connectionLimit: number, lockTimeoutMs?: number) {
  const ns = namespace(tag);
  const pool = mysql.createPool({ uri: SERVERS.mysql.url, connectionLimit });
  after(async () => {
    await pool.query(`DROP TABLE IF EXISTS \`${ns}_gap_free\``);
    await pool.end();
  });
  const store = new MysqlGapFreeStore({
    pool: pool as unknown as MysqlPromisePool,
    namespace: ns,
    ...(lockTimeoutMs === undefined ? {} : { lockTimeoutMs }),
  });
  return { ns, pool, store };
}
