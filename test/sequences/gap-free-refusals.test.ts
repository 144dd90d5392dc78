// Gap-free numbers refused rather than handed out wrong, on each engine (issue 32 item 5): a
// period whose row holds 2^63 - 1 has no next number (SQLite turned `last + 1` into a REAL and
// gave INV-9223372036854776000 on every call; PostgreSQL and MariaDB raised, but as a store
// that is down), and `next(tx)` given a connection outside any transaction would commit its
// number alone, so the caller's rollback would leave a gap. Each engine's own table.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  defineNumberFormat,
  GapFreeSequence,
  SequenceExhaustedError,
} from '../../packages/idforge/src/sequences/index.js';
import { SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { mysqlGapFree, postgresGapFree, sqliteGapFree } from './gap-free-stores.js';

const MAX = 9223372036854775807n;
const format = defineNumberFormat('INV-{n}');

/** Rejects as exhausted: the code, the tag, the bound, and the fix. */
function exhausted(e: unknown): boolean {
  assert.ok(e instanceof SequenceExhaustedError, String(e));
  assert.equal(e.code, 'IDF_SEQUENCE_EXHAUSTED');
  assert.equal(e.tag, 'inv');
  assert.equal(e.maxId, MAX);
  assert.match(e.message, /gap-free .*"inv".* 2\^63 - 1.*new tag/);
  return true;
}

/** Rejects as outside a transaction: what is wrong and what to do. */
function outside(e: unknown): boolean {
  assert.ok(e instanceof TypeError, String(e));
  assert.match(e.message, /inside a transaction.*outside any.*commit on its own.*BEGIN/);
  return true;
}

describe('SQLite', () => {
  const { db, store } = sqliteGapFree('gfx');
  const seq = new GapFreeSequence(store, 'inv', format);
  const table = `"${store.namespace}_gap_free"`;

  test('at 2^63 - 1 the next number is IDF_SEQUENCE_EXHAUSTED, and the row keeps its value', async () => {
    await store.migrate();
    db.prepare(`INSERT INTO ${table} VALUES ('inv', '', ?)`).run(MAX - 1n);
    db.exec('BEGIN IMMEDIATE');
    assert.equal((await seq.next(db)).value, MAX);
    db.exec('COMMIT');
    for (let i = 0; i < 2; i++) {
      db.exec('BEGIN IMMEDIATE');
      try {
        await assert.rejects(seq.next(db), exhausted);
      } finally {
        db.exec('ROLLBACK');
      }
    }
    assert.equal(await store.last('inv', ''), MAX);
  });

  test('next(db) outside a transaction is refused, naming BEGIN IMMEDIATE', async () => {
    await assert.rejects(seq.next(db), outside);
  });
});

describe('PostgreSQL', {
  skip: await serviceSkip('postgres', SERVERS.postgres.host, SERVERS.postgres.port),
}, () => {
  const { ns, pool, store } = postgresGapFree('gfx', 2);
  const seq = new GapFreeSequence(store, 'inv', format);

  test('at 2^63 - 1 the next number is IDF_SEQUENCE_EXHAUSTED, not a store that is down', async () => {
    await store.migrate();
    await pool.query(`INSERT INTO "${ns}".gap_free VALUES ('inv', '', $1)`, [MAX.toString()]);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await assert.rejects(seq.next(client), exhausted);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    assert.equal(await store.last('inv', ''), MAX);
  });

  test('next(client) outside a transaction is refused and takes nothing; a pool too', async () => {
    await pool.query(`INSERT INTO "${ns}".gap_free VALUES ('out', '', 0)`);
    const out = new GapFreeSequence(store, 'out', format);
    const client = await pool.connect();
    try {
      await assert.rejects(out.next(client), outside);
      await client.query('BEGIN');
      assert.equal((await out.next(client)).value, 1n, 'inside, after the refusal: 1');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    await assert.rejects(out.next(pool), outside);
    assert.equal(await store.last('out', ''), 0n);
  });
});

describe('MariaDB', {
  skip: await serviceSkip('mysql', SERVERS.mysql.host, SERVERS.mysql.port),
}, () => {
  const { ns, pool, store } = mysqlGapFree('gfx', 2);
  const seq = new GapFreeSequence(store, 'inv', format);

  test('at 2^63 - 1 the next number is IDF_SEQUENCE_EXHAUSTED, not a store that is down', async () => {
    await store.migrate();
    await pool.query(`INSERT INTO \`${ns}_gap_free\` VALUES ('inv', '', ?)`, [MAX.toString()]);
    const conn = await pool.getConnection();
    try {
      await conn.query('START TRANSACTION');
      await assert.rejects(seq.next(conn), exhausted);
    } finally {
      await conn.query('ROLLBACK');
      conn.release();
    }
    assert.equal(await store.last('inv', ''), MAX);
  });

  test('a number above 2^53 is exact, whatever the driver does with insert ids', async () => {
    // The number comes back as the statement's insert id, which mysql2 gives as a JS number
    // while exact and as text past 2^53: read as a number, 2^60 + 1 would be 2^60 again.
    const big = 2n ** 60n;
    await pool.query(`INSERT INTO \`${ns}_gap_free\` VALUES ('big', '', ?)`, [big.toString()]);
    const conn = await pool.getConnection();
    try {
      await conn.query('START TRANSACTION');
      const beyond = new GapFreeSequence(store, 'big', format);
      assert.equal((await beyond.next(conn)).value, big + 1n);
      assert.equal((await beyond.next(conn)).value, big + 2n);
      await conn.query('COMMIT');
    } finally {
      await conn.query('ROLLBACK');
      conn.release();
    }
    assert.equal(await store.last('big', ''), big + 2n);
  });

  test('next(conn) outside a transaction is refused and takes nothing; autocommit off is a transaction', async () => {
    const out = new GapFreeSequence(store, 'out', format);
    const conn = await pool.getConnection();
    try {
      await assert.rejects(out.next(conn), outside);
      assert.equal(await store.last('out', ''), 0n);
      await conn.query('SET autocommit = 0');
      assert.equal((await out.next(conn)).value, 1n);
      await conn.query('ROLLBACK');
      await conn.query('SET autocommit = 1');
      await conn.query('START TRANSACTION');
      assert.equal((await out.next(conn)).value, 1n, 'the rolled-back 1 is given again');
      await conn.query('COMMIT');
    } finally {
      await conn.query('ROLLBACK');
      await conn.query('SET autocommit = 1');
      conn.release();
    }
    assert.equal(await store.last('out', ''), 1n);
  });
});
