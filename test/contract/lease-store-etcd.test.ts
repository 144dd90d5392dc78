// The LeaseStore contract on etcd (a fresh key prefix per store, deleted at the end), then what
// is particular to etcd: URLs, failing fast when the server is down or silent, isolation of
// namespaces and of clients, etcd leases (marks outlive them, a TTL change moves to a new one,
// release revokes), claims of a holder whose lease key was deleted by hand, and a restart.
// The server: IDFORGE_ETCD_URL, default etcd://127.0.0.1:2379 (scripts/services/etcd.sh).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Etcd3 } from 'etcd3';
import type { LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import { StoreUnavailableError } from '../../packages/idforge/src/core/index.js';
import { parseEtcdUrl } from '../../packages/stores/src/etcd/connect.js';
import { openEtcdLeaseStore } from '../../packages/stores/src/etcd/lease-store.js';
import { requireServices, serviceSkip } from '../helpers/services.js';
import { leaseStoreContract, owner, report, request, untilExpired } from './lease-store.js';

const url = process.env.IDFORGE_ETCD_URL ?? 'etcd://127.0.0.1:2379';
const { hosts } = parseEtcdUrl(url);
const first = new URL(hosts[0]!);
const skip = await serviceSkip('etcd', first.hostname, Number(first.port));
const run = randomUUID().slice(0, 8);
const namespaces: string[] = [];
const raw = skip === false ? new Etcd3({ hosts: [...hosts] }) : null;

function freshNamespace(): string {
  const ns = `idforge-test-${run}-${namespaces.length}`;
  namespaces.push(ns);
  return ns;
}

const open = (namespace = freshNamespace()) => openEtcdLeaseStore(url, { namespace });

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

leaseStoreContract('etcd', { open: () => open(), shortTtlMs: 2000, skip, clockless: true });

/** Rejects with StoreUnavailableError for etcd at `address`, in less than `withinMs`. */
async function assertUnavailable(p: Promise<unknown>, operation: string, withinMs: number) {
  const start = Date.now();
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof StoreUnavailableError, String(e));
    assert.equal(e.backend, 'etcd');
    assert.equal(e.operation, operation);
    return true;
  });
  const took = Date.now() - start;
  assert.ok(took < withinMs, `took ${took} ms`);
}

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
    const sockets = new Set<import('node:net').Socket>();
    const silent: Server = createServer((s) => sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const { port } = silent.address() as { port: number };
    try {
      await assertUnavailable(
        openEtcdLeaseStore(`etcd://127.0.0.1:${port}`, { connectTimeoutMs: 700 }),
        'connect',
        700 + 1000,
      );
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
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
  test('calls fail within the timeout while it is down and succeed again after', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'idforge-etcd-restart-'));
    // `stop --wipe` below deletes it too, but not when the start or the stop fails.
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const [port, peerPort] = await Promise.all([freePort(), freePort()]);
    const script = (cmd: string, ...more: string[]) =>
      execFileSync(
        'bash',
        ['scripts/services/etcd.sh', cmd, '--port', `${port}`, '--dir', dir, ...more],
        {
          stdio: 'pipe',
        },
      );
    script('start', '--peer-port', `${peerPort}`);
    let s: LeaseStore | null = null;
    try {
      s = await openEtcdLeaseStore(`etcd://127.0.0.1:${port}`, { connectTimeoutMs: 1500 });
      const l = await s.acquire(request(owner(), 0, 0, 30_000));
      assert.ok(l);
      script('stop');
      await assertUnavailable(s.renew(l, report(30_000, Date.now())), 'renew', 1500 + 1000);
      await assertUnavailable(s.list(), 'list', 1500 + 1000);
      script('start', '--peer-port', `${peerPort}`);
      assert.equal((await s.renew(l, report(30_000, Date.now()))).held, true);
      assert.ok((await s.readMark(0))! >= l.markMs, 'the mark survived the restart');
    } finally {
      await s?.close();
      script('stop', '--wipe');
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
