// A gap-free writer waits for the period's row lock, bounded: while another transaction holds
// the number, next(tx) ends in GapFreeTimeoutError after the lock timeout and takes nothing;
// after the holder rolls back, the next writer gets the same number. And the misuse refusals.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  defineNumberFormat,
  GapFreeSequence,
  GapFreeTimeoutError,
} from '../../packages/idforge/src/sequences/index.js';
import {
  MysqlGapFreeStore,
  PostgresGapFreeStore,
  SqliteGapFreeStore,
} from '../../packages/stores/src/index.js';
import { SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { tempDir } from '../helpers/temp.js';

const format = defineNumberFormat('INV-{yyyy}-{n:4}', { reset: 'yearly' });
const clock = { now: () => Date.UTC(2026, 5, 1) };

describe('PostgreSQL', {
  skip: await serviceSkip('postgres', SERVERS.postgres.host, SERVERS.postgres.port),
}, () => {
  test('a held number: the second writer times out, then gets it after the rollback', async () => {
    const namespace = `t_gft_${randomBytes(4).toString('hex')}`;
    const pool = new pg.Pool({ connectionString: SERVERS.postgres.url, max: 3 });
    const store = new PostgresGapFreeStore({ pool, namespace, lockTimeoutMs: 200 });
    await store.migrate();
    const seq = new GapFreeSequence(store, 'inv', format, { clock });
    const [a, b] = [await pool.connect(), await pool.connect()];
    try {
      await a.query('BEGIN');
      assert.equal((await seq.next(a)).text, 'INV-2026-0001');
      await b.query('BEGIN');
      const own = (await b.query('SHOW lock_timeout')).rows[0].lock_timeout as string;
      const started = performance.now();
      await assert.rejects(seq.next(b), (e: unknown) => {
        assert.ok(e instanceof GapFreeTimeoutError);
        assert.equal(e.code, 'IDF_GAP_FREE_TIMEOUT');
        assert.equal(e.lockTimeoutMs, 200);
        return true;
      });
      assert.ok(performance.now() - started < 5000);
      await b.query('ROLLBACK');
      await a.query('ROLLBACK');
      await b.query('BEGIN');
      assert.equal((await seq.next(b)).value, 1n, 'the rolled-back number is given back');
      const setting = await b.query('SHOW lock_timeout');
      assert.equal(setting.rows[0].lock_timeout, own, "the caller's lock_timeout is put back");
      await b.query('COMMIT');
      assert.equal(await store.last('inv', '2026'), 1n);
    } finally {
      a.release();
      b.release();
      await pool.query(`DROP SCHEMA IF EXISTS "${namespace}" CASCADE`);
      await pool.end();
    }
  });
});

describe('MariaDB', {
  skip: await serviceSkip('mysql', SERVERS.mysql.host, SERVERS.mysql.port),
}, () => {
  test('a held number: the second writer times out, then gets it after the rollback', async () => {
    const namespace = `t_gft_${randomBytes(4).toString('hex')}`;
    const pool = mysql.createPool({ uri: SERVERS.mysql.url, connectionLimit: 3 });
    const store = new MysqlGapFreeStore({ pool, namespace, lockTimeoutMs: 1 });
    await store.migrate();
    const seq = new GapFreeSequence(store, 'inv', format, { clock });
    const [a, b] = [await pool.getConnection(), await pool.getConnection()];
    try {
      await a.query('START TRANSACTION');
      assert.equal((await seq.next(a)).text, 'INV-2026-0001');
      await b.query('START TRANSACTION');
      await assert.rejects(seq.next(b), GapFreeTimeoutError);
      const [[row]] = (await b.query(
        'SELECT @@SESSION.innodb_lock_wait_timeout AS s',
      )) as unknown as [{ s: number }[]];
      assert.notEqual(Number(row!.s), 1, "the session's timeout is put back");
      await b.query('ROLLBACK');
      await a.query('ROLLBACK');
      await b.query('START TRANSACTION');
      assert.equal((await seq.next(b)).value, 1n, 'the rolled-back number is given back');
      await b.query('COMMIT');
      assert.equal(await store.last('inv', '2026'), 1n);
    } finally {
      a.release();
      b.release();
      await pool.query(`DROP TABLE IF EXISTS \`${namespace}_gap_free\``);
      await pool.end();
    }
  });
});

describe('SQLite', () => {
  test('a deferred transaction that meets the write lock times out; outside any is refused', async () => {
    const { dir, remove: removeDir } = tempDir('idforge-gft-');
    const file = join(dir, 'g.db');
    const a = new Database(file, { timeout: 50 });
    const b = new Database(file, { timeout: 50 });
    try {
      a.pragma('journal_mode = WAL');
      const store = new SqliteGapFreeStore({ database: a });
      await store.migrate();
      const seqA = new GapFreeSequence(store, 'inv', format, { clock });
      const seqB = new GapFreeSequence(new SqliteGapFreeStore({ database: b }), 'inv', format, {
        clock,
      });
      await assert.rejects(seqA.next(a), { name: 'TypeError', message: /inside a transaction/ });
      a.exec('BEGIN IMMEDIATE');
      assert.equal((await seqA.next(a)).value, 1n);
      b.exec('BEGIN');
      await assert.rejects(seqB.next(b), GapFreeTimeoutError);
      b.exec('ROLLBACK');
      a.exec('ROLLBACK');
      b.exec('BEGIN IMMEDIATE');
      assert.equal((await seqB.next(b)).value, 1n);
      b.exec('COMMIT');
      assert.equal(await store.last('inv', '2026'), 1n);
      await assert.rejects(store.last('inv', '2026-13-99x'), RangeError);
    } finally {
      a.close();
      b.close();
      removeDir();
    }
  });
});
