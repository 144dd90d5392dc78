// Lease stores' edges the contract suite does not pin (found by the mutation run, issue 34):
// a released instance's claim goes with its lease, so the next holder of the worker ID hears
// of no other claimant; a closed file store refuses; and the timeouts are checked at opening.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Etcd3 } from 'etcd3';
import type { LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import {
  EtcdLeaseStore,
  openFileLeaseStore,
  StoreUnavailableError,
} from '../../packages/stores/src/index.js';
import { openLeaseStore } from '../../packages/stores/src/open.js';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';

const pgSkip = await serviceSkip('postgres', SERVERS.postgres.host, SERVERS.postgres.port);
const dir = mkdtempSync(join(tmpdir(), 'idforge-lease-edges-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const owner = () => ({ instanceId: randomUUID(), host: 'edges', pid: 1, startedAtMs: Date.now() });
const request = () => ({
  min: 0,
  max: 0,
  ttlMs: 20_000,
  owner: owner(),
  clockMs: Date.now(),
  reserveMarkMs: 0,
});

/** A releases worker ID 0; B takes it and renews: B is its only claimant. */
async function releasedClaimGoes(store: LeaseStore): Promise<void> {
  await store.migrate();
  const a = await store.acquire(request());
  assert.ok(a !== null, 'A leased worker ID 0');
  await store.release(a, null);
  const b = await store.acquire(request());
  assert.ok(b !== null, 'B leased worker ID 0');
  const renewed = await store.renew(b, {
    ttlMs: 20_000,
    reserveMarkMs: 0,
    clockMs: Date.now(),
    lastIssuedMs: null,
  });
  assert.equal(renewed.held, true);
  assert.deepEqual(renewed.claimants, [b.instanceId], 'no claim of the released A');
  await store.release(b, null);
}

describe('a released claim goes with its lease', () => {
  test('SQLite', async () => {
    const store = await openLeaseStore(`sqlite:${join(dir, 'claims.db')}`);
    try {
      await releasedClaimGoes(store);
    } finally {
      await store.close();
    }
  });

  test('file', async () => {
    const store = await openLeaseStore(`file:${join(dir, 'claims.json')}`);
    try {
      await releasedClaimGoes(store);
    } finally {
      await store.close();
    }
  });

  test('PostgreSQL', { skip: pgSkip }, async () => {
    const url = freshNamespaceUrl('postgres', 'lease_edges');
    const store = await openLeaseStore(url);
    try {
      await releasedClaimGoes(store);
    } finally {
      await store.close();
      await dropNamespaces('postgres', [url]);
    }
  });
});

test('SQLite: a store opened from a URL closes its database at close()', async () => {
  const store = await openLeaseStore(`sqlite:${join(dir, 'closing.db')}`);
  await store.migrate();
  await store.close();
  await assert.rejects(store.list(), /not open|closed/);
});

describe('file store', () => {
  test('a closed store refuses every call', async () => {
    const store = await openFileLeaseStore(`file:${join(dir, 'closed.json')}`);
    await store.close();
    await assert.rejects(
      store.acquire(request()),
      (e: unknown) =>
        e instanceof StoreUnavailableError && /closed/.test(String(e.cause ?? e.message)),
    );
  });

  test('connectTimeoutMs must be a positive finite number', async () => {
    for (const connectTimeoutMs of [0, -1, Number.POSITIVE_INFINITY]) {
      await assert.rejects(
        openFileLeaseStore(`file:${join(dir, 'timeouts.json')}`, { connectTimeoutMs }),
        (e: unknown) =>
          e instanceof RangeError && /connectTimeoutMs: expected a positive/.test(e.message),
        String(connectTimeoutMs),
      );
    }
  });
});

test('etcd: timeoutMs must be a positive integer', () => {
  const client = new Etcd3({ hosts: ['127.0.0.1:1'] }); // never called
  try {
    for (const timeoutMs of [0, -5, 1.5]) {
      assert.throws(
        () => new EtcdLeaseStore({ client, timeoutMs }),
        (e: unknown) =>
          e instanceof RangeError && /timeoutMs: expected a positive integer/.test(e.message),
        String(timeoutMs),
      );
    }
  } finally {
    client.close();
  }
});
