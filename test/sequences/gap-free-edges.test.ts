// The gap-free stores' edges (found by the mutation run, issue 34): a bad tag or period is
// refused before any I/O, by increment() and last(); the lock timeout the store sets for its
// own statement is given back to the caller's session or transaction, after a number, a
// refusal or a lock timeout alike;
// a PostgreSQL client without getTransactionStatus() inside BEGIN is served; and a missing
// connection or client is named. Each engine's own tables.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type mysql from 'mysql2/promise';
import type pg from 'pg';
import { GapFreeTimeoutError } from '../../packages/idforge/src/sequences/index.js';
import type { MysqlPromisePool } from '../../packages/stores/src/driver-types.js';
import { MysqlGapFreeStore, PostgresGapFreeStore } from '../../packages/stores/src/index.js';
import { SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { mysqlGapFree, postgresGapFree, sqliteGapFree } from './gap-free-stores.js';

describe('SQLite', () => {
  const { db, store } = sqliteGapFree('gfe');

  test('a bad tag or period is refused before the database is asked', async () => {
    await store.migrate();
    db.exec('BEGIN IMMEDIATE');
    try {
      await assert.rejects(store.increment(db, '', ''), /tag: expected 1 to 128/);
      await assert.rejects(store.increment(db, 'inv', '2026-1'), /period: expected/);
      await assert.rejects(store.last('', ''), /tag: expected 1 to 128/);
      await assert.rejects(store.last('inv', '2026-1'), /period: expected/);
    } finally {
      db.exec('ROLLBACK');
    }
  });
});

describe('PostgreSQL', {
  skip: await serviceSkip('postgres', SERVERS.postgres.host, SERVERS.postgres.port),
}, () => {
  const { ns, pool, store } = postgresGapFree('gfe', 2);

  test("the caller's lock_timeout is back after a number", async () => {
    await store.migrate();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("SET LOCAL lock_timeout = '7s'");
      assert.equal(await store.increment(client, 'inv', ''), 1n);
      assert.equal((await client.query('SHOW lock_timeout')).rows[0].lock_timeout, '7s');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  test('a bad tag or period is refused before the database is asked', async () => {
    await store.migrate();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await assert.rejects(store.increment(client, '', ''), /tag: expected 1 to 128/);
      await assert.rejects(store.increment(client, 'inv', '2026-1'), /period: expected/);
      await assert.rejects(store.last('', ''), /tag: expected 1 to 128/);
      await assert.rejects(store.last('inv', '2026-1'), /period: expected/);
      const rows = await client.query(`SELECT count(*)::int AS n FROM "${ns}".gap_free`);
      assert.equal(rows.rows[0].n, 0, 'no row taken for either');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  test('no client is named as such', async () => {
    await assert.rejects(
      store.increment(undefined as never, 'inv', ''),
      (e: unknown) => e instanceof TypeError && /expected a node-postgres client/.test(e.message),
    );
  });

  test('the address given is the one its errors name', () => {
    const named = new PostgresGapFreeStore({ pool, namespace: ns, address: 'pg-main' });
    assert.equal(named.address, 'pg-main');
  });

  test('a client with only query() is served inside BEGIN', async () => {
    const client = await pool.connect();
    const bare = { query: client.query.bind(client) } as unknown as pg.PoolClient;
    try {
      await client.query('BEGIN');
      assert.equal(await store.increment(bare, 'bare', ''), 1n);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });
});

describe('MariaDB', {
  skip: await serviceSkip('mysql', SERVERS.mysql.host, SERVERS.mysql.port),
}, () => {
  const { ns, pool, store } = mysqlGapFree('gfe', 3, 1000);
  const sessionTimeout = async (conn: mysql.PoolConnection) => {
    const [rows] = await conn.query('SELECT @@SESSION.innodb_lock_wait_timeout AS t');
    return Number((rows as { t: number }[])[0]!.t);
  };

  test('a bad tag or period is refused by last() before the database is asked', async () => {
    await assert.rejects(store.last('', ''), /tag: expected 1 to 128/);
    await assert.rejects(store.last('inv', '2026-1'), /period: expected/);
  });

  test('the address given is the one its errors name', () => {
    const named = new MysqlGapFreeStore({
      pool: pool as unknown as MysqlPromisePool,
      namespace: ns,
      address: 'maria-main',
    });
    assert.equal(named.address, 'maria-main');
  });

  test('no connection is named as such', async () => {
    await assert.rejects(
      store.increment(undefined as never, 'inv', ''),
      (e: unknown) =>
        e instanceof TypeError && /expected a mysql2\/promise connection/.test(e.message),
    );
  });

  test("refused outside a transaction, the session's lock wait timeout is as it was", async () => {
    await store.migrate();
    const conn = await pool.getConnection();
    try {
      await conn.query('SET SESSION innodb_lock_wait_timeout = 37');
      await assert.rejects(store.increment(conn as never, 'inv', ''), TypeError);
      assert.equal(await sessionTimeout(conn), 37);
    } finally {
      conn.release();
    }
  });

  test("a lock wait past lockTimeoutMs is GapFreeTimeoutError, the session's timeout put back", async () => {
    const holder = await pool.getConnection();
    const waiter = await pool.getConnection();
    try {
      await holder.query('START TRANSACTION');
      assert.equal(await store.increment(holder as never, 'held', ''), 1n);
      await waiter.query('SET SESSION innodb_lock_wait_timeout = 37');
      await waiter.query('START TRANSACTION');
      await assert.rejects(store.increment(waiter as never, 'held', ''), GapFreeTimeoutError);
      assert.equal(await sessionTimeout(waiter), 37);
    } finally {
      await waiter.query('ROLLBACK');
      await holder.query('ROLLBACK');
      waiter.release();
      holder.release();
    }
  });
});
