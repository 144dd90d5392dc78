// Issue 9, §9: store errors name their real cause with a distinct code and fix. Before, every
// store failure was StoreUnavailableError ending in "check that the server is running ... and
// that `idforge migrate` has been run; idforge retries by itself", also for a bad SQLite path
// and in the one-shot CLI, which never retries; the ticket client's "all down" error said
// "mysql+postgres store" and "next probe in 500 ms". Each case below is produced against the
// real shared servers or a real file: no mocked driver error.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ErrorCode } from '../../packages/idforge/src/core/index.js';
import {
  StoreUnavailableError,
  TicketClient,
  UnknownTagError,
} from '../../packages/idforge/src/sequences/index.js';
import {
  StoreAuthError,
  StoreNotMigratedError,
  StorePathError,
} from '../../packages/stores/src/index.js';
import {
  lazyTicketServer,
  openCounterStore,
  openLeaseStore,
  openMarkStore,
  openSegmentStore,
  openTicketServers,
} from '../../packages/stores/src/open.js';
import { freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-store-errors-');

const SECRET = 's3cret-Pw-9';
const pgSkip = await serviceSkip('PostgreSQL', SERVERS.postgres.host, SERVERS.postgres.port);
const mySkip = await serviceSkip('MariaDB', SERVERS.mysql.host, SERVERS.mysql.port);
const redisSkip = await serviceSkip('Redis', SERVERS.redis.host, SERVERS.redis.port);

/** The rejection of `p`, which must reject. */
async function failure(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (e) {
    return e as Error & { code?: string };
  }
  assert.fail('expected a rejection');
}

function noRetryClaim(e: Error): void {
  assert.doesNotMatch(e.message, /retries by itself|next probe/);
}

describe('not migrated: IDF_STORE_NOT_MIGRATED names `idforge migrate`', () => {
  test('postgres (3F000: the schema is missing)', { skip: pgSkip }, async () => {
    const url = freshNamespaceUrl('postgres', 'i9nm');
    const store = await openLeaseStore(url);
    try {
      const e = await failure(store.list());
      assert.ok(e instanceof StoreNotMigratedError, String(e));
      assert.equal(e.code, ErrorCode.STORE_NOT_MIGRATED);
      assert.match(e.message, /idforge migrate --store postgres:\/\//);
      noRetryClaim(e);
    } finally {
      await store.close();
    }
  });

  test('postgres mark store (42P01 / 3F000), read and raise each awaited', {
    skip: pgSkip,
  }, async () => {
    const url = freshNamespaceUrl('postgres', 'i9mk');
    const store = await openMarkStore(url, { autoMigrate: false });
    try {
      const read = await failure(store.read('t'));
      assert.ok(read instanceof StoreNotMigratedError, String(read));
      const raise = await failure(store.raise('t', 5n));
      assert.ok(raise instanceof StoreNotMigratedError, String(raise));
    } finally {
      await store.close();
    }
  });

  test('mysql (ER_NO_SUCH_TABLE 1146)', { skip: mySkip }, async () => {
    const url = freshNamespaceUrl('mysql', 'i9nm');
    const store = await openSegmentStore(url);
    try {
      const e = await failure(store.listTags());
      assert.ok(e instanceof StoreNotMigratedError, String(e));
      assert.equal((e as StoreNotMigratedError).backend, 'mysql');
      assert.match(e.message, /idforge migrate/);
    } finally {
      await store.close();
    }
  });

  test('sqlite ("no such table")', async () => {
    const store = await openSegmentStore(`sqlite:${join(dir, 'nm.db')}`, { autoMigrate: false });
    try {
      const e = await failure(store.listTags());
      assert.ok(e instanceof StoreNotMigratedError, String(e));
      assert.match(e.message, /idforge migrate --store sqlite:/);
    } finally {
      await store.close();
    }
  });
});

describe('credentials refused: IDF_STORE_AUTH, never showing the password', () => {
  test('postgres (28000: the role does not exist; the shared server trusts 127.0.0.1)', {
    skip: pgSkip,
  }, async () => {
    const e = await failure(
      openLeaseStore(`postgres://idforge_no_such_role:${SECRET}@127.0.0.1:5432/test`, {
        connectTimeoutMs: 3000,
      }),
    );
    assert.ok(e instanceof StoreAuthError, String(e));
    assert.equal(e.code, ErrorCode.STORE_AUTH);
    assert.match(e.message, /user and password/);
    assert.doesNotMatch(e.message, new RegExp(SECRET));
    noRetryClaim(e);
  });

  test('mysql (1045: access denied)', { skip: mySkip }, async () => {
    const e = await failure(
      openSegmentStore(`mysql://idforge_no_such_user:${SECRET}@127.0.0.1:3306/test`, {
        connectTimeoutMs: 3000,
      }),
    );
    assert.ok(e instanceof StoreAuthError, String(e));
    assert.equal((e as StoreAuthError).backend, 'mysql');
    assert.doesNotMatch(e.message, new RegExp(SECRET));
  });

  test('redis (WRONGPASS: a user the server does not have)', { skip: redisSkip }, async () => {
    const e = await failure(
      openCounterStore(`redis://idforge_no_such_user:${SECRET}@127.0.0.1:6379`, {
        connectTimeoutMs: 3000,
      }),
    );
    assert.ok(e instanceof StoreAuthError, String(e));
    assert.equal((e as StoreAuthError).backend, 'redis');
    assert.doesNotMatch(e.message, new RegExp(SECRET));
  });
});

describe('unusable sqlite:/file: paths: IDF_STORE_PATH with the reason', () => {
  test('a directory that does not exist', async () => {
    const path = join(dir, 'no-such-dir', 'x.db');
    const e = await failure(openLeaseStore(`sqlite:${path}`));
    assert.ok(e instanceof StorePathError, String(e));
    assert.equal((e as StorePathError).reason, 'no-directory');
    assert.equal((e as StorePathError).path, path);
    assert.match(e.message, /directory that does not exist/);
    noRetryClaim(e);
    const f = await failure(openLeaseStore(`file:${path}`));
    assert.ok(f instanceof StorePathError && f.reason === 'no-directory', String(f));
  });

  test('a directory as the path', async () => {
    const sub = join(dir, 'a-dir');
    mkdirSync(sub);
    const e = await failure(openSegmentStore(`sqlite:${sub}`));
    assert.ok(e instanceof StorePathError && e.reason === 'not-a-file', String(e));
  });

  test('a file that is not a database', async () => {
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'these are not the tables you are looking for\n'.repeat(200));
    const e = await failure(openLeaseStore(`sqlite:${path}`));
    assert.ok(e instanceof StorePathError && e.reason === 'not-a-store', String(e));
  });

  test('create: false never creates the file; onCreate tells when a store is new', async () => {
    for (const scheme of ['sqlite', 'file']) {
      const path = join(dir, `typo.${scheme}`);
      const e = await failure(openLeaseStore(`${scheme}:${path}`, { create: false }));
      assert.ok(e instanceof StorePathError && e.reason === 'missing', String(e));
      assert.match(e.message, /idforge migrate --store/);
      assert.equal(existsSync(path), false, `${scheme}: no file was created`);
      const created: string[] = [];
      const onCreate = (p: string) => created.push(p);
      await (await openLeaseStore(`${scheme}:${path}`, { onCreate })).close();
      await (await openLeaseStore(`${scheme}:${path}`, { onCreate, create: false })).close();
      assert.deepEqual(created, [path], `${scheme}: told once, at the creation`);
    }
    const seg = join(dir, 'seg.db');
    const e = await failure(openSegmentStore(`sqlite:${seg}`, { create: false }));
    assert.ok(e instanceof StorePathError && e.reason === 'missing');
    assert.equal(existsSync(seg), false);
  });
});

describe('ticket sequences', () => {
  test('not set up: IDF_UNKNOWN_TAG naming the server and `idforge ticket setup`', {
    skip: pgSkip || mySkip,
  }, async () => {
    const servers = await openTicketServers([SERVERS.postgres.url, SERVERS.mysql.url]);
    try {
      const name = `i9_${process.pid}_never`;
      const one = await failure(servers[0]!.next(name));
      assert.ok(one instanceof UnknownTagError, String(one));
      assert.equal((one as UnknownTagError).ticketServer, servers[0]!.address);
      assert.match(one.message, new RegExp(`idforge ticket setup ${name}`));
      const client = new TicketClient(servers, name);
      const all = await failure(client.next());
      assert.ok(all instanceof UnknownTagError, `every server not set up: ${String(all)}`);
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
  });

  test('all down: names each server by its backend, no probe timing', async () => {
    const servers = ['postgres://u@127.0.0.1:1/db', 'mysql://u@127.0.0.1:1/db'].map((u) =>
      lazyTicketServer(u, { connectTimeoutMs: 2000 }),
    );
    const client = new TicketClient(servers, 'orders');
    const e = await failure(client.next());
    assert.ok(e instanceof StoreUnavailableError, String(e));
    assert.match(e.message, /postgres at postgres:\/\/u@127\.0\.0\.1:1\/db: /);
    assert.match(e.message, /mysql at mysql:\/\/u@127\.0\.0\.1:1\/db: /);
    assert.doesNotMatch(e.message, /mysql\+postgres|postgres\+mysql|next probe|\d+ ms\)/);
    await Promise.all(servers.map((s) => s.close()));
  });
});

test('an unreachable store is still IDF_STORE_UNAVAILABLE, without a retry promise', async () => {
  const e = await failure(
    openLeaseStore('postgres://u@127.0.0.1:1/db', { connectTimeoutMs: 2000 }),
  );
  assert.ok(e instanceof StoreUnavailableError, String(e));
  assert.equal(e.code, ErrorCode.STORE_UNAVAILABLE);
  assert.match(e.message, /running and reachable/);
  noRetryClaim(e);
});
