// Adding a backend is one folder and one registry line (docs/architecture.md): a backend the
// package has never heard of, registered from the test folder (test/helpers/memory-backend.ts),
// is opened by URL, migrated, refused for the roles it does not serve with the message every
// backend gets, and used by `idforge serve` as its lease store, with nothing else changed.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { run } from '../../packages/server/src/cli/index.js';
import {
  backendOf,
  knownSchemes,
  migrateStore,
  openLeaseStore,
  registerBackend,
  roleSchemes,
  storeScheme,
} from '../../packages/stores/src/index.js';
import { cli } from '../helpers/cli.js';
import { memoryBackend, memoryState } from '../helpers/memory-backend.js';

registerBackend(memoryBackend);

const ADMIN = 'test-admin-token-of-the-registered-backend';

test('a registered backend is known, opened by URL and migrated', async () => {
  assert.equal(backendOf('memory'), memoryBackend);
  assert.equal(storeScheme('memory:a'), 'memory');
  assert.ok(knownSchemes().includes('memory'));
  assert.deepEqual(roleSchemes('store').slice(-1), ['memory']);
  assert.ok(!roleSchemes('sequences').includes('memory'));

  assert.deepEqual(await migrateStore('memory:migrated'), ['leases, marks, claims']);
  assert.equal(memoryState('memory:migrated').migrated, true);
  const store = await openLeaseStore('memory:opened');
  try {
    assert.equal(store.backend, 'memory');
    assert.deepEqual(await store.list(), []);
  } finally {
    await store.close();
  }
});

test('registering refuses a taken scheme, a malformed one and a backend that opens nothing', () => {
  assert.throws(() => registerBackend({ ...memoryBackend }), /"memory" is already memory's/);
  assert.throws(
    () => registerBackend({ ...memoryBackend, name: 'pg2', aliases: ['postgresql'] }),
    /"postgresql" is already postgres's/,
  );
  assert.throws(() => registerBackend({ ...memoryBackend, name: 'Bad_Scheme' }), /lower-case/);
  assert.throws(
    () => registerBackend({ ...memoryBackend, name: 'empty', open: {} }),
    /opens nothing/,
  );
  assert.equal(backendOf('empty'), undefined);
});

test('the CLI and the service refuse it where it does not serve, naming where it does', async () => {
  const seq = await cli(['seq', 'next', 'orders', '--store', 'memory:x']);
  assert.equal(seq.code, 2);
  assert.match(
    seq.stderr,
    /memory: holds leases: use it with --store; --sequences needs one of sqlite:, postgres:\/\/, mysql:\/\/, redis:\/\//,
  );
  const serve = await cli(['serve', '--store', 'sqlite::memory:', '--sequences', 'memory:x']);
  assert.equal(serve.code, 2);
  assert.match(serve.stderr, /memory: holds leases: use it with --store/);
  const bench = await cli(['bench', 'db', '--store', 'memory:x', '--rows', '10']);
  assert.equal(bench.code, 2);
  assert.match(
    bench.stderr,
    /expected sqlite:PATH, postgres:\/\/\.\.\., mysql:\/\/\.\.\. or leveldb:DIR, got a memory URL/,
  );
});

test('idforge serve --store memory:NAME leases from it, serves, and releases with the mark at SIGTERM', async () => {
  const url = 'memory:served';
  let stdout = '';
  let signal: ((s: string) => void) | undefined;
  let listening!: (base: string) => void;
  const base = new Promise<string>((resolve) => {
    listening = resolve;
  });
  const exit = run(['serve', '--store', url, '--port', '0', '--host', '127.0.0.1'], {
    stdout: {
      write: (s: string) => {
        stdout += s;
        const m = /"msg":"listening on (http:\/\/[^"]+)"/.exec(s);
        if (m !== null) listening(m[1]!);
      },
    },
    stderr: { write: (s: string) => (stdout += s) },
    stdin: Readable.from([]),
    env: { IDFORGE_ADMIN_TOKEN: ADMIN },
    onSignal: (listener) => {
      signal = listener;
      return () => {
        signal = undefined;
      };
    },
  });
  const served = await Promise.race([
    base,
    exit.then((code) => assert.fail(`serve exited ${code} before listening: ${stdout}`)),
  ]);
  const state = memoryState(url);
  assert.deepEqual(
    [...state.leases.values()].map((h) => h.record.workerId),
    [0],
    'one worker ID leased from the registered backend',
  );
  const admin = { authorization: `Bearer ${ADMIN}` };
  const res = await fetch(`${served}/v1/ids/snowflake?count=3`, { headers: admin });
  assert.equal(res.status, 200);
  const { ids } = (await res.json()) as { ids: string[] };
  assert.equal(new Set(ids).size, 3);
  const leases = (await (await fetch(`${served}/v1/leases`, { headers: admin })).json()) as {
    leases: { workerId: number }[];
  };
  assert.deepEqual(
    leases.leases.map((l) => l.workerId),
    [0],
  );

  assert.ok(signal, 'serve listens for signals');
  signal('SIGTERM');
  assert.equal(await exit, 0, stdout);
  assert.equal(state.leases.size, 0, 'the lease is released');
  assert.ok((state.marks.get(0) ?? 0) > 0, 'the mark is recorded');
});
