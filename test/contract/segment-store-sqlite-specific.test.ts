// What the SQLite segment store adds to the SegmentStore contract (segment-store.test.ts), on
// fresh database files of the SQLite fixture (test/helpers/backend-fixtures.ts): several
// connections to one file, a write lock held by another process, table-name namespaces, a path
// that cannot be opened.
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';
import type { SegmentStore } from '../../packages/idforge/src/sequences/ports.js';
import { StorePathError } from '../../packages/stores/src/index.js';
import { openSqliteSegmentStore } from '../../packages/stores/src/sqlite/segment-store.js';
import { fixtureOf } from '../helpers/backend-fixtures.js';
import { assertContiguous, concurrentTakes } from './segment-store.js';

const fx = await fixtureOf('sqlite');
const freshUrl = () => fx.freshUrl('seg');

async function migrated(url: string, namespace?: string): Promise<SegmentStore> {
  const store = await openSqliteSegmentStore(url, namespace === undefined ? {} : { namespace });
  await store.migrate();
  return store;
}

describe('SQLite segment store: one file, several connections', () => {
  test('four connections racing on one file get disjoint, contiguous blocks', async () => {
    // Four processes (one connection each) take 100 blocks apiece at the same time: in one
    // process better-sqlite3 would run the takes one after another, racing nothing.
    const url = freshUrl();
    const store = await migrated(url);
    try {
      await store.createTag('shared', { step: 5 });
      const got = await concurrentTakes(store, 'shared', Array(400).fill(undefined), url, 4);
      assert.equal(assertContiguous(got, 1n), 2000n);
      assert.equal((await store.getTag('shared'))?.maxId, 2000n);
    } finally {
      await store.close();
    }
  });

  test('a write lock held by another process: StoreUnavailableError after the busy timeout, nothing taken', async () => {
    const url = freshUrl();
    const store = await openSqliteSegmentStore(url, { connectTimeoutMs: 200 });
    const other = new Database(url.slice('sqlite:'.length));
    try {
      await store.migrate();
      await store.createTag('locked', { step: 10 });
      other.exec('BEGIN IMMEDIATE');
      const started = Date.now();
      await assert.rejects(store.takeSegment('locked'), (e) => {
        assert.ok(e instanceof StoreUnavailableError, String(e));
        assert.equal(e.backend, 'sqlite');
        assert.equal(e.operation, 'takeSegment');
        assert.equal(e.address, url);
        return true;
      });
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 150 && elapsed < 2000, `took ${elapsed} ms`);
      other.exec('ROLLBACK');
      assert.deepEqual(await store.takeSegment('locked'), { tag: 'locked', first: 1n, last: 10n });
    } finally {
      other.close();
      await store.close();
    }
  });

  test('namespaces are separate tables in one file', async () => {
    const url = freshUrl();
    const a = await migrated(url, 'app_a');
    const b = await migrated(url, 'app_b');
    const c = await migrated(url);
    try {
      await a.createTag('orders', { step: 10, start: 100n });
      await b.createTag('orders', { step: 3 });
      assert.deepEqual(await a.takeSegment('orders'), { tag: 'orders', first: 100n, last: 109n });
      assert.deepEqual(await b.takeSegment('orders'), { tag: 'orders', first: 1n, last: 3n });
      assert.deepEqual(await c.listTags(), []);
      const tables = new Database(url.slice('sqlite:'.length), { readonly: true });
      const names = tables
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all();
      tables.close();
      assert.deepEqual(names, ['app_a_segments', 'app_b_segments', 'idforge_segments']);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  test('bad namespaces, URLs and timeouts are RangeErrors; a path in a missing directory is StorePathError', async () => {
    for (const namespace of ['', 'Upper', '1st', 'a-b', 'x;drop', 'a'.repeat(32)]) {
      await assert.rejects(
        openSqliteSegmentStore(freshUrl(), { namespace }),
        RangeError,
        namespace,
      );
    }
    await assert.rejects(openSqliteSegmentStore('sqlite:'), RangeError);
    await assert.rejects(openSqliteSegmentStore(freshUrl(), { connectTimeoutMs: -1 }), RangeError);
    const path = join(dirname(freshUrl().slice('sqlite:'.length)), 'no-such-dir', 'x.db');
    await assert.rejects(openSqliteSegmentStore(`sqlite:${path}`), (e) => {
      assert.ok(e instanceof StorePathError, String(e));
      assert.equal(e.backend, 'sqlite');
      assert.equal(e.reason, 'no-directory');
      assert.equal(e.path, path);
      return true;
    });
  });

  test('calls after close reject with StoreUnavailableError; close is idempotent', async () => {
    const store = await migrated(freshUrl());
    await store.close();
    await store.close();
    await assert.rejects(store.listTags(), StoreUnavailableError);
  });
});
