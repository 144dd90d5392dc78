// Issue 9, §9: read-only commands never create a store file, creating a lease store says so,
// and store errors in the one-shot CLI name their cause and fix without promising a retry.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { makeReadOnly, readOnlySkip } from '../helpers/read-only.js';
import { serviceSkip } from '../helpers/services.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-cli-store-errors-');

test('leases and seq show on a missing sqlite: file fail with IDF_STORE_PATH and create nothing', async () => {
  for (const argv of [['leases'], ['seq', 'show']]) {
    const path = join(dir, `typo-${argv.join('-')}.db`);
    const r = await cli([...argv, '--store', `sqlite:${path}`]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /IDF_STORE_PATH/);
    assert.match(r.stderr, new RegExp(`${path.replaceAll('.', '\\.')} does not exist`));
    assert.match(r.stderr, /idforge migrate --store sqlite:/);
    assert.equal(existsSync(path), false, `${argv.join(' ')} created ${path}`);
  }
  const file = join(dir, 'typo.json');
  const r = await cli(['leases', '--store', `file:${file}`]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /IDF_STORE_PATH/);
  assert.equal(existsSync(file), false);
});

test('gen --store says on stderr when it created a new lease store, once', async () => {
  const path = join(dir, 'fleet.db');
  const first = await cli(['gen', 'snowflake', '--store', `sqlite:${path}`, '-n', '1']);
  assert.equal(first.code, 0, first.stderr);
  assert.match(
    first.stderr,
    new RegExp(`created a new lease store at ${path.replaceAll('.', '\\.')}`),
  );
  const again = await cli(['gen', 'snowflake', '--store', `sqlite:${path}`, '-n', '1']);
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /created a new lease store/);
  const leases = await cli(['leases', '--store', `sqlite:${path}`]);
  assert.equal(leases.code, 0, leases.stderr);
});

test('a store error in the CLI names its cause and no retry the CLI does not do', async () => {
  const r = await cli(['migrate', '--store', `sqlite:${join(dir, 'no-dir', 'x.db')}`]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /IDF_STORE_PATH/);
  assert.match(r.stderr, /directory that does not exist/);
  assert.doesNotMatch(r.stderr, /retries by itself|idforge migrate` has been run/);
  const down = await cli(['leases', '--store', 'postgres://u@127.0.0.1:1/db']);
  assert.equal(down.code, 1, down.stderr);
  assert.match(down.stderr, /IDF_STORE_UNAVAILABLE/);
  assert.doesNotMatch(down.stderr, /retries by itself/);
});

test('ticket next with every server down names the backends, not probe timing', async () => {
  const r = await cli([
    'ticket',
    'next',
    'orders',
    '--servers',
    'postgres://u@127.0.0.1:1/db,mysql://u@127.0.0.1:1/db',
  ]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /postgres at postgres:\/\/u@127\.0\.0\.1:1\/db/);
  assert.match(r.stderr, /mysql at mysql:\/\/u@127\.0\.0\.1:1\/db/);
  assert.doesNotMatch(r.stderr, /mysql\+postgres|next probe/);
});

// Issue 33, item 4: store errors name their real cause and a fix the user can run with what
// they installed. A missing PostgreSQL database and a read-only SQLite file said "Check that
// the server is running and reachable"; "not migrated" named only `idforge migrate`, which
// needs @idforge/server, not migrateStore() of @idforge/stores. The read-only file is real
// (test/helpers/read-only.ts: chattr +i as root, who ignores permission bits).
test('a PostgreSQL database that does not exist: named, with CREATE DATABASE', {
  skip: await serviceSkip('PostgreSQL', SERVERS.postgres.host, SERVERS.postgres.port),
}, async () => {
  const url = `postgres://postgres@${SERVERS.postgres.host}:${SERVERS.postgres.port}/idforge_i33_nodb`;
  const r = await cli(['leases', '--store', url]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(
    r.stderr,
    /has no database "idforge_i33_nodb".*CREATE DATABASE idforge_i33_nodb.*\[IDF_STORE_UNAVAILABLE\]/,
  );
  assert.doesNotMatch(r.stderr, /server is running/);
});

test('not migrated: the fix names migrateStore() of @idforge/stores beside idforge migrate', {
  skip: await serviceSkip('PostgreSQL', SERVERS.postgres.host, SERVERS.postgres.port),
}, async () => {
  const url = freshNamespaceUrl('postgres', 'i33nm');
  const r = await cli(['leases', '--store', url]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /\[IDF_STORE_NOT_MIGRATED\]/);
  assert.match(r.stderr, /idforge migrate --store .*\(@idforge\/server\)/);
  assert.match(r.stderr, /`await migrateStore\('postgres:\/\/.*'\)` from @idforge\/stores/);
});

test('a read-only SQLite file: gen names the permission, not the server; leases still reads it', {
  skip: await readOnlySkip(),
}, async () => {
  const path = join(dir, 'read-only.db');
  const made = await cli(['migrate', '--store', `sqlite:${path}`]);
  assert.equal(made.code, 0, made.stderr);
  const undo = makeReadOnly(path);
  try {
    const gen = await cli(['gen', 'snowflake', '--store', `sqlite:${path}`]);
    assert.equal(gen.code, 1, gen.stderr);
    assert.match(gen.stderr, /read-only.*write access.*\[IDF_STORE_PATH\]/);
    assert.doesNotMatch(gen.stderr, /server is running/);
    const leases = await cli(['leases', '--store', `sqlite:${path}`]);
    assert.equal(leases.code, 0, leases.stderr);
    assert.match(leases.stdout, /no live leases/);
  } finally {
    undo();
  }
});
