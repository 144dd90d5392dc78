// What the SQLite lease store adds to the LeaseStore contract (lease-store.test.ts), on fresh
// database files of the SQLite fixture (test/helpers/backend-fixtures.ts): expiry at the exact
// millisecond of an injected clock, and a file made before the lease table had its grant mark.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import { openLeaseStore } from '../../packages/stores/src/open.js';
import { SqliteLeaseStore } from '../../packages/stores/src/sqlite/lease-store.js';
import { fixtureOf } from '../helpers/backend-fixtures.js';
import { expiryBoundary, owner, request } from './lease-store.js';

const fx = await fixtureOf('sqlite');
const freshPath = () => fx.freshUrl('lease').slice('sqlite:'.length);

expiryBoundary('sqlite', async (now) => {
  // On a database of the test's own, which the store leaves open: closed after the tests.
  const database = new Database(freshPath());
  after(() => database.close());
  const s = new SqliteLeaseStore({ database, now });
  await s.migrate();
  return s;
});

test('migrate adds the grant mark to a lease table made before it; its leases keep working', async () => {
  const url = fx.freshUrl('lease');
  const old = new Database(url.slice('sqlite:'.length));
  old.exec(`
    CREATE TABLE idforge_leases (worker_id INTEGER PRIMARY KEY, instance_id TEXT NOT NULL,
      host TEXT NOT NULL, pid INTEGER NOT NULL, started_at_ms INTEGER NOT NULL,
      expires_at_ms INTEGER NOT NULL, last_issued_ms INTEGER, clock_ms INTEGER,
      store_clock_ms INTEGER);
    CREATE TABLE idforge_marks (worker_id INTEGER PRIMARY KEY, mark_ms INTEGER NOT NULL);
    INSERT INTO idforge_marks VALUES (3, 5000);`);
  old.close();
  const store = await openLeaseStore(url);
  try {
    await store.migrate();
    const l = await store.acquire({ ...request(owner(), 3, 3), reserveMarkMs: 0 });
    assert.equal(l?.previousMarkMs, 5000);
    await store.release(l, 0);
    assert.equal(await store.readMark(3), 5000, 'the grant mark recorded in the added column');
  } finally {
    await store.close();
  }
});
