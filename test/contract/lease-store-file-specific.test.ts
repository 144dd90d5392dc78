// What the file lease store (file:PATH) adds to the LeaseStore contract (lease-store.test.ts),
// on fresh files of the file fixture (test/helpers/backend-fixtures.ts): expiry at the exact
// millisecond of an injected clock, URL forms, namespaces as keys of one file, failures as
// StoreUnavailableError within the timeout, stale locks (dead holder, old lock), durability on
// disk, and 4 processes taking and giving back 2 worker IDs on one file.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import { parseFileUrl } from '../../packages/stores/src/file/connect.js';
import { FileLeaseStore, openFileLeaseStore } from '../../packages/stores/src/file/lease-store.js';
import { StateFile } from '../../packages/stores/src/file/state-file.js';
import { fixtureOf } from '../helpers/backend-fixtures.js';
import { tsEntry } from '../helpers/bundle.js';
import { rejectsUnavailable as rejectsAs } from '../helpers/store-errors.js';
import { expiryBoundary, owner, report, request } from './lease-store.js';

const fx = await fixtureOf('file');
/** The path of a fresh file in the fixture's directory. */
const fresh = () => fx.freshUrl('lease').slice('file:'.length);
/** The fixture's directory (removed after the tests). */
const dir = dirname(fresh());
let n = 0;

async function openFresh(url = `file:${fresh()}`): Promise<LeaseStore> {
  const store = await openFileLeaseStore(url);
  await store.migrate();
  return store;
}

expiryBoundary('file', async (now) => {
  const file = new StateFile(fresh(), { timeoutMs: 1000, staleMs: 30_000 });
  return new FileLeaseStore(file, 'file:test', 'idforge', now);
});

/** Asserts `p` rejects with StoreUnavailableError('file', address, operation). */
const rejectsUnavailable = (p: Promise<unknown>, address: string, operation: string) =>
  rejectsAs(p, { backend: 'file', address, operation });

describe('file lease store', () => {
  test('URL forms: relative, absolute, file:///, namespace from the URL or the option', () => {
    assert.deepEqual(parseFileUrl('file:./m.json', undefined), {
      path: resolve('m.json'),
      namespace: 'idforge',
    });
    assert.equal(parseFileUrl('file:/var/m.json?namespace=a', undefined).namespace, 'a');
    assert.equal(parseFileUrl('file:/var/m.json?namespace=a', 'b').namespace, 'b');
    assert.equal(parseFileUrl('file:///var/a%20b.json', undefined).path, '/var/a b.json');
    assert.equal(parseFileUrl(pathToFileURL('/x/y.json').href, undefined).path, '/x/y.json');
    for (const bad of ['sqlite:x.db', 'file:', 'file:?namespace=a', 'file://elsewhere/x.json']) {
      assert.throws(() => parseFileUrl(bad, undefined), RangeError, bad);
    }
    assert.throws(() => parseFileUrl('file:x.json', 'a/b'), RangeError);
  });

  test('namespaces are separate keys of one file', async () => {
    const path = fresh();
    const a = await openFresh(`file:${path}?namespace=a`);
    const b = await openFresh(`file:${path}?namespace=b`);
    try {
      assert.equal((await a.acquire(request(owner(), 0, 0)))?.workerId, 0);
      assert.equal((await b.acquire(request(owner(), 0, 0)))?.workerId, 0);
      assert.equal((await a.list()).length, 1);
      const doc = JSON.parse(readFileSync(path, 'utf8'));
      assert.deepEqual(Object.keys(doc.namespaces).sort(), ['a', 'b']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a missing directory or a directory: StorePathError; a foreign file: StoreUnavailableError at connect', async () => {
    const missing = join(dir, 'no-such-dir', 'm.json');
    await assert.rejects(openFileLeaseStore(`file:${missing}`), {
      name: 'StorePathError',
      code: 'IDF_STORE_PATH',
      reason: 'no-directory',
      path: missing,
    });
    await assert.rejects(openFileLeaseStore(`file:${dir}`), {
      name: 'StorePathError',
      reason: 'not-a-file',
    });
    const path = fresh();
    writeFileSync(path, '{"not": "a store"}');
    await rejectsUnavailable(openFileLeaseStore(`file:${path}`), `file:${path}`, 'connect');
    assert.equal(readFileSync(path, 'utf8'), '{"not": "a store"}', 'never overwritten');
  });

  test('a file that turns bad fails each call with its operation; a closed store rejects', async () => {
    const path = fresh();
    const s = await openFresh(`file:${path}`);
    writeFileSync(path, 'garbage');
    await rejectsUnavailable(s.acquire(request(owner(), 0, 0)), `file:${path}`, 'acquire');
    await rejectsUnavailable(s.readMark(0), `file:${path}`, 'readMark');
    await s.close();
    await rejectsUnavailable(s.list(), `file:${path}`, 'list');
    await rejectsUnavailable(s.migrate(), `file:${path}`, 'migrate');
  });

  test('a live holder of the lock: StoreUnavailableError within connectTimeoutMs', async () => {
    const path = fresh();
    const url = `file:${path}`;
    const s = await openFileLeaseStore(url, { connectTimeoutMs: 300 });
    writeFileSync(
      `${path}.lock`,
      JSON.stringify({ pid: process.pid, host: hostname(), token: 'x' }),
    );
    const t0 = Date.now();
    await rejectsUnavailable(s.acquire(request(owner(), 0, 0)), url, 'acquire');
    await rejectsUnavailable(openFileLeaseStore(url, { connectTimeoutMs: 300 }), url, 'connect');
    assert.ok(Date.now() - t0 < 2000, `took ${Date.now() - t0} ms`);
    await assert.rejects(s.migrate(), new RegExp(`held by pid ${process.pid}`));
    assert.ok(existsSync(`${path}.lock`), "another holder's live lock is left alone");
    await s.close();
  });

  test('a stale lock is broken: its holder is dead, or it is older than 30 s', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    for (const [pid, ageS] of [
      [dead, 0],
      [process.pid, 60],
    ] as const) {
      const path = fresh();
      writeFileSync(`${path}.lock`, JSON.stringify({ pid, host: hostname(), token: 'x' }));
      const then = Date.now() / 1000 - ageS;
      utimesSync(`${path}.lock`, then, then);
      const s = await openFileLeaseStore(`file:${path}`, { connectTimeoutMs: 1000 });
      assert.equal((await s.acquire(request(owner(), 0, 0)))?.workerId, 0);
      assert.equal(existsSync(`${path}.lock`), false);
      await s.close();
    }
  });

  test('marks are on disk when the call resolves; a leftover PATH.tmp is harmless', async () => {
    const path = fresh();
    writeFileSync(`${path}.tmp`, 'half a document from a crash');
    const s = await openFresh(`file:${path}`);
    const t = Date.now();
    const l = await s.acquire({ ...request(owner(), 5, 5), reserveMarkMs: t + 7000 });
    assert.ok(l);
    const onDisk = () => JSON.parse(readFileSync(path, 'utf8')).namespaces.idforge.marks['5'];
    assert.equal(onDisk(), t + 7000);
    await s.release(l, t + 42);
    assert.equal(onDisk(), t + 42);
    assert.equal(existsSync(`${path}.tmp`), false);
    assert.equal(existsSync(`${path}.lock`), false);
    await s.close();
    const again = await openFresh(`file:${path}`);
    assert.equal(await again.readMark(5), t + 42);
    await again.close();
  });

  test('expiry follows the injected store clock', async () => {
    let now = 1_000_000;
    const file = new StateFile(fresh(), { timeoutMs: 1000, staleMs: 30_000 });
    const s = new FileLeaseStore(file, 'file:test', 'idforge', () => now);
    const l = await s.acquire(request(owner(), 0, 0, 10_000));
    assert.ok(l);
    assert.equal((await s.list())[0]?.expiresAtMs, 1_010_000);
    now += 9_999;
    assert.equal(await s.acquire(request(owner(), 0, 0)), null);
    assert.equal((await s.renew(l, report(10_000, 0))).held, true);
    now += 10_000;
    const o = owner();
    assert.equal((await s.acquire(request(o, 0, 0)))?.workerId, 0);
    assert.deepEqual(await s.renew(l, report(10_000, 0)), {
      held: false,
      claimants: [o.instanceId],
    });
    assert.equal(await s.serverTimeMs(), now);
    await s.close();
  });

  test('an expired claim leaves no entry behind: the file does not grow with the IDs once used', async () => {
    let now = 1_000_000;
    const path = fresh();
    const file = new StateFile(path, { timeoutMs: 1000, staleMs: 30_000 });
    const s = new FileLeaseStore(file, 'file:test', 'idforge', () => now);
    try {
      assert.equal((await s.acquire(request(owner(), 0, 0, 10_000)))?.workerId, 0);
      const claims = () => JSON.parse(readFileSync(path, 'utf8')).namespaces.idforge.claims;
      assert.deepEqual(Object.keys(claims()), ['0']);
      now += 10_000; // worker ID 0's lease and claim expire
      assert.equal((await s.acquire(request(owner(), 1, 1, 10_000)))?.workerId, 1);
      assert.deepEqual(Object.keys(claims()), ['1'], 'only the live claim');
    } finally {
      await s.close();
    }
  });

  test('4 processes x 50 grants of 2 worker IDs on one file: never two holders at once', async (t) => {
    const path = fresh();
    const witness = join(dir, `witness-${n++}`);
    mkdirSync(witness);
    const fixture = fileURLToPath(new URL('./fixtures/file-lease-proc.ts', import.meta.url));
    const config = JSON.stringify({ url: `file:${path}`, witness, grants: 50, min: 0, max: 1 });
    const procs = [0, 1, 2, 3].map(() => {
      const child = spawn(process.execPath, [...tsEntry(fixture), config], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let text = '';
      child.stdout.setEncoding('utf8');
      const ready = new Promise<void>((res, rej) => {
        child.stdout.on('data', (chunk: string) => {
          text += chunk;
          if (text.startsWith('R\n')) res();
        });
        child.on('close', () => rej(new Error(`exited before ready: ${text}`)));
      });
      ready.catch(() => undefined);
      const exited = new Promise<number | null>((res) => child.on('close', res));
      return { child, ready, exited, output: () => text };
    });
    try {
      await Promise.all(procs.map((p) => p.ready));
      for (const p of procs) p.child.stdin.write('go\n');
      const codes = await Promise.all(procs.map((p) => p.exited));
      const outs = procs.map((p) => p.output());
      assert.deepEqual(codes, [0, 0, 0, 0], outs.join('\n'));
      const stats = outs.map((o) => {
        const line = o.split('\n').find((l) => l.startsWith('D '));
        assert.ok(line, o);
        return JSON.parse(line.slice(2)) as {
          grants: Record<string, number>;
          nulls: number;
          overlaps: number;
          startMs: number;
          endMs: number;
        };
      });
      const summary = JSON.stringify(stats);
      t.diagnostic(
        `nulls ${stats.map((p) => p.nulls)}, grants ${stats.map((p) => JSON.stringify(p.grants))}`,
      );
      assert.equal(
        stats.reduce((s, p) => s + p.overlaps, 0),
        0,
        `overlaps: ${summary}`,
      );
      assert.ok(
        Math.max(...stats.map((p) => p.startMs)) < Math.min(...stats.map((p) => p.endMs)),
        `the processes ran together: ${summary}`,
      );
      const s = await openFileLeaseStore(`file:${path}`);
      const marks = ((await s.readMark(0)) ?? 0) + ((await s.readMark(1)) ?? 0);
      assert.equal(marks, 200, `each of the 200 grants raised a mark by 1: ${summary}`);
      assert.deepEqual(await s.list(), []);
      await s.close();
    } finally {
      for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    }
  });
});

// The negative control of the 4-process test above (kept apart from it): the same store code
// with the file's lock taken away (test/faults/fixtures/file-lease-unlocked-proc.ts), every
// process reading the document before any writes it back: the witness must see overlaps.
test('negative control: 4 processes on one file without its lock hold one worker ID together', async (t) => {
  const path = fresh();
  const witness = join(dir, `witness-${n++}`);
  mkdirSync(witness);
  const fixture = fileURLToPath(
    new URL('../faults/fixtures/file-lease-unlocked-proc.ts', import.meta.url),
  );
  const config = JSON.stringify({ path, witness, min: 0, max: 1 });
  const procs = [0, 1, 2, 3].map(() => {
    const child = spawn(process.execPath, [...tsEntry(fixture), config], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const p = { child, text: '', exited: new Promise((res) => child.on('close', res)) };
    child.stdout.setEncoding('utf8').on('data', (s: string) => (p.text += s));
    return p;
  });
  const all = async (what: string, line: RegExp) => {
    const deadline = Date.now() + 30_000;
    while (!procs.every((p) => line.test(p.text))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  try {
    await all('R', /^R$/m);
    for (const p of procs) p.child.stdin.write('go\n');
    await all('W: every process read the document', /^W$/m);
    for (const p of procs) p.child.stdin.write('write\n');
    await all('H: every process holds a lease', /^H /m);
    for (const p of procs) p.child.stdin.end('release\n');
    const codes = await Promise.all(procs.map((p) => p.exited));
    assert.deepEqual(codes, [0, 0, 0, 0], procs.map((p) => p.text).join(' | '));
    const held = procs.map((p) => /^H (\d+) (\d)$/m.exec(p.text)!);
    const overlaps = held.reduce((s, m) => s + Number(m[2]), 0);
    t.diagnostic(`control: ${overlaps} overlaps, worker IDs ${held.map((m) => m[1])}`);
    assert.notEqual(overlaps, 0, 'the overlap check fails without the lock');
    assert.deepEqual(
      held.map((m) => m[1]),
      ['0', '0', '0', '0'],
      'all four read a free worker ID 0',
    );
  } finally {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  }
});
