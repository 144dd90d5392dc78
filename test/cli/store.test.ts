// idforge gen snowflake --store, leases and migrate on the embedded SQLite store, in-process.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { decompose, getLayout } from '../../packages/idforge/src/core/index.js';
import { cli } from '../helpers/cli.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-cli-store-');
const url = (name: string) => `sqlite:${join(dir, `${name}.db`)}`;

test('migrate is idempotent and says what it created', async () => {
  const u = url('migrate');
  for (let i = 0; i < 2; i++) {
    const r = await cli(['migrate', '--store', u]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `migrated ${u}: leases, marks, claims; segments; counter marks\n`);
  }
});

test('gen snowflake --store leases a worker ID, logs it, and releases it at the end', async () => {
  const u = url('gen');
  const r = await cli(['gen', 'snowflake', '--store', u, '--workers', '40-41', '-n', '1000']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /worker ID 40 \(node of layout "default"\) leased from sqlite store/);
  assert.equal(r.lines.length, 1000);
  const ids = r.lines.map(BigInt);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!);
  assert.ok(ids.every((id) => decompose(getLayout('default'), id).fields.node === 40));
  const again = await cli([
    'gen',
    'snowflake',
    '--store',
    u,
    '--workers',
    '40',
    '--format',
    'json',
  ]);
  const [next] = JSON.parse(again.stdout) as string[];
  assert.ok(BigInt(next!) > ids.at(-1)!, 'a rerun continues above the recorded mark');
  const leases = await cli(['leases', '--store', u]);
  assert.equal(leases.stdout, `no live leases in ${u}\n`);
});

test('twitter-2010: --field fixes the datacenter, the store assigns the worker', async () => {
  const r = await cli([
    'gen',
    'snowflake',
    '--store',
    url('twitter'),
    '--layout',
    'twitter-2010',
    '--field',
    'datacenter=3',
    '-n',
    '2',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const f = decompose(getLayout('twitter-2010'), BigInt(r.lines[0]!)).fields;
  assert.deepEqual([f.datacenter, f.worker], [3, 0]);
});

test('usage mistakes: --node with --store, --store on another scheme, a bad range', async () => {
  const u = url('usage');
  const cases = [
    [['gen', 'snowflake', '--store', u, '--node', '1'], /exclude each other/],
    [['gen', 'uuidv7', '--store', u], /--store applies to snowflake only/],
    [['gen', 'snowflake', '--store', u, '--workers', '5-2'], /--workers: expected 5 to/],
    [['leases', 'extra'], /unexpected argument "extra"/],
    [
      ['gen', 'snowflake', '--store', 'nosuch://x'],
      /unknown store scheme "nosuch:"; .*--store needs one of sqlite:, file:, postgres:\/\/, redis:\/\/, etcd:\/\//,
    ],
  ] as const;
  for (const [argv, message] of cases) {
    const r = await cli([...argv]);
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});

test('leases lists live holders, as a table and as JSON', async () => {
  const u = url('leases');
  const { openLeaseStore } = await import('../../packages/stores/src/open.js');
  const store = await openLeaseStore(u);
  const owner = { instanceId: 'inst-1', host: 'h1', pid: 42, startedAtMs: 0 };
  await store.acquire({ min: 7, max: 7, ttlMs: 60_000, owner, clockMs: 0, reserveMarkMs: 1000 });
  const table = await cli(['leases', '--store', u]);
  assert.match(
    table.lines[0]!,
    /^worker\s+instance\s+host\s+pid\s+expires in\s+mark\s+last issued$/,
  );
  assert.match(
    table.lines[1]!,
    /^7\s+inst-1\s+h1\s+42\s+(59|60)\.\d s\s+1970-01-01T00:00:01\.000Z\s+-$/,
  );
  const json = await cli(['leases', '--store', u, '--json']);
  const [rec, ...more] = JSON.parse(json.stdout);
  assert.equal(more.length, 0);
  assert.equal(rec.workerId, 7);
  assert.equal(rec.markMs, 1000);
  await store.close();
});
