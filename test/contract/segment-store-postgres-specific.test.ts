// What the PostgreSQL segment store adds to the SegmentStore contract (segment-store.test.ts),
// on fresh schemas of the PostgreSQL fixture (test/helpers/backend-fixtures.ts): namespaces,
// durable commits. A server that is down, silent or stalls mid-session, and the URLs and
// namespaces refused, are in sql-server-outage.ts; several pools (hosts) racing on one schema,
// and migrating it at once, in sql-server-races.ts; both for every SQL server.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { connectPostgres } from '../../packages/stores/src/postgres/connect.js';
import { openPostgresSegmentStore } from '../../packages/stores/src/postgres/segment-store.js';
import { namespaceOf } from '../helpers/backend-fixtures.js';
import { assertNamespacesIsolated, specificFixture } from './segment-store.js';

const {
  skip,
  base: BASE,
  freshUrl,
  open,
} = await specificFixture('postgres', openPostgresSegmentStore);

describe('PostgreSQL segment store: on the server', { skip }, () => {
  test('namespaces are isolated schemas; the URL names one', async () => {
    const ns = namespaceOf(await assertNamespacesIsolated(open, freshUrl));
    const client = new pg.Client({ connectionString: BASE });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT tag, max_id::text, step FROM "${ns}".segments ORDER BY tag`,
      );
      assert.deepEqual(rows, [{ tag: 'orders', max_id: '51', step: 2 }]);
    } finally {
      await client.end();
    }
  });

  test('every connection commits synchronously, whatever the URL asks; other options are kept', async () => {
    const options = encodeURIComponent('-c synchronous_commit=off -c work_mem=8MB');
    const { pool } = await connectPostgres(`${BASE}?options=${options}`);
    try {
      const sync = await pool.query('SHOW synchronous_commit');
      const mem = await pool.query('SHOW work_mem');
      assert.deepEqual(
        [sync.rows, mem.rows],
        [[{ synchronous_commit: 'on' }], [{ work_mem: '8MB' }]],
      );
    } finally {
      await pool.end();
    }
  });
});
