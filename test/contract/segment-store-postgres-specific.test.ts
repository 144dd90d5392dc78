// What the PostgreSQL segment store adds to the SegmentStore contract (segment-store.test.ts),
// on fresh schemas of the PostgreSQL fixture (test/helpers/backend-fixtures.ts): namespaces,
// durable commits. A server that is down, silent or stalls mid-session, and the URLs and
// namespaces refused, are in sql-server-outage.ts; several pools (hosts) racing on one schema,
// and migrating it at once, in sql-server-races.ts; both for every SQL server.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import type { SegmentStore } from '../../packages/idforge/src/sequences/ports.js';
import { connectPostgres } from '../../packages/stores/src/postgres/connect.js';
import { openPostgresSegmentStore } from '../../packages/stores/src/postgres/segment-store.js';
import { fixtureOf, namespaceOf } from '../helpers/backend-fixtures.js';

const fx = await fixtureOf('postgres');
const { skip } = fx;
const BASE = fx.server!.url;

/** A fresh location of the fixture's, dropped after the tests. */
const freshUrl = () => fx.freshUrl('seg');

/** A migrated store on `url`, closed when the test ends. */
async function open(url: string): Promise<SegmentStore> {
  const store = fx.keep(await openPostgresSegmentStore(url, { connectTimeoutMs: 3000 }));
  await store.migrate();
  return store;
}

describe('PostgreSQL segment store: on the server', { skip }, () => {
  test('namespaces are isolated schemas; the URL names one', async () => {
    const a = await open(freshUrl());
    const bUrl = freshUrl();
    const b = await open(bUrl);
    await a.createTag('orders', { step: 10 });
    await b.createTag('orders', { step: 2, start: 50n });
    assert.deepEqual(await a.takeSegment('orders'), { tag: 'orders', first: 1n, last: 10n });
    assert.deepEqual(await b.takeSegment('orders'), { tag: 'orders', first: 50n, last: 51n });
    const ns = namespaceOf(bUrl);
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
