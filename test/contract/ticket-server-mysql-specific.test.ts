// What the MariaDB/MySQL ticket server adds to the TicketServer contract
// (ticket-server.test.ts), on fresh table prefixes of the MySQL fixture
// (test/helpers/backend-fixtures.ts): tables set up by hand the Flickr way, MyISAM, and table
// naming.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';
import { MysqlTicketServer } from '../../packages/stores/src/mysql/ticket-server.js';
import { fixtureOf, namespaceOf } from '../helpers/backend-fixtures.js';

const fx = await fixtureOf('mysql');
const { skip } = fx;
const URL_ = fx.server!.url;
const server = new URL(URL_);

/** One statement on a connection of its own, ended whatever happens. */
async function adminQuery(sql: string, values: unknown[] = []): Promise<mysql.RowDataPacket[]> {
  const conn = await admin();
  try {
    return (await conn.query<mysql.RowDataPacket[]>(sql, values))[0];
  } finally {
    await conn.end();
  }
}

async function admin() {
  return mysql.createConnection({
    host: server.hostname,
    port: Number(server.port || 3306),
    user: server.username || 'root',
    database: server.pathname.slice(1),
    multipleStatements: true,
  });
}

describe('MariaDB ticket server: tables made by hand', { skip }, () => {
  // One fresh table prefix for the three tests: its tables are dropped after them.
  const url = fx.freshUrl('hand');
  const ns = namespaceOf(url);

  test("a Flickr table without idforge's settings uses the server's own, whatever the connection ran before", async () => {
    await adminQuery(
      `CREATE TABLE \`${ns}_tickets_flickr\` (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT ` +
        'PRIMARY KEY, stub CHAR(1) NOT NULL UNIQUE) ENGINE = InnoDB',
    );
    const [globals] = await adminQuery(
      'SELECT @@GLOBAL.auto_increment_increment AS inc, @@GLOBAL.auto_increment_offset AS off',
    );
    const s = await MysqlTicketServer.open(url);
    try {
      await s.setup('other', 7, 7);
      const got: bigint[] = [];
      for (let i = 0; i < 6; i++) {
        await s.next('other'); // the same pooled connections carry increment 7 in between
        got.push(await s.next('flickr'));
      }
      const inc = BigInt(globals!.inc);
      for (let i = 1; i < got.length; i++) assert.equal(got[i]! - got[i - 1]!, inc);
    } finally {
      await s.close();
    }
  });

  test('setup refuses a MyISAM ticket table (no crash recovery) and leaves it alone', async () => {
    await adminQuery(
      `CREATE TABLE \`${ns}_tickets_myisam\` (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT ` +
        'PRIMARY KEY, stub CHAR(1) NOT NULL UNIQUE) ENGINE = MyISAM',
    );
    const s = await MysqlTicketServer.open(url);
    try {
      await assert.rejects(s.setup('myisam', 2, 1), (e: unknown) => {
        assert.ok(e instanceof StoreUnavailableError);
        assert.match((e.cause as Error).message, /MyISAM engine, which is not crash-safe/);
        return true;
      });
      const [row] = await adminQuery(
        'SELECT ENGINE AS engine FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
        [`${ns}_tickets_myisam`],
      );
      assert.equal(row!.engine, 'MyISAM');
    } finally {
      await s.close();
    }
  });

  test("tables: <namespace>_tickets_<name> with ?namespace=, Flickr's tickets_<name> without", async () => {
    const name = `idf_${process.pid}_${Math.random().toString(16).slice(2, 8)}`;
    const bare = await MysqlTicketServer.open(URL_);
    const prefixed = await MysqlTicketServer.open(url);
    try {
      await bare.setup(name, 1, 1);
      await prefixed.setup(name, 1, 1);
      const rows = await adminQuery(
        'SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ' +
          'AND TABLE_NAME LIKE ?',
        [`%tickets_${name}`],
      );
      assert.deepEqual(
        rows.map((r) => r.t as string).sort(),
        [`${ns}_tickets_${name}`, `tickets_${name}`].sort(),
      );
      await assert.rejects(prefixed.next(`a${'b'.repeat(47)}`), RangeError, 'longer than 64');
      // Exactly 64 characters, MySQL's and MariaDB's limit, is a table name they take.
      const exact = `x${'y'.repeat(64 - `${ns}_tickets_`.length - 1)}`;
      assert.ok(exact.length <= 48, `namespace ${ns} leaves a tag of ${exact.length}`);
      await prefixed.setup(exact, 1, 1);
      assert.equal(await prefixed.next(exact), 1n);
    } finally {
      await adminQuery(`DROP TABLE IF EXISTS \`tickets_${name}\``);
      await bare.close();
      await prefixed.close();
    }
  });
});
