// The etcd lease store gives back the etcd lease of a claim it drops (found by the mutation
// run, issue 34): a release by an instance whose lease key is gone (expired and taken over)
// deletes its claim and revokes the claim's etcd lease, which would otherwise stay until its
// TTL; and a store opened from a URL closes the client it opened. On fresh key prefixes of the
// etcd fixture (test/helpers/backend-fixtures.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Etcd3 } from 'etcd3';
import { openEtcdLeaseStore } from '../../packages/stores/src/etcd/lease-store.js';
import { fixtureOf, namespaceOf } from '../helpers/backend-fixtures.js';
import { etcdClientOf } from '../helpers/etcd.js';
import { owner, request } from './lease-store.js';

const fx = await fixtureOf('etcd');
const { skip } = fx;
const url = fx.server!.url;
const raw = etcdClientOf(fx);
/** A fresh key prefix of the fixture's (its keys deleted, its etcd leases revoked after). */
const fresh = () => namespaceOf(fx.freshUrl('lease'));

test('a release by an instance whose lease key is gone revokes its claim lease', {
  skip,
}, async () => {
  const ns = fresh();
  const s = await openEtcdLeaseStore(url, { namespace: ns });
  try {
    const a = owner();
    const la = await s.acquire(request(a, 1, 1));
    assert.ok(la);
    const claim = (await raw!.get(`/${ns}/claim/1/${a.instanceId}`).exec()).kvs[0];
    assert.ok(claim !== undefined && claim.lease !== '0', 'the claim lives on an etcd lease');
    await raw!.delete().key(`/${ns}/lease/1`); // as if it expired and another took over
    await s.release(la, 0);
    assert.equal((await raw!.leaseClient.leaseTimeToLive({ ID: claim.lease })).TTL, '-1');
    assert.deepEqual(await raw!.getAll().prefix(`/${ns}/claim/`).keys(), []);
  } finally {
    await s.close();
  }
});

test('a store opened from a URL closes its own etcd client at close()', { skip }, async () => {
  // The store's client is an Etcd3 of this same module: count the closes it gets.
  const close = Etcd3.prototype.close;
  let closed = 0;
  Etcd3.prototype.close = function (this: Etcd3) {
    closed++;
    return close.call(this);
  };
  try {
    const s = await openEtcdLeaseStore(url, { namespace: fresh() });
    await s.list();
    await s.close();
    assert.equal(closed, 1);
  } finally {
    Etcd3.prototype.close = close;
  }
});
