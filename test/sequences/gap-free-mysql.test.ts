// The gap-free processes test (gap-free-processes.ts) on the shared MariaDB server, in tables
// of their own, dropped after.
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import { MysqlGapFreeStore } from '../../packages/stores/src/index.js';
import { SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { gapFreeSuite } from './gap-free-processes.js';

const skip = await serviceSkip('mysql', SERVERS.mysql.host, SERVERS.mysql.port);

gapFreeSuite('mysql', {
  skip,
  engine: () => {
    const namespace = `t_gapfree_${randomBytes(4).toString('hex')}`;
    const pool = mysql.createPool({ uri: SERVERS.mysql.url, connectionLimit: 2 });
    const store = new MysqlGapFreeStore({ pool, namespace });
    const invoices = `\`${namespace}_invoices\``;
    return {
      engine: 'mysql',
      target: SERVERS.mysql.url,
      namespace,
      store: () => store,
      async setup() {
        await store.migrate();
        await pool.query(
          `CREATE TABLE ${invoices} (period VARCHAR(10), value BIGINT, text VARCHAR(64), worker INT) ENGINE=InnoDB`,
        );
      },
      async invoices() {
        const [rows] = await pool.query(
          `SELECT period, CAST(value AS CHAR) AS value, text FROM ${invoices}`,
        );
        return (rows as { period: string; value: string; text: string }[]).map((x) => ({
          period: x.period,
          value: BigInt(x.value),
          text: x.text,
        }));
      },
      async teardown() {
        await pool.query(`DROP TABLE IF EXISTS ${invoices}, \`${namespace}_gap_free\``);
        await pool.end();
      },
    };
  },
});
