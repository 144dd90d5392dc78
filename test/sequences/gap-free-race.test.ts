// Two transactions creating the same gap-free period row at once, on each engine: the first
// takes number 1 and the second, which saw no row and creates it too, must find the first's
// row and take 2. A create that overwrote the row instead of leaving it (an upsert setting
// `last` back) would hand out 1 twice. The orderings are made with the engines' own locks (the
// second creator waits on the first's uncommitted row), not with timing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
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
import { serviceSkip } from '../helpers/services.js';
import { tempDir } from '../helpers/temp.js';
import { early, waitFor } from '../helpers/wait.js';

const namespace = () => `t_gfr_${randomBytes(4).toString('hex')}`;
// Far above any wait of these tests: a slow machine must not turn the lock wait into a timeout.
const lockTimeoutMs = 30_000;

describe('PostgreSQL', {
  skip: await serviceSkip('postgres', SERVERS.postgres.host, SERVERS.postgres.port),
}, () => {
  test('the second creator of a period row waits for the first, then takes 2', async () => {
    const ns = namespace();
    const pool = new pg.Pool({ connectionString: SERVERS.postgres.url, max: 3 });
    const store = new PostgresGapFreeStore({ pool, namespace: ns, lockTimeoutMs });
    await store.migrate();
    const [a, b] = [await pool.connect(), await pool.connect()];
    try {
      await a.query('BEGIN');
      assert.equal(await store.increment(a, 'inv', '2026'), 1n, 'a creates the row, holds 1');
      const pid = (await b.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
      await b.query('BEGIN');
      // b's UPDATE cannot see a's uncommitted row: it inserts, and waits on a's index entry.
      const taking = early(() => store.increment(b, 'inv', '2026'));
      await waitFor(
        async () =>
          (await pool.query('SELECT 1 FROM pg_locks WHERE pid = $1 AND NOT granted', [pid]))
            .rowCount! > 0,
        "b's insert waiting for a's row",
      );
      await a.query('COMMIT');
      assert.equal(await taking, 2n, 'the second creator moves on from the committed 1');
      await b.query('COMMIT');
      assert.equal(await store.last('inv', '2026'), 2n);
    } finally {
      // Closed, not returned: a failed test's open transaction would hold the DROP's locks.
      a.release(true);
      b.release(true);
      await pool.query(`DROP SCHEMA IF EXISTS "${ns}" CASCADE`);
      await pool.end();
    }
  });
});

/** `pool` with its row creations (INSERT) held until `open()`; `reached` once one is held. */
function holdingInserts(pool: MysqlPromisePool) {
  let reached!: () => void;
  let open!: () => void;
  const atInsert = new Promise<void>((r) => {
    reached = r;
  });
  const gate = new Promise<void>((r) => {
    open = r;
  });
  const held: MysqlPromisePool = Object.create(pool, {
    query: {
      value: async (options: { sql: string }, values?: unknown) => {
        if (options.sql.startsWith('INSERT')) {
          reached();
          await gate;
        }
        return pool.query(options, values);
      },
    },
  });
  return { held, atInsert, open };
}

describe('MariaDB', {
  skip: await serviceSkip('mysql', SERVERS.mysql.host, SERVERS.mysql.port),
}, () => {
  test('the second creator of a period row waits for the first, then takes 2', async () => {
    const ns = namespace();
    const pool = mysql.createPool({ uri: SERVERS.mysql.url, connectionLimit: 4 });
    const storeA = new MysqlGapFreeStore({ pool, namespace: ns, lockTimeoutMs });
    await storeA.migrate();
    // A second process's store (its own memory of the rows known), whose creation of the row
    // is held after its look found none, until the first writer has created it and taken 1.
    const b$ = holdingInserts(pool as unknown as MysqlPromisePool);
    const storeB = new MysqlGapFreeStore({ pool: b$.held, namespace: ns, lockTimeoutMs });
    const [a, b] = [await pool.getConnection(), await pool.getConnection()];
    const table = `${ns}_gap_free`;
    try {
      await b.query('START TRANSACTION');
      const taking = early(() => storeB.increment(b, 'inv', '2026'));
      await b$.atInsert;
      await a.query('START TRANSACTION');
      assert.equal(await storeA.increment(a, 'inv', '2026'), 1n, 'a creates the row, holds 1');
      b$.open();
      // b's INSERT meets a's locked row and waits for it (InnoDB's own view of the wait).
      await waitFor(async () => {
        // InnoDB refreshes this view only after 100 ms without a read: polled faster, it
        // would never show the wait.
        await sleep(150);
        const [rows] = await pool.query(
          "SELECT 1 FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT' AND trx_query LIKE ?",
          [`%${table}%`],
        );
        return (rows as unknown[]).length > 0;
      }, "b's insert waiting for a's row");
      await a.query('COMMIT');
      assert.equal(await taking, 2n, 'the second creator moves on from the committed 1');
      await b.query('COMMIT');
      assert.equal(await storeA.last('inv', '2026'), 2n);
    } finally {
      b$.open();
      // Closed, not returned: a failed test's open transaction would hold the DROP's locks.
      a.destroy();
      b.destroy();
      await pool.query(`DROP TABLE IF EXISTS \`${table}\``);
      await pool.end();
    }
  });
});

describe('SQLite', () => {
  test('a transaction open across the first creator’s commit creates the row again and takes 2', async () => {
    // SQLite has one writer: the second creator's INSERT always runs after the first's commit.
    // Its transaction is open across that commit (a deferred BEGIN has taken no snapshot yet,
    // so its first write sees the committed row, as a BEGIN IMMEDIATE that waited would).
    const { dir, remove: removeDir } = tempDir('idforge-gfr-');
    const file = join(dir, 'g.db');
    const a = new Database(file, { timeout: 20_000 });
    const b = new Database(file, { timeout: 20_000 });
    try {
      a.pragma('journal_mode = WAL');
      const storeA = new SqliteGapFreeStore({ database: a });
      await storeA.migrate();
      const storeB = new SqliteGapFreeStore({ database: b });
      a.exec('BEGIN IMMEDIATE');
      assert.equal(await storeA.increment(a, 'inv', '2026'), 1n, 'a creates the row, holds 1');
      b.exec('BEGIN');
      a.exec('COMMIT');
      assert.equal(await storeB.increment(b, 'inv', '2026'), 2n);
      b.exec('COMMIT');
      assert.equal(await storeA.last('inv', '2026'), 2n);
    } finally {
      a.close();
      b.close();
      removeDir();
    }
  });
});
