// Issue 8 §4. (1) `sqlite:PATH?namespace=X` created a file literally named "PATH?namespace=X",
// and openLeaseStore('sqlite:...', { namespace }) ignored the option, so fleets meant to be
// separate shared one lease table. Now the namespace prefixes the SQLite tables (URL or
// option, the option wins) and any other parameter is refused. (2) MariaDB compared tags with
// utf8mb4_bin, a PAD SPACE collation: "padA" and "padA " were one tag. Now the tag column is
// VARBINARY, so every engine keeps them apart.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  migrateStore,
  openLeaseStore,
  openMarkStore,
  openSegmentStore,
} from '../../packages/stores/src/open.js';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-names-');

const request = () => ({
  min: 0,
  max: 0,
  ttlMs: 60_000,
  owner: { instanceId: randomUUID(), host: 'h', pid: 1, startedAtMs: Date.now() },
  clockMs: Date.now(),
  reserveMarkMs: 0,
});

describe('issue 8: sqlite namespaces', () => {
  test('the URL namespace names tables, not the file; fleets in one file stay apart', async () => {
    const path = join(dir, 'fleet.db');
    const a = await openLeaseStore(`sqlite:${path}?namespace=fleet_a`);
    const b = await openLeaseStore(`sqlite:${path}?namespace=fleet_b`);
    try {
      assert.deepEqual(
        readdirSync(dir).filter((f) => f.includes('?')),
        [],
      );
      assert.ok(existsSync(path));
      // Worker 0 is the only one in range: both fleets get it, each in its own tables.
      assert.equal((await a.acquire(request()))?.workerId, 0);
      assert.equal((await b.acquire(request()))?.workerId, 0);
      assert.equal(await a.acquire(request()), null, 'fleet_a has no second worker 0');
      assert.equal((await a.list()).length, 1);
      assert.equal((await b.list()).length, 1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('the namespace option is honoured and wins over the URL', async () => {
    const path = join(dir, 'option.db');
    const plain = await openLeaseStore(`sqlite:${path}`);
    const named = await openLeaseStore(`sqlite:${path}?namespace=ignored`, { namespace: 'opt' });
    try {
      assert.equal((await plain.acquire(request()))?.workerId, 0);
      assert.equal(
        (await named.acquire(request()))?.workerId,
        0,
        'the option made a fleet of its own',
      );
      const ignored = await openLeaseStore(`sqlite:${path}?namespace=ignored`);
      assert.equal((await ignored.list()).length, 0, 'the URL namespace was not used');
      await ignored.close();
    } finally {
      await plain.close();
      await named.close();
    }
  });

  test('segment and mark stores take the namespace too', async () => {
    const path = join(dir, 'seq.db');
    const s1 = await openSegmentStore(`sqlite:${path}?namespace=app_one`);
    const s2 = await openSegmentStore(`sqlite:${path}?namespace=app_two`);
    await s1.createTag('orders', { step: 10 });
    await s2.createTag('orders', { step: 10 });
    assert.equal((await s1.takeSegment('orders')).first, 1n);
    assert.equal((await s2.takeSegment('orders')).first, 1n);
    await s1.close();
    await s2.close();
    const m1 = await openMarkStore(`sqlite:${path}?namespace=app_one`);
    const m2 = await openMarkStore(`sqlite:${path}`, { namespace: 'app_two' });
    await m1.raise('k', 100n);
    assert.equal(await m2.read('k'), null);
    assert.equal(await m1.read('k'), 100n);
    await m1.close();
    await m2.close();
    assert.deepEqual(await migrateStore(`sqlite:${path}?namespace=app_three`), [
      'leases, marks, claims',
      'segments',
      'counter marks',
    ]);
  });

  test('other parameters and malformed namespaces are refused, naming the problem', async () => {
    const path = join(dir, 'bad.db');
    await assert.rejects(openLeaseStore(`sqlite:${path}?namespcae=x`), (e: unknown) => {
      assert.ok(e instanceof RangeError);
      assert.match(e.message, /accepts only the parameter "namespace", got "namespcae"/);
      return true;
    });
    await assert.rejects(
      openSegmentStore(`sqlite:${path}?namespace=Bad-Name`),
      /namespace: expected/,
    );
    await assert.rejects(openLeaseStore(`sqlite:${path}`, { namespace: 'x y' }), /namespace/);
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('bad')),
      [],
      'no file was created',
    );
  });
});

describe('issue 8: tags differing only by trailing spaces are distinct on every engine', () => {
  const engines = [
    { name: 'sqlite', server: null },
    { name: 'postgres', server: 'postgres' },
    { name: 'mysql', server: 'mysql' },
  ] as const;
  for (const e of engines) {
    test(e.name, async (t) => {
      let url = `sqlite:${join(dir, `pad-${randomBytes(3).toString('hex')}.db`)}`;
      if (e.server !== null) {
        const skip = await serviceSkip(e.name, SERVERS[e.server].host, SERVERS[e.server].port);
        if (skip) return t.skip(skip);
        url = freshNamespaceUrl(e.server, 'pad');
        t.after(() => dropNamespaces(e.server, [url]));
        await migrateStore(url);
      }
      const store = await openSegmentStore(url);
      t.after(() => store.close());
      await store.createTag('padA', { step: 10 });
      await store.createTag('padA ', { step: 10, start: 1001n });
      await store.createTag('padA  ', { step: 10, start: 5001n });
      assert.equal((await store.takeSegment('padA')).first, 1n);
      assert.equal((await store.takeSegment('padA ')).first, 1001n);
      assert.equal((await store.takeSegment('padA  ')).first, 5001n);
      assert.equal((await store.getTag('padA '))?.tag, 'padA ');
      assert.deepEqual(
        (await store.listTags()).map((r) => r.tag),
        ['padA', 'padA ', 'padA  '],
      );
      assert.equal(await store.getTag('pada'), null, 'case-sensitive');
    });
  }

  test('mysql: migrate converts a table made with the old PAD SPACE column', async (t) => {
    const skip = await serviceSkip('mysql', SERVERS.mysql.host, SERVERS.mysql.port);
    if (skip) return t.skip(skip);
    const url = freshNamespaceUrl('mysql', 'padold');
    t.after(() => dropNamespaces('mysql', [url]));
    const ns = new URL(url).searchParams.get('namespace')!;
    const { default: mysql } = await import('mysql2/promise');
    const conn = await mysql.createConnection(SERVERS.mysql.url);
    await conn.query(
      `CREATE TABLE \`${ns}_segments\` (tag VARCHAR(128) NOT NULL, max_id BIGINT NOT NULL,
       step INT NOT NULL, description VARCHAR(256) NOT NULL DEFAULT '',
       updated_at_ms BIGINT NOT NULL, PRIMARY KEY (tag))
       ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    );
    await conn.query(`INSERT INTO \`${ns}_segments\` VALUES ('émoji😀', 42, 5, '', 0)`);
    await conn.end();
    await migrateStore(url);
    const store = await openSegmentStore(url);
    t.after(() => store.close());
    assert.equal((await store.getTag('émoji😀'))?.maxId, 42n, 'the bytes survived the conversion');
    await store.createTag('émoji😀 ', { step: 5 });
    assert.equal((await store.listTags()).length, 2);
  });
});
