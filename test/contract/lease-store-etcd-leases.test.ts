// The etcd lease store gives back the etcd lease of a claim it drops (found by the mutation
// run, issue 34): a release by an instance whose lease key is gone (expired and taken over)
// deletes its claim and revokes the claim's etcd lease, which would otherwise stay until its
// TTL; and a store opened from a URL closes the client it opened.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { Etcd3 } from 'etcd3';
import { parseEtcdUrl } from '../../packages/stores/src/etcd/connect.js';
import { openEtcdLeaseStore } from '../../packages/stores/src/etcd/lease-store.js';
import { serviceSkip } from '../helpers/services.js';
import { owner, request } from './lease-store.js';

const url = process.env.IDFORGE_ETCD_URL ?? 'etcd://127.0.0.1:2379';
const { hosts } = parseEtcdUrl(url);
const first = new URL(hosts[0]!);
const skip = await serviceSkip('etcd', first.hostname, Number(first.port));
const raw = skip === false ? new Etcd3({ hosts: [...hosts] }) : null;
const namespaces: string[] = [];
const fresh = () => {
  const ns = `idforge-leases-${randomUUID().slice(0, 8)}`;
  namespaces.push(ns);
  return ns;
};

after(async () => {
  if (raw === null) return;
  for (const ns of namespaces) {
    const kvs = await raw.getAll().prefix(`/${ns}/`).exec();
    const leases = new Set(kvs.kvs.map((kv) => kv.lease).filter((id) => id !== '0'));
    await Promise.all([...leases].map((ID) => raw.leaseClient.leaseRevoke({ ID }).catch(() => {})));
    await raw.delete().prefix(`/${ns}/`);
  }
  raw.close();
});

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
