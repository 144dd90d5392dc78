// The gap-free processes test (gap-free-processes.ts) on the shared PostgreSQL server, in a
// schema of its own, dropped after.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PostgresGapFreeStore } from '../../packages/stores/src/index.js';
import { SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { gapFreeSuite } from './gap-free-processes.js';

const skip = await serviceSkip('postgres', SERVERS.postgres.host, SERVERS.postgres.port);

gapFreeSuite('postgres', {
  skip,
  control: true,
  engine: () => {
    const namespace = `t_gapfree_${randomBytes(4).toString('hex')}`;
    const pool = new pg.Pool({ connectionString: SERVERS.postgres.url, max: 2 });
    const store = new PostgresGapFreeStore({ pool, namespace });
    return {
      engine: 'postgres',
      target: SERVERS.postgres.url,
      namespace,
      store: () => store,
      async setup() {
        await store.migrate();
        await pool.query(
          `CREATE TABLE "${namespace}".invoices (period text, value bigint, text text, worker int)`,
        );
      },
      async invoices() {
        const r = await pool.query(
          `SELECT period, value::text AS value, text FROM "${namespace}".invoices`,
        );
        return r.rows.map((x) => ({ period: x.period, value: BigInt(x.value), text: x.text }));
      },
      async teardown() {
        await pool.query(`DROP SCHEMA IF EXISTS "${namespace}" CASCADE`);
        await pool.end();
      },
    };
  },
});
