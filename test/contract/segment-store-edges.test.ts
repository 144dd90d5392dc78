// Segment stores' edges the contract suite does not pin (found by the mutation run, issue 34):
// a store on the caller's client or pool leaves it open at close(); SQLite's busy timeout may
// be 0; createTag names a missing options object and checks the description; and MariaDB's
// migrate converts an older table whose tag column is VARCHAR to VARBINARY, looking only at
// its own table.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import type { MysqlPromisePool } from '../../packages/stores/src/driver-types.js';
import {
  MysqlSegmentStore,
  openSqliteSegmentStore,
  SqliteSegmentStore,
} from '../../packages/stores/src/index.js';
import { SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-segment-edges-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite', () => {
  test("close() leaves the caller's database open", async () => {
    const db = new Database(join(dir, 'caller.db'));
    const store = new SqliteSegmentStore({ database: db, namespace: 'edges' });
    await store.migrate();
    await store.close();
    assert.equal(db.open, true);
    db.close();
  });

  test('a busy timeout of 0 ms is taken (fail at once on a lock)', async () => {
    const store = await openSqliteSegmentStore(`sqlite:${join(dir, 'zero.db')}`, {
      connectTimeoutMs: 0,
    });
    await store.migrate();
    await store.close();
  });

  test('a description is text of at most 256 characters', async () => {
    const store = await openSqliteSegmentStore(`sqlite:${join(dir, 'description.db')}`);
    try {
      await store.migrate();
      await store.createTag('a', { step: 1, description: 'x'.repeat(256) });
      await assert.rejects(
        store.createTag('b', { step: 1, description: 'x'.repeat(257) }),
        (e: unknown) =>
          e instanceof RangeError && /description: expected at most 256/.test(e.message),
      );
      await assert.rejects(
        store.createTag('c', { step: 1, description: 5 as never }),
        (e: unknown) => e instanceof TypeError && /description: expected a string/.test(e.message),
      );
    } finally {
      await store.close();
    }
  });

  test('createTag without options is a TypeError naming options', async () => {
    const store = await openSqliteSegmentStore(`sqlite:${join(dir, 'args.db')}`);
    try {
      await store.migrate();
      await assert.rejects(
        store.createTag('orders', null as never),
        (e: unknown) => e instanceof TypeError && /^options: expected an object/.test(e.message),
      );
    } finally {
      await store.close();
    }
  });
});

describe('MariaDB', {
  skip: await serviceSkip('mysql', SERVERS.mysql.host, SERVERS.mysql.port),
}, () => {
  const pool = mysql.createPool({
    uri: SERVERS.mysql.url,
    connectionLimit: 2,
    multipleStatements: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
  const namespaces: string[] = [];
  after(async () => {
    for (const ns of namespaces) await pool.query(`DROP TABLE IF EXISTS \`${ns}_segments\``);
    await pool.end();
  });
  const fresh = () => {
    const ns = `t_sge_${randomBytes(4).toString('hex')}`;
    namespaces.push(ns);
    return ns;
  };

  test("close() leaves the caller's pool open", async () => {
    const store = new MysqlSegmentStore({
      pool: pool as unknown as MysqlPromisePool,
      namespace: fresh(),
    });
    await store.migrate();
    await store.close();
    const [rows] = await pool.query('SELECT 1 AS one');
    assert.deepEqual(rows, [{ one: 1 }]);
  });

  test("the caller's pool with a timeout below 1 ms is refused, naming it", () => {
    for (const ms of [0, 0.5]) {
      for (const name of ['connectTimeoutMs', 'queryTimeoutMs'] as const) {
        assert.throws(
          () =>
            new MysqlSegmentStore({
              pool: pool as unknown as MysqlPromisePool,
              namespace: fresh(),
              [name]: ms,
            }),
          (e: unknown) =>
            e instanceof RangeError &&
            e.message === `${name}: expected a number >= 1, got number ${ms}`,
          `${name} ${ms}`,
        );
      }
    }
  });

  test("migrate converts an older VARCHAR tag column to VARBINARY: its own table's", async () => {
    const ns = fresh();
    await pool.query(`CREATE TABLE \`${ns}_segments\` (
      tag VARCHAR(128) NOT NULL, max_id BIGINT NOT NULL, step INT NOT NULL,
      description VARCHAR(256) NOT NULL DEFAULT '', updated_at_ms BIGINT NOT NULL,
      PRIMARY KEY (tag)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
    const store = new MysqlSegmentStore({
      pool: pool as unknown as MysqlPromisePool,
      namespace: ns,
    });
    await store.migrate();
    const [rows] = await pool.query(
      `SELECT DATA_TYPE AS t FROM information_schema.columns
       WHERE table_schema = DATABASE() AND table_name = ? AND column_name = 'tag'`,
      [`${ns}_segments`],
    );
    assert.deepEqual(rows, [{ t: 'varbinary' }]);
    await store.close();
  });
});
