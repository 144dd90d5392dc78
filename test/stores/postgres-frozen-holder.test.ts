// Found by a CI run of the fleet suite (SIGSTOP on PostgreSQL): a node frozen in the middle of a
// lease transaction kept its locks while the server waited for it, and the node taking over
// waited on them until its own statement timeout, then failed with IDF_STORE_UNAVAILABLE. The
// pool's idle_in_transaction_session_timeout was twice the statement timeout, so the server
// ended the frozen session only after every waiter had given up. Now it is half: a waiter
// gets the locks within its own timeout. And the frozen process, once resumed, must not crash on
// the 'error' its ended connection emits while checked out (pg-pool stops listening then).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { migrateStore, openLeaseStore } from '../../packages/stores/src/index.js';
import { connectPostgres } from '../../packages/stores/src/postgres/connect.js';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';

const url = freshNamespaceUrl('postgres', 'frozen');
let skip: string | false = false;
before(async () => {
  skip = await serviceSkip('PostgreSQL', SERVERS.postgres.host, SERVERS.postgres.port);
  if (!skip) await migrateStore(url);
});
after(async () => {
  if (!skip) await dropNamespaces('postgres', [url]);
});

test('a session frozen inside a lease transaction does not outlast a waiter', async (t) => {
  if (skip) return t.skip(skip);
  const queryTimeoutMs = 1000;
  // The frozen holder: a session of idforge's own pool holding the grant lock, then silent.
  const frozen = await connectPostgres(url, { connectTimeoutMs: queryTimeoutMs });
  t.after(() => frozen.pool.end());
  const client = await frozen.pool.connect();
  await client.query('BEGIN');
  await client.query(
    `SELECT pg_advisory_xact_lock(hashtext('idforge.acquire'), hashtext($1::text))`,
    [frozen.namespace],
  );
  // The server's idle-in-transaction clock for the frozen session starts here.
  const idleSince = performance.now();
  const store = await openLeaseStore(url, { connectTimeoutMs: queryTimeoutMs });
  t.after(() => store.close());
  const lease = await store.acquire({
    min: 0,
    max: 0,
    ttlMs: 10_000,
    owner: { instanceId: randomUUID(), host: 'h', pid: 1, startedAtMs: Date.now() },
    clockMs: Date.now(),
    reserveMarkMs: 0,
  });
  const grantedMs = performance.now() - idleSince;
  assert.equal(lease?.workerId, 0, 'the waiter was granted the worker ID');
  // The server ended the frozen session. Its client emitted 'error' while checked out: the
  // pool's own listener took it (no uncaught exception), and its next statement fails.
  await assert.rejects(client.query('SELECT 1'));
  client.release(true);
  // It was granted once the server ended the frozen session: half the statement timeout after
  // the session went idle (the store's opening, slow on a busy machine, is part of that time).
  assert.ok(grantedMs >= queryTimeoutMs / 2 - 50, `granted ${grantedMs} ms after the freeze`);
});
