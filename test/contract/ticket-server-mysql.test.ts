// The TicketServer contract on MariaDB/MySQL (IDFORGE_MYSQL_URL, default the shared
// mysql://root@127.0.0.1:3306/test): one table-name prefix (namespace) per simulated server,
// its tables dropped at the end. Then what only MySQL has: tables set up by hand the Flickr
// way, MyISAM, and table naming.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import mysql from 'mysql2/promise';
import { StoreUnavailableError } from '../../packages/idforge/src/core/index.js';
import { MysqlTicketServer } from '../../packages/stores/src/mysql/ticket-server.js';
import { serviceSkip } from '../helpers/services.js';
import { ticketServerContract } from './ticket-server.js';

const URL_ = process.env.IDFORGE_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
const server = new URL(URL_);
const host = server.hostname;
const port = Number(server.port || 3306);
const skip = await serviceSkip('MariaDB', host, port);

const urlOf = (ns: string, p = port) => {
  const u = new URL(URL_);
  u.host = `${p === port ? host : '127.0.0.1'}:${p}`;
  u.searchParams.set('namespace', ns);
  return u.toString();
};

/** Drops the tables of each namespace (table-name prefix) in the URL's database. */
async function dropPrefixed(namespaces: readonly string[]): Promise<void> {
  const conn = await admin();
  for (const ns of namespaces) {
    const [rows] = await conn.query<mysql.RowDataPacket[]>(
      'SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME LIKE ?',
      [`${ns}\\_%`],
    );
    for (const r of rows) await conn.query(`DROP TABLE IF EXISTS \`${r.t}\``);
  }
  await conn.end();
}

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
    host,
    port,
    user: server.username || 'root',
    database: server.pathname.slice(1),
    multipleStatements: true,
  });
}

ticketServerContract(
  {
    backend: 'mysql',
    host,
    port,
    url: urlOf,
    open: (url, options) => MysqlTicketServer.open(url, options),
    drop: (namespaces) => dropPrefixed(namespaces),
  },
  skip,
);

describe('MariaDB ticket server: tables made by hand', { skip }, () => {
  const ns = `idf_tk_hand_${process.pid}`;
  after(async () => {
    if (!skip) await dropPrefixed([ns]);
  });

  test("a Flickr table without idforge's settings uses the server's own, whatever the connection ran before", async () => {
    await adminQuery(
      `CREATE TABLE \`${ns}_tickets_flickr\` (id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT ` +
        'PRIMARY KEY, stub CHAR(1) NOT NULL UNIQUE) ENGINE = InnoDB',
    );
    const [globals] = await adminQuery(
      'SELECT @@GLOBAL.auto_increment_increment AS inc, @@GLOBAL.auto_increment_offset AS off',
    );
    const s = await MysqlTicketServer.open(urlOf(ns));
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
    const s = await MysqlTicketServer.open(urlOf(ns));
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
    const prefixed = await MysqlTicketServer.open(urlOf(ns));
    try {
      await bare.setup(name, 1, 1);
      await prefixed.setup(name, 1, 1);
      const rows = await adminQuery(
        'SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ' +
          'AND TABLE_NAME LIKE ? ORDER BY 1',
        [`%tickets_${name}`],
      );
      assert.deepEqual(
        rows.map((r) => r.t),
        [`${ns}_tickets_${name}`, `tickets_${name}`],
      );
      await assert.rejects(prefixed.next(`a${'b'.repeat(47)}`), RangeError, 'longer than 64');
    } finally {
      await adminQuery(`DROP TABLE IF EXISTS \`tickets_${name}\``);
      await bare.close();
      await prefixed.close();
    }
  });
});
