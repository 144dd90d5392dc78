// Issue 8 §1 on every store kind: the store is taken down for 2 s (the project's own server
// instance stopped, or, for the one-host stores, the write lock held by another process) under
// a caller that keeps asking and retries at once. Asserted: the event loop stays free, the
// process makes a bounded number of store attempts per second, and it is served again within
// 2 s of the store's return, with no number or ID repeated. Before the fix a sequence spun at
// 100% CPU through the fetch timeout (about 10^5 attempts per second) and a SQLite store
// blocked the process for the whole busy timeout.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, type TestContext, test } from 'node:test';
import { createSnowflakeNode, type SnowflakeNode } from '../../packages/idforge/src/coord/index.js';
import { IdforgeError } from '../../packages/idforge/src/core/index.js';
import { migrateStore, openLeaseStore, openSegmentStore } from '../../packages/stores/src/open.js';
import { openSequence } from '../../packages/stores/src/open-sequence.js';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { freePorts, ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { type HeldLock, holdSqliteLock } from '../helpers/sqlite-lock.js';
import { tempDir } from '../helpers/temp.js';
import { counted, type Outage, type OutageReport, probeOutage } from './outage-probe.js';

// Each server of its own on a port from the OS.
const [PG_PORT, MARIADB_PORT, REDIS_PORT, REDIS_DURABLE_PORT, ETCD_PORT] = await freePorts(5);
const PG = ownServer('postgres', PG_PORT!);
const MARIADB = ownServer('mariadb', MARIADB_PORT!);
const REDIS = ownServer('redis', REDIS_PORT!, ['--no-persist']);
// Leases are expected to survive a restart (appendfsync always), as on a Redis run for them.
const REDIS_DURABLE = ownServer('redis', REDIS_DURABLE_PORT!);
const ETCD = ownServer('etcd', ETCD_PORT!);
const { dir, remove: removeDir } = tempDir('idforge-store-outage-');
const suffix = () => randomBytes(3).toString('hex');

/** An own server stopped (a clean stop: connections are refused at once) and started again. */
const serverOutage = (s: typeof PG): Outage => ({ down: () => s.stop(), up: () => s.start() });

/** Another process holding the SQLite write lock. */
function sqliteLock(path: string): Outage {
  let held: HeldLock | null = null;
  return {
    down: async () => {
      held = await holdSqliteLock(path);
    },
    up: () => held!.release(),
  };
}

/** A live process's lock file on a file: store (the pid is ours, so it is never stale). */
function fileLock(path: string): Outage {
  const lock = `${path}.lock`;
  return {
    down: async () => {
      writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'x' }), {
        flag: 'wx',
      });
    },
    up: async () => unlinkSync(lock),
  };
}

function assertHealthy(t: TestContext, name: string, r: OutageReport): void {
  const at = `${name}: ${JSON.stringify({ ...r, drawn: r.drawn.length })}`;
  t.diagnostic(at);
  // The defect blocked the loop for a call's whole wait on the store (seconds, a sizeable part
  // of the 2 s outage); a busy machine's preemption stalls it for a few hundred ms at most.
  assert.ok(r.maxLagMs < 1000, `${at}: the event loop was blocked for ${r.maxLagMs} ms`);
  assert.ok(r.attemptsPerSecond <= 40, `${at}: ${r.attemptsPerSecond} store attempts per second`);
  assert.ok(r.recoveredMs < 2000, `${at}: served again only ${r.recoveredMs} ms after the return`);
  assert.equal(new Set(r.drawn).size, r.drawn.length, `${at}: a value was drawn twice`);
}

const isTyped = (e: unknown) => e instanceof IdforgeError;
const pgMarksUrl = freshNamespaceUrl('postgres', 'i8marks');
const ownPgUrl = `postgres://postgres@127.0.0.1:${PG_PORT}/postgres?namespace=i8_${suffix()}`;
let pgSkip: string | false = false;

before(async () => {
  pgSkip = await serviceSkip('PostgreSQL', SERVERS.postgres.host, SERVERS.postgres.port);
  await Promise.all([PG, MARIADB, REDIS, REDIS_DURABLE, ETCD].map((s) => s.start()));
});
after(async () => {
  await Promise.all([PG, MARIADB, REDIS, REDIS_DURABLE, ETCD].map((s) => s.stop()));
  if (!pgSkip) await dropNamespaces('postgres', [pgMarksUrl]);
  removeDir();
});

describe('issue 8: a sequence through a store outage', () => {
  const kinds: { name: string; url: string; outage: Outage; marks?: string; table: boolean }[] = [
    {
      name: 'sqlite',
      url: `sqlite:${join(dir, 'seq.db')}`,
      outage: sqliteLock(join(dir, 'seq.db')),
      table: true,
    },
    { name: 'postgres', url: ownPgUrl, outage: serverOutage(PG), table: true },
    {
      name: 'mysql',
      url: `mysql://root@127.0.0.1:${MARIADB_PORT}/test?namespace=i8_${suffix()}`,
      outage: serverOutage(MARIADB),
      table: true,
    },
    {
      name: 'redis counter, sqlite marks',
      url: `redis://127.0.0.1:${REDIS_PORT}?namespace=i8_${suffix()}`,
      marks: `sqlite:${join(dir, 'marks.db')}`,
      outage: serverOutage(REDIS),
      table: false,
    },
    {
      name: 'redis counter, postgres marks',
      url: `redis://127.0.0.1:${REDIS_PORT}?namespace=i8_${suffix()}`,
      marks: pgMarksUrl,
      outage: serverOutage(REDIS),
      table: false,
    },
  ];
  for (const k of kinds) {
    test(k.name, async (t) => {
      if (k.marks === pgMarksUrl && pgSkip) return t.skip(pgSkip);
      const tag = `spin_${suffix()}`;
      if (k.table) {
        await migrateStore(k.url);
        const store = await openSegmentStore(k.url);
        await store.createTag(tag, { step: 50 });
        await store.close();
      }
      if (k.marks !== undefined) await migrateStore(k.marks);
      const { sequence, close } = await openSequence(k.url, tag, {
        dynamicStep: false,
        fetchTimeoutMs: 1000,
        connectTimeoutMs: 1000,
        ...(k.marks === undefined ? {} : { marks: k.marks, blockSize: 50 }),
      });
      t.after(close);
      const report = await probeOutage({
        outage: k.outage,
        call: () => sequence.next(),
        attempts: () => sequence.stats.fetches + sequence.stats.fetchFailures,
        successes: () => sequence.stats.fetches,
        expected: isTyped,
      });
      assertHealthy(t, k.name, report);
      for (let i = 1; i < report.drawn.length; i++) {
        assert.ok(report.drawn[i]! > report.drawn[i - 1]!, `${k.name}: numbers increase`);
      }
    });
  }
});

describe('issue 8: a Snowflake node through a lease store outage', () => {
  const kinds: { name: string; url: string; outage: Outage }[] = [
    {
      name: 'sqlite',
      url: `sqlite:${join(dir, 'leases.db')}`,
      outage: sqliteLock(join(dir, 'leases.db')),
    },
    {
      name: 'file',
      url: `file:${join(dir, 'leases.json')}`,
      outage: fileLock(join(dir, 'leases.json')),
    },
    { name: 'postgres', url: ownPgUrl, outage: serverOutage(PG) },
    {
      name: 'redis',
      url: `redis://127.0.0.1:${REDIS_DURABLE_PORT}?namespace=i8_${suffix()}`,
      outage: serverOutage(REDIS_DURABLE),
    },
    {
      name: 'etcd',
      url: `etcd://127.0.0.1:${ETCD_PORT}?namespace=i8_${suffix()}`,
      outage: serverOutage(ETCD),
    },
  ];
  for (const k of kinds) {
    test(k.name, async (t) => {
      if (k.name === 'postgres' || k.name === 'redis') await migrateStore(k.url);
      const c = counted(await openLeaseStore(k.url, { connectTimeoutMs: 1000 }));
      let node: SnowflakeNode | undefined;
      // The node first (it releases its lease through the store), then the store.
      t.after(async () => {
        await node?.close();
        await c.store.close();
      });
      node = await createSnowflakeNode({
        store: c.store,
        ttlMs: 6000,
        renewEveryMs: 300,
        logger: { info() {}, warn() {}, error() {} },
      });
      const running = node;
      const report = await probeOutage({
        outage: k.outage,
        call: async () => running.next(),
        attempts: () => c.calls,
        successes: () => c.ok,
        expected: isTyped,
      });
      assertHealthy(t, k.name, report);
    });
  }
});

describe('issue 8: a node started while its store is down', () => {
  test('acquireTimeoutMs waits for the store (with back-off); 0 fails at once, typed', async (t) => {
    const url = `redis://127.0.0.1:${REDIS_DURABLE_PORT}?namespace=i8_${suffix()}`;
    const c = counted(await openLeaseStore(url, { connectTimeoutMs: 1000 }));
    t.after(() => c.store.close());
    const quiet = { info() {}, warn() {}, error() {} };
    await REDIS_DURABLE.stop();
    try {
      await assert.rejects(
        createSnowflakeNode({ store: c.store, logger: quiet }),
        (e: unknown) => e instanceof IdforgeError && e.code === 'IDF_STORE_UNAVAILABLE',
      );
      const starting = createSnowflakeNode({
        store: c.store,
        acquireTimeoutMs: 10_000,
        logger: quiet,
      });
      starting.catch(() => undefined);
      const before = c.calls;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const attempts = c.calls - before;
      assert.ok(attempts >= 2 && attempts <= 12, `${attempts} store attempts in 1.5 s while down`);
      await REDIS_DURABLE.start();
      const node = await starting;
      assert.ok(node.next() > 0n);
      await node.close();
    } finally {
      await REDIS_DURABLE.start();
    }
  });
});
