// The etcd lease store when another writer wins its compare-and-set (found by the mutation run,
// issue 34), on the real server through a client that rewrites some answers: a worker ID seen
// free but taken before the grant, or a grant that fails midway, gives the etcd lease granted
// for it back; and a grant, a renewal or a release whose compare keeps failing gives up after
// exactly 16 attempts. On fresh key prefixes of the etcd fixture
// (test/helpers/backend-fixtures.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Etcd3 } from 'etcd3';
import { EtcdLeaseStore, openEtcdLeaseStore } from '../../packages/stores/src/etcd/lease-store.js';
import { fixtureOf, namespaceOf } from '../helpers/backend-fixtures.js';
import { etcdClientOf } from '../helpers/etcd.js';
import { waitFor } from '../helpers/wait.js';
import { owner, request } from './lease-store.js';

const fx = await fixtureOf('etcd');
const { skip } = fx;
const url = fx.server!.url;
const raw = etcdClientOf(fx);
/** A fresh key prefix of the fixture's (its keys deleted, its etcd leases revoked after). */
const fresh = () => namespaceOf(fx.freshUrl('races'));

type Fn = (...args: never[]) => Promise<unknown>;

/** The real client's calls the store makes, each replaceable by `over`. */
function rewriting(over: { range?: Fn; txn?: Fn; leaseGrant?: Fn } = {}) {
  const c = raw!;
  return {
    kv: {
      range: over.range ?? c.kv.range.bind(c.kv),
      txn: over.txn ?? c.kv.txn.bind(c.kv),
    },
    leaseClient: {
      leaseGrant: over.leaseGrant ?? c.leaseClient.leaseGrant.bind(c.leaseClient),
      leaseRevoke: c.leaseClient.leaseRevoke.bind(c.leaseClient),
      leaseTimeToLive: c.leaseClient.leaseTimeToLive.bind(c.leaseClient),
    },
    maintenance: c.maintenance,
  } as unknown as Etcd3;
}

/** A failed compare whose reads show no holder and a mark that moved: a conflict. */
const conflict = async () => ({
  succeeded: false,
  responses: [
    { response_range: { kvs: [] } },
    {
      response_range: {
        kvs: [{ key: Buffer.from('m'), value: Buffer.from('5'), mod_revision: '1', lease: '0' }],
      },
    },
  ],
});

test('a worker ID taken between the snapshot and the grant: its etcd lease is revoked', {
  skip,
}, async () => {
  const ns = fresh();
  const holder = await openEtcdLeaseStore(url, { namespace: ns });
  try {
    assert.ok(await holder.acquire(request(owner(), 5, 5)));
    let snapshots = 0;
    const granted: string[] = [];
    const client = rewriting({
      // The first read of the lease keys misses the holder, as if it came just after.
      range: async (...args: never[]) => {
        const [req] = args as unknown as [{ range_end?: unknown }];
        if (req.range_end !== undefined && snapshots++ === 0) return { kvs: [] };
        return raw!.kv.range(...(args as unknown as Parameters<Etcd3['kv']['range']>));
      },
      leaseGrant: async (...args: never[]) => {
        const r = await raw!.leaseClient.leaseGrant(
          ...(args as unknown as Parameters<Etcd3['leaseClient']['leaseGrant']>),
        );
        granted.push(r.ID);
        return r;
      },
    });
    const late = new EtcdLeaseStore({ client, namespace: ns });
    assert.equal(await late.acquire(request(owner(), 5, 5)), null);
    assert.equal(granted.length, 1);
    assert.equal((await raw!.leaseClient.leaseTimeToLive({ ID: granted[0]! })).TTL, '-1');
  } finally {
    await holder.close();
  }
});

test('a grant whose compare keeps failing gives up after 16 attempts', { skip }, async () => {
  let txns = 0;
  const client = rewriting({
    txn: async () => {
      txns++;
      return conflict();
    },
  });
  const store = new EtcdLeaseStore({ client, namespace: fresh() });
  await assert.rejects(store.acquire(request(owner(), 0, 0)), /16 conflicts/);
  assert.equal(txns, 16);
});

test('a release whose compare keeps failing gives up after 16 attempts', { skip }, async () => {
  const ns = fresh();
  const real = await openEtcdLeaseStore(url, { namespace: ns });
  try {
    const lease = await real.acquire(request(owner(), 2, 2));
    assert.ok(lease);
    let txns = 0;
    const client = rewriting({
      txn: async () => {
        txns++;
        return { succeeded: false, responses: [] };
      },
    });
    const store = new EtcdLeaseStore({ client, namespace: ns });
    await assert.rejects(store.release(lease, 10), /16 conflicts/);
    assert.equal(txns, 16);
  } finally {
    await real.close();
  }
});

test('a renewal whose compare keeps failing gives up after 16 attempts', { skip }, async () => {
  const ns = fresh();
  const real = await openEtcdLeaseStore(url, { namespace: ns });
  try {
    const lease = await real.acquire(request(owner(), 3, 3));
    assert.ok(lease);
    let writes = 0;
    const client = rewriting({
      // Each attempt reads (no compare), then writes under a compare: the writes lose.
      txn: async (...args: never[]) => {
        const [ops] = args as unknown as [{ compare?: unknown[] }];
        if (ops.compare === undefined) {
          return raw!.kv.txn(...(args as unknown as Parameters<Etcd3['kv']['txn']>));
        }
        writes++;
        return { succeeded: false, responses: [] };
      },
    });
    const store = new EtcdLeaseStore({ client, namespace: ns });
    const report = { ttlMs: 40_000, reserveMarkMs: 0, clockMs: Date.now(), lastIssuedMs: null };
    await assert.rejects(store.renew(lease, report), /16 conflicts/);
    assert.equal(writes, 16);
  } finally {
    await real.close();
  }
});

test('a grant that fails midway gives back the etcd lease it was granted', { skip }, async () => {
  const granted: string[] = [];
  const client = rewriting({
    txn: async () => {
      throw new Error('the connection broke');
    },
    leaseGrant: async (...args: never[]) => {
      const r = await raw!.leaseClient.leaseGrant(
        ...(args as unknown as Parameters<Etcd3['leaseClient']['leaseGrant']>),
      );
      granted.push(r.ID);
      return r;
    },
  });
  const store = new EtcdLeaseStore({ client, namespace: fresh() });
  await assert.rejects(store.acquire(request(owner(), 0, 0)));
  assert.equal(granted.length, 1);
  // The revoke is sent without waiting for it (the error goes back at once): wait for it.
  await waitFor(
    async () => (await raw!.leaseClient.leaseTimeToLive({ ID: granted[0]! })).TTL === '-1',
    'the granted etcd lease revoked',
  );
});
