// What the PostgreSQL segment store adds to the SegmentStore contract (segment-store.test.ts),
// on fresh schemas of the PostgreSQL fixture (test/helpers/backend-fixtures.ts): several pools
// (hosts) racing, namespaces, durable commits, and a server that is down, silent or stalls
// mid-session.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import type { SegmentStore } from '../../packages/idforge/src/sequences/ports.js';
import { connectPostgres } from '../../packages/stores/src/postgres/connect.js';
import { openPostgresSegmentStore } from '../../packages/stores/src/postgres/segment-store.js';
import { fixtureOf, namespaceOf } from '../helpers/backend-fixtures.js';
import { openRetrying, unavailable as storeUnavailable } from '../helpers/store-errors.js';
import { closedPort, silentServer, stallableProxy } from '../helpers/tcp.js';
import { assertContiguous } from './segment-store.js';

const fx = await fixtureOf('postgres');
const { skip } = fx;
const { host, port, url: BASE } = fx.server!;

/**
 * A fresh location of the fixture's; with `port`, reached through 127.0.0.1:port (a proxy):
 * dropped after the tests through the shared server, where it lives.
 */
const freshUrl = (port?: number) => fx.freshUrl('seg', port === undefined ? {} : { port });

/** A store on `url` (migrated unless `migrate` is false), closed when the test ends. */
async function open(url: string, migrate = true): Promise<SegmentStore> {
  const store = fx.keep(await openPostgresSegmentStore(url, { connectTimeoutMs: 3000 }));
  if (migrate) await store.migrate();
  return store;
}

/** Asserts a StoreUnavailableError from the postgres store at `address` during `operation`. */
const unavailable = (address: string, operation: string) =>
  storeUnavailable({ backend: 'postgres', address, operation });

describe('PostgreSQL segment store: a server that is down or silent', () => {
  test('a closed port: StoreUnavailableError naming postgres and the address, password redacted, within the timeout', async () => {
    const url = `postgres://idforge:s3cret@127.0.0.1:${await closedPort()}/test`;
    const started = Date.now();
    await assert.rejects(openPostgresSegmentStore(url, { connectTimeoutMs: 1000 }), (e) => {
      unavailable(url.replace(':s3cret@', ':***@'), 'connect')(e);
      assert.ok(!(e as Error).message.includes('s3cret'), (e as Error).message);
      return true;
    });
    assert.ok(Date.now() - started < 1500, `took ${Date.now() - started} ms`);
  });

  test('a server that accepts but never answers fails within connectTimeoutMs', async () => {
    const silent = await silentServer();
    const url = `postgres://postgres@127.0.0.1:${silent.port}/test`;
    const started = Date.now();
    try {
      await assert.rejects(
        openPostgresSegmentStore(url, { connectTimeoutMs: 300 }),
        unavailable(url, 'connect'),
      );
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 250 && elapsed < 1500, `took ${elapsed} ms`);
    } finally {
      await silent.close();
    }
  });

  test('malformed URLs, namespaces and options are RangeErrors', async () => {
    await assert.rejects(openPostgresSegmentStore('postgres://[::1/x'), RangeError);
    await assert.rejects(openPostgresSegmentStore('mysql://127.0.0.1:1/x'), RangeError);
    for (const namespace of ['', 'Upper', 'a-b', 'pg_catalog', 'a'.repeat(64)]) {
      await assert.rejects(openPostgresSegmentStore(BASE, { namespace }), RangeError, namespace);
    }
    await assert.rejects(openPostgresSegmentStore(BASE, { connectTimeoutMs: 0 }), RangeError);
  });
});

describe('PostgreSQL segment store: on the server', { skip }, () => {
  test('a server that stalls mid-session fails each call within the timeouts', async (t) => {
    const proxy = await stallableProxy(host, port);
    t.after(() => proxy.close());
    const url = freshUrl(proxy.port);
    const store = await openRetrying(() =>
      openPostgresSegmentStore(url, { connectTimeoutMs: 400, queryTimeoutMs: 400 }),
    );
    try {
      await store.migrate();
      await store.createTag('stall', { step: 10 });
      assert.equal((await store.takeSegment('stall')).last, 10n);
      proxy.stall();
      for (const [operation, call] of [
        ['takeSegment', () => store.takeSegment('stall')],
        ['listTags', () => store.listTags()],
      ] as const) {
        const started = Date.now();
        await assert.rejects(call(), unavailable(url, operation));
        const elapsed = Date.now() - started;
        assert.ok(elapsed < 2000, `${operation} took ${elapsed} ms`);
      }
    } finally {
      await store.close();
    }
  });

  test('four hosts (pools) racing on one tag get disjoint, contiguous blocks', async () => {
    const url = freshUrl();
    const hosts = [await open(url), await open(url), await open(url), await open(url)];
    await hosts[0]!.createTag('shared', { step: 3 });
    const got = await Promise.all(
      Array.from({ length: 200 }, (_, i) => hosts[i % 4]!.takeSegment('shared', 1 + (i % 5))),
    );
    const expected = got.reduce((sum, g) => sum + (g.last - g.first + 1n), 0n);
    assert.equal(assertContiguous(got, 1n), expected);
  });

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

  test('concurrent migrations of one namespace all succeed', async () => {
    const url = freshUrl();
    const opened = await Promise.all(Array.from({ length: 4 }, () => open(url, false)));
    await Promise.all(opened.map((s) => s.migrate()));
    assert.deepEqual(await opened[0]!.listTags(), []);
  });
});
