// What the MariaDB/MySQL segment store adds to the SegmentStore contract
// (segment-store.test.ts), on fresh table prefixes of the MySQL fixture
// (test/helpers/backend-fixtures.ts): namespaces, row locks and the pool, the URL's namespace
// parameter. A server that is down, silent or stalls mid-session, and the URLs and namespaces
// refused, are in sql-server-outage.ts; several pools (hosts) racing on one table prefix, and
// migrating it at once, in sql-server-races.ts; both for every SQL server.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { connectMysql, parseMysqlUrl } from '../../packages/stores/src/mysql/connect.js';
import { openMysqlSegmentStore } from '../../packages/stores/src/mysql/segment-store.js';
import { namespaceOf } from '../helpers/backend-fixtures.js';
import { unavailable as storeUnavailable } from '../helpers/store-errors.js';
import { assertContiguous, assertNamespacesIsolated, specificFixture } from './segment-store.js';

const {
  fx,
  skip,
  base: BASE,
  freshUrl,
  open,
} = await specificFixture('mysql', openMysqlSegmentStore);

/** Asserts a StoreUnavailableError from the mysql store at `address` during `operation`. */
const unavailable = (address: string, operation: string) =>
  storeUnavailable({ backend: 'mysql', address, operation });

describe('MariaDB segment store: URLs', () => {
  test('the namespace parameter is taken out of the URL; the option wins; mariadb: is mysql:', () => {
    assert.deepEqual(parseMysqlUrl(`${BASE}?namespace=app&ssl=x`), {
      uri: `${BASE}?ssl=x`,
      namespace: 'app',
    });
    assert.equal(parseMysqlUrl(BASE, 'override').namespace, 'override');
    assert.equal(parseMysqlUrl(BASE).namespace, 'idforge');
    assert.equal(parseMysqlUrl(BASE.replace('mysql:', 'mariadb:')).uri, BASE);
  });
});

describe('MariaDB segment store: on the server', { skip }, () => {
  test('calls beyond the pool wait for a connection, never past the timeout', async () => {
    const url = freshUrl();
    const store = await openMysqlSegmentStore(url, { connectTimeoutMs: 2000 });
    fx.keep(store);
    await store.migrate();
    await store.createTag('queue', { step: 1 });
    // 4 pooled connections, 40 calls: each waits its turn, well within the timeout.
    const got = await Promise.all(Array.from({ length: 40 }, () => store.takeSegment('queue')));
    assert.equal(assertContiguous(got, 1n), 40n);
  });

  test('a take blocked by a row lock held elsewhere fails within the timeout, nothing taken', async () => {
    const url = freshUrl();
    const store = await openMysqlSegmentStore(url, { connectTimeoutMs: 2000, queryTimeoutMs: 300 });
    fx.keep(store);
    await store.migrate();
    await store.createTag('held', { step: 5 });
    const ns = namespaceOf(url);
    const other = await mysql.createConnection(BASE);
    try {
      await other.query('START TRANSACTION');
      await other.query(`SELECT max_id FROM \`${ns}_segments\` WHERE tag = 'held' FOR UPDATE`);
      const started = Date.now();
      await assert.rejects(store.takeSegment('held'), unavailable(url, 'takeSegment'));
      assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
      await other.query('ROLLBACK');
      // The timed-out take may still complete on the server once the lock is free (it then
      // skips those numbers); it never hands out a block twice.
      const next = await store.takeSegment('held');
      assert.ok(next.first === 1n || next.first === 6n, `next block ${next.first}`);
      assert.equal(next.last - next.first, 4n);
    } finally {
      await other.end();
    }
  });

  test('the server gives up row-lock waits by the query timeout too', async () => {
    const db = await connectMysql(BASE, { connectTimeoutMs: 2000, queryTimeoutMs: 2500 });
    try {
      const rows = await db.query('check', 'SELECT @@SESSION.innodb_lock_wait_timeout AS s');
      assert.deepEqual(rows, [{ s: '3' }]);
    } finally {
      await db.end();
    }
  });

  test('namespaces are table prefixes; the table is InnoDB with a binary collation', async () => {
    const ns = namespaceOf(await assertNamespacesIsolated(open, freshUrl));
    const db = await connectMysql(BASE);
    try {
      const rows = await db.query(
        'check',
        'SELECT engine, table_collation AS c FROM information_schema.tables ' +
          'WHERE table_schema = DATABASE() AND table_name = ?',
        [`${ns}_segments`],
      );
      assert.deepEqual(rows, [{ engine: 'InnoDB', c: 'utf8mb4_bin' }]);
    } finally {
      await db.end();
    }
  });

  test('a mariadb:// URL is the same store', async () => {
    const url = freshUrl();
    const a = await open(url);
    const b = await open(url.replace(/^mysql:/, 'mariadb:'));
    await a.createTag('both', { step: 4 });
    assert.deepEqual(await b.takeSegment('both'), { tag: 'both', first: 1n, last: 4n });
    assert.equal(b.address, url.replace(/^mysql:/, 'mariadb:'));
  });
});
