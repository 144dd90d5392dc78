// Bring your own client: every store class is built from a client the
// application already has, works on it, and leaves it open at close(); the application's
// client still answers afterwards. Run on each backend's real server (and SQLite), in a fresh
// location of its fixture (test/helpers/backend-fixtures.ts).
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import pg from 'pg';
import {
  EtcdLeaseStore,
  MysqlSegmentStore,
  MysqlTicketServer,
  PostgresLeaseStore,
  PostgresMarkStore,
  PostgresSegmentStore,
  PostgresTicketServer,
  RedisCounterStore,
  RedisLeaseStore,
  SqliteLeaseStore,
  SqliteMarkStore,
  SqliteSegmentStore,
} from '../../packages/stores/src/index.js';
import { fixtureOf, namespaceOf } from '../helpers/backend-fixtures.js';

/** The fixture of `name`, its skip reason, server, and the namespace of a fresh location. */
async function fresh(name: string) {
  const fx = await fixtureOf(name);
  return { skip: fx.skip, ...fx.server!, namespace: namespaceOf(fx.freshUrl('own')) };
}

describe('stores on the caller’s client: postgres', async () => {
  const { skip, url, namespace } = await fresh('postgres');
  const pool = skip ? null : new pg.Pool({ connectionString: url, max: 2 });
  after(async () => {
    await pool?.end();
  });

  test('lease, mark, segment and ticket stores leave the pool open', { skip }, async () => {
    const stores = [
      new PostgresLeaseStore({ pool: pool!, namespace }),
      new PostgresMarkStore({ pool: pool!, namespace }),
      new PostgresSegmentStore({ pool: pool!, namespace }),
    ];
    for (const store of stores) {
      await store.migrate();
      await store.close();
      assert.equal((await pool!.query('SELECT 1 AS one')).rows[0].one, 1);
    }
    const lease = new PostgresLeaseStore({ pool: pool!, namespace });
    assert.deepEqual(await lease.list(), []);
    assert.match(lease.address, /postgres/);
    await lease.close();
    const tickets = new PostgresTicketServer({ pool: pool!, namespace });
    assert.equal(await tickets.high('own'), 0n);
    await tickets.close();
    assert.equal((await pool!.query('SELECT 2 AS two')).rows[0].two, 2);
    assert.equal(pool!.ended, false);
  });
});

describe('stores on the caller’s client: mysql', async () => {
  const { skip, url, namespace } = await fresh('mysql');
  const settings = { multipleStatements: true, supportBigNumbers: true, bigNumberStrings: true };
  const pool = skip ? null : mysql.createPool({ uri: url, connectionLimit: 2, ...settings });
  after(async () => {
    await pool?.end();
  });

  test('segment store and ticket server leave the pool open', { skip }, async () => {
    const segments = new MysqlSegmentStore({ pool: pool!, namespace });
    await segments.migrate();
    await segments.createTag('own', { step: 10 });
    assert.equal((await segments.takeSegment('own')).tag, 'own');
    await segments.close();
    const [rows] = await pool!.query('SELECT 1 AS one');
    assert.deepEqual(rows, [{ one: 1 }]);
    const tickets = new MysqlTicketServer({ pool: pool!, namespace });
    assert.equal(await tickets.high('own'), 0n);
    await tickets.close();
    const [again] = await pool!.query('SELECT 2 AS two');
    assert.deepEqual(again, [{ two: 2 }]);
  });

  test('a pool without the settings the stores rely on is refused', { skip }, async () => {
    const plain = mysql.createPool({ uri: url, connectionLimit: 1 });
    try {
      assert.throws(
        () => new MysqlSegmentStore({ pool: plain, namespace }),
        /RangeError.*multipleStatements: true/s,
      );
      assert.throws(() => new MysqlTicketServer({ pool: plain }), RangeError);
    } finally {
      await plain.end();
    }
  });
});

describe('stores on the caller’s client: redis', async () => {
  const { skip, host, port, namespace } = await fresh('redis');
  const client = skip ? null : new Redis({ host, port, stringNumbers: true, lazyConnect: true });
  after(async () => {
    await client?.quit();
  });

  test('lease and counter stores leave the client connected', { skip }, async () => {
    await client!.connect();
    const leases = new RedisLeaseStore({ client: client!, namespace });
    await leases.migrate();
    assert.deepEqual(await leases.list(), []);
    await leases.close();
    assert.equal(await client!.ping(), 'PONG');
    const counter = new RedisCounterStore({ client: client!, namespace });
    assert.equal(await counter.incrBy('own', 5), 5n);
    await counter.close();
    assert.equal(await client!.ping(), 'PONG');
    assert.equal(client!.status, 'ready');
  });

  test('the counter store refuses a client without stringNumbers', { skip }, () => {
    const plain = new Redis({ host, port, lazyConnect: true });
    assert.throws(() => new RedisCounterStore({ client: plain, namespace }), /stringNumbers/);
    plain.disconnect();
  });
});

describe('stores on the caller’s client: etcd', async () => {
  const { skip, host, port, namespace } = await fresh('etcd');
  const client = skip ? null : new Etcd3({ hosts: `http://${host}:${port}` });
  after(async () => {
    client?.close();
  });

  test('the lease store leaves the client open', { skip }, async () => {
    const store = new EtcdLeaseStore({ client: client!, namespace });
    await store.migrate();
    assert.deepEqual(await store.list(), []);
    await store.close();
    await client!.put(`/${namespace}/own`).value('still open');
    assert.equal(await client!.get(`/${namespace}/own`).string(), 'still open');
  });
});

describe('stores on the caller’s client: sqlite', async () => {
  const path = (await fixtureOf('sqlite')).freshUrl('own').slice('sqlite:'.length);
  const db = new Database(path);
  after(() => db.close());

  test('lease, mark and segment stores leave the database open', async () => {
    const stores = [
      new SqliteLeaseStore({ database: db }),
      new SqliteMarkStore({ database: db }),
      new SqliteSegmentStore({ database: db, namespace: 'own' }),
    ];
    for (const store of stores) {
      await store.migrate();
      await store.close();
      assert.equal(db.open, true);
      assert.deepEqual(db.prepare('SELECT 1 AS one').get(), { one: 1 });
    }
    const leases = new SqliteLeaseStore({ database: db });
    assert.deepEqual(await leases.list(), []);
    assert.equal(leases.address, `sqlite:${path}`);
    await leases.close();
    assert.equal(db.open, true);
  });
});
