// What the etcd lease store adds to the LeaseStore contract (lease-store.test.ts), on fresh
// key prefixes of the etcd fixture (test/helpers/backend-fixtures.ts): URLs, failing fast when
// the server is down or silent, isolation of namespaces and of clients, etcd leases (marks
// outlive them, a TTL change moves to a new one, release revokes), claims of a holder whose
// lease key was deleted by hand, and a restart of an etcd of the test's own, on ports the OS
// gives.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { Etcd3 } from 'etcd3';
import type { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';
import type { LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import { parseEtcdUrl } from '../../packages/stores/src/etcd/connect.js';
import { openEtcdLeaseStore } from '../../packages/stores/src/etcd/lease-store.js';
import { fixtureOf, namespaceOf } from '../helpers/backend-fixtures.js';
import { etcdClientOf } from '../helpers/etcd.js';
import { freePort, ownServer } from '../helpers/server.js';
import { requireServices } from '../helpers/services.js';
import { rejectsUnavailable } from '../helpers/store-errors.js';
import { silentServer } from '../helpers/tcp.js';
import { owner, report, request, untilExpired } from './lease-store.js';

const fx = await fixtureOf('etcd');
const { skip } = fx;
const url = fx.server!.url;
/** A client of the server's own, to look at the keys and etcd leases a store leaves. */
const raw = etcdClientOf(fx);

/** A fresh key prefix of the fixture's (its keys deleted, its etcd leases revoked after). */
const freshNamespace = () => namespaceOf(fx.freshUrl('lease'));

const open = (namespace = freshNamespace()) => openEtcdLeaseStore(url, { namespace });

/** Asserts `p` rejects with StoreUnavailableError('etcd', operation) in under `withinMs`. */
const assertUnavailable = (p: Promise<unknown>, operation: string, withinMs: number) =>
  rejectsUnavailable(p, { backend: 'etcd', operation }, withinMs);

describe('etcd URLs', () => {
  test('hosts default to port 2379; the namespace is a query parameter', () => {
    assert.deepEqual(parseEtcdUrl('etcd://a:1,b,[::1]:3?namespace=x'), {
      hosts: ['http://a:1', 'http://b:2379', 'http://[::1]:3'],
      namespace: 'x',
    });
    assert.deepEqual(parseEtcdUrl('ETCD://127.0.0.1:2379/'), {
      hosts: ['http://127.0.0.1:2379'],
      namespace: null,
    });
  });

  test('malformed URLs, credentials, unknown parameters and bad namespaces are RangeErrors', async () => {
    for (const bad of ['etcd://', 'etcd://a:0', 'etcd://a:99999', 'etcd://a/b', 'redis://a']) {
      assert.throws(() => parseEtcdUrl(bad), RangeError, bad);
    }
    assert.throws(
      () => parseEtcdUrl('etcd://u:secret@a'),
      (e: unknown) => {
        assert.ok(e instanceof RangeError && e.message.includes('u:***@a'), String(e));
        return true;
      },
    );
    assert.throws(() => parseEtcdUrl('etcd://a?ns=x'), RangeError);
    await assert.rejects(openEtcdLeaseStore('etcd://a?namespace=a/b'), RangeError);
  });
});

describe('etcd that is down or silent', () => {
  test('a closed port fails fast with StoreUnavailableError naming etcd and the address', async () => {
    const p = openEtcdLeaseStore('etcd://127.0.0.1:1?namespace=x', { connectTimeoutMs: 2000 });
    await assertUnavailable(p, 'connect', 2000);
    await p.catch((e: StoreUnavailableError) => {
      assert.equal(e.address, 'etcd://127.0.0.1:1?namespace=x');
      assert.match(e.message, /etcd store at etcd:\/\/127\.0\.0\.1:1/);
    });
  });

  test('a server that accepts and never answers fails within connectTimeoutMs', async () => {
    const silent = await silentServer();
    try {
      await assertUnavailable(
        openEtcdLeaseStore(`etcd://127.0.0.1:${silent.port}`, { connectTimeoutMs: 700 }),
        'connect',
        700 + 1000,
      );
    } finally {
      await silent.close();
    }
  });

  test('a connect that failed closes the client it opened', async (t) => {
    // A spy that calls through: the etcd3 client's own close(), on the client openEtcdLeaseStore
    // made (the driver is loaded lazily, but it is this module).
    const close = t.mock.method(Etcd3.prototype, 'close');
    await assertUnavailable(
      openEtcdLeaseStore('etcd://127.0.0.1:1?namespace=x', { connectTimeoutMs: 2000 }),
      'connect',
      2000,
    );
    assert.equal(close.mock.callCount(), 1);
  });
});

describe('etcd lease store', { skip }, () => {
  test('namespaces are apart: each has its own worker IDs, leases and marks', async () => {
    const [a, b] = await Promise.all([open(), open()]);
    try {
      const la = await a.acquire(request(owner(), 0, 0));
      const lb = await b.acquire(request(owner(), 0, 0));
      assert.equal(la?.workerId, 0);
      assert.equal(lb?.workerId, 0);
      assert.equal((await a.list()).length, 1);
      assert.equal((await b.list())[0]?.instanceId, lb?.instanceId);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('acquires racing from separate clients never share an ID', async () => {
    const ns = freshNamespace();
    const stores = await Promise.all([open(ns), open(ns), open(ns)]);
    try {
      const got = await Promise.all(
        stores.flatMap((s) => Array.from({ length: 4 }, () => s.acquire(request(owner(), 0, 7)))),
      );
      const ids = got.flatMap((l) => (l === null ? [] : [l.workerId])).sort((x, y) => x - y);
      assert.deepEqual(ids, [0, 1, 2, 3, 4, 5, 6, 7]);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  test('the mark outlives the etcd lease; lease and claim keys go with it', async () => {
    const ns = freshNamespace();
    const s = await open(ns);
    try {
      const l = await s.acquire({ ...request(owner(), 5, 5, 1000), reserveMarkMs: 1234 });
      assert.equal(l?.markMs, 1234);
      assert.ok(l);
      await untilExpired(s, l, 2000); // etcd's minimum TTL (2 s) applies to a 1 s request
      assert.deepEqual((await raw!.getAll().prefix(`/${ns}/`).keys()).sort(), [`/${ns}/mark/5`]);
      assert.equal(await s.readMark(5), 1234);
      const next = await s.acquire({ ...request(owner(), 5, 5), reserveMarkMs: 1000 });
      assert.equal(next?.previousMarkMs, 1234);
    } finally {
      await s.close();
    }
  });

  test('a renewal with another TTL moves the lease to a new etcd lease of that TTL', async () => {
    const ns = freshNamespace();
    const s = await open(ns);
    try {
      const l = await s.acquire(request(owner(), 0, 0, 60_000));
      assert.ok(l);
      const before = await raw!.get(`/${ns}/lease/0`).exec();
      assert.equal((await s.renew(l, report(2000, Date.now()))).held, true);
      const after = await raw!.get(`/${ns}/lease/0`).exec();
      assert.notEqual(after.kvs[0]?.lease, before.kvs[0]?.lease);
      const old = await raw!.leaseClient.leaseTimeToLive({ ID: before.kvs[0]!.lease });
      assert.equal(old.TTL, '-1', 'the old etcd lease is revoked');
      const [r] = await s.list();
      assert.ok(r && r.expiresAtMs - Date.now() <= 2000, `expires at ${r?.expiresAtMs}`);
      await untilExpired(s, l, 2000);
      assert.equal((await s.acquire(request(owner(), 0, 0)))?.workerId, 0);
    } finally {
      await s.close();
    }
  });

  test('release revokes the etcd lease and never hands a lease key to a non-holder', async () => {
    const ns = freshNamespace();
    const s = await open(ns);
    try {
      const l = await s.acquire(request(owner(), 3, 3));
      assert.ok(l);
      const { kvs } = await raw!.get(`/${ns}/lease/3`).exec();
      await s.release(l, 77);
      const ttl = await raw!.leaseClient.leaseTimeToLive({ ID: kvs[0]!.lease });
      assert.equal(ttl.TTL, '-1');
      assert.equal(await s.readMark(3), 77);
      assert.deepEqual(await raw!.getAll().prefix(`/${ns}/claim/`).keys(), []);
    } finally {
      await s.close();
    }
  });

  test('a lease key deleted by hand: both instances see both claims; only the new one holds', async () => {
    const ns = freshNamespace();
    const s = await open(ns);
    try {
      const a = owner();
      const b = owner();
      const la = await s.acquire(request(a, 1, 1));
      assert.ok(la);
      await raw!.delete().key(`/${ns}/lease/1`);
      const lb = await s.acquire(request(b, 1, 1));
      assert.equal(lb?.workerId, 1);
      const both = [a.instanceId, b.instanceId].sort();
      assert.deepEqual(await s.renew(la, report(30_000, Date.now())), {
        held: false,
        claimants: both,
      });
      assert.deepEqual(await s.renew(lb!, report(30_000, Date.now())), {
        held: true,
        claimants: both,
      });
      await s.release(la, 0);
      assert.deepEqual((await s.renew(lb!, report(30_000, Date.now()))).claimants, [b.instanceId]);
      assert.equal(await s.readMark(1), lb?.markMs, 'the non-holder did not set the mark');
    } finally {
      await s.close();
    }
  });
});

const etcdBinary = spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' }).status === 0;
const restartSkip =
  etcdBinary || requireServices ? false : 'etcd is not installed (scripts/services/etcd.sh)';

describe('etcd restarted under a store', { skip: restartSkip }, () => {
  test('calls fail within the timeout while it is down and succeed again after', async () => {
    // Its own etcd (scripts/services/etcd.sh), on ports the OS gives; its data kept across
    // the restart, deleted at the end.
    const port = await freePort();
    const server = ownServer('etcd', port);
    await server.start();
    let s: LeaseStore | null = null;
    try {
      s = await openEtcdLeaseStore(`etcd://127.0.0.1:${port}`, { connectTimeoutMs: 1500 });
      const l = await s.acquire(request(owner(), 0, 0, 30_000));
      assert.ok(l);
      await server.stop();
      await assertUnavailable(s.renew(l, report(30_000, Date.now())), 'renew', 1500 + 1000);
      await assertUnavailable(s.list(), 'list', 1500 + 1000);
      await server.start();
      assert.equal((await s.renew(l, report(30_000, Date.now()))).held, true);
      assert.ok((await s.readMark(0))! >= l.markMs, 'the mark survived the restart');
    } finally {
      await s?.close();
      await server.stop(false, true);
    }
  });
});
