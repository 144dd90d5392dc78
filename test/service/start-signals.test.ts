// Issue 19, §2: a signal during start-up was swallowed. `idforge serve & sleep 0.6; kill -INT`
// logged "received SIGINT: shutting down", then "Server listening", and the process ran on;
// later SIGINT and SIGTERM were ignored too, only SIGKILL ended it: startService attached its
// abort listener after listen, and the abort it had missed was never looked at again.
//
// Now a signal at any point of start ends the process cleanly: whatever was leased is
// released, with the mark as it was (nothing was issued), and the process exits 0. Each case is
// a real `idforge serve` process signalled at a point it announces in its log: while it waits
// for a worker ID (the range is held), while it waits out a mark ahead of its clock, and after
// its lease (opening the sequences, building the app, listening).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Lease, LeaseStore } from '../../packages/idforge/src/coord/index.js';
import { openLeaseStore } from '../../packages/stores/src/index.js';
import { type ServiceProc, spawnService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const owner = (instanceId: string) => ({
  instanceId,
  host: 'test',
  pid: process.pid,
  startedAtMs: Date.now(),
});

/** Takes worker ID 1 in `store` with the mark set to `markMs` (or none) and a TTL of `ttlMs`. */
async function hold(store: LeaseStore, ttlMs: number, markMs: number): Promise<Lease> {
  const lease = await store.acquire({
    min: 1,
    max: 1,
    ttlMs,
    owner: owner('issue-19-holder'),
    clockMs: Date.now(),
    reserveMarkMs: markMs,
  });
  assert.ok(lease !== null, 'worker ID 1 is free at the start of the test');
  return lease;
}

/** Starts serve on `db`, sends `signal` once a log line matches `when`, returns the process. */
async function signalAt(
  db: string,
  dir: string,
  when: RegExp,
  signal: NodeJS.Signals,
  extra: string[] = [],
): Promise<{ proc: ServiceProc; code: number | string }> {
  const proc = spawnService(
    ['--store', `sqlite:${db}`, '--workers', '1', '--shutdown-timeout-ms', '3000', ...extra],
    {},
    dir,
  );
  try {
    await waitFor(
      () => proc.logs.some((l) => when.test(String(l.msg))) || proc.child.exitCode !== null,
      `a log line matching ${when}`,
    );
    assert.equal(proc.child.exitCode, null, `still starting when signalled: ${proc.stderr}`);
    proc.child.kill(signal);
    // Bounded: a swallowed signal would leave the process running until the acquire timeout
    // (60 s below) or for ever; the shutdown bound is 3 s.
    const code = await Promise.race([
      proc.exited,
      new Promise<string>((r) =>
        setTimeout(() => r('still running 20 s after the signal'), 20_000).unref(),
      ),
    ]);
    return { proc, code };
  } finally {
    proc.child.kill('SIGKILL');
    await proc.exited;
  }
}

function said(proc: ServiceProc, pattern: RegExp): boolean {
  return proc.logs.some((l) => pattern.test(String(l.msg)));
}

test('SIGINT while waiting for a worker ID: exit 0 at once, the holder untouched', async () => {
  const t = tempDir('idforge-issue19-sig-');
  const db = join(t.dir, 'idforge.db');
  const store = await openLeaseStore(`sqlite:${db}`);
  try {
    const held = await hold(store, 60_000, 0);
    const { proc, code } = await signalAt(db, t.dir, /^lease store /, 'SIGINT', [
      '--acquire-timeout-ms',
      '60000',
    ]);
    assert.equal(code, 0, `exit code (stderr: ${proc.stderr})`);
    assert.ok(said(proc, /start-up interrupted by SIGINT/), 'the log says start was interrupted');
    assert.ok(!said(proc, /^listening on /), 'it never listened');
    const leases = await store.list();
    assert.deepEqual(
      leases.map((l) => l.instanceId),
      [held.instanceId],
      'only the holder has a lease',
    );
  } finally {
    await store.close();
    t.remove();
  }
});

test('SIGTERM during the wait for a mark ahead of the clock: exit 0, lease released, mark kept', async () => {
  const t = tempDir('idforge-issue19-sig-');
  const db = join(t.dir, 'idforge.db');
  const store = await openLeaseStore(`sqlite:${db}`);
  try {
    // A minute ahead, waited out (the tolerance is two): a start slowed by a busy machine still
    // finds the clock behind the mark, and the signal comes during the wait.
    const mark = Date.now() + 60_000;
    await store.release(await hold(store, 1000, mark), mark);
    const { proc, code } = await signalAt(db, t.dir, /behind its high-water mark/, 'SIGTERM', [
      '--mark-tolerance-ms',
      '120000',
    ]);
    assert.equal(code, 0, `exit code (stderr: ${proc.stderr})`);
    assert.ok(said(proc, /start-up interrupted by SIGTERM/), 'the log says start was interrupted');
    assert.deepEqual(await store.list(), [], 'the lease is released');
    assert.equal(await store.readMark(1), mark, 'the mark is as it was: nothing was issued');
  } finally {
    await store.close();
    t.remove();
  }
});

test('SIGINT after the lease, before or while listening: exit 0, lease released', async () => {
  const t = tempDir('idforge-issue19-sig-');
  const db = join(t.dir, 'idforge.db');
  try {
    const { proc, code } = await signalAt(db, t.dir, /worker ID \d+ leased; ready/, 'SIGINT');
    assert.equal(code, 0, `exit code (stderr: ${proc.stderr})`);
    assert.ok(
      said(proc, /start-up interrupted by SIGINT|stopped: /),
      'the log says how it stopped',
    );
    const store = await openLeaseStore(`sqlite:${db}`);
    try {
      assert.deepEqual(await store.list(), [], 'the lease is released');
    } finally {
      await store.close();
    }
  } finally {
    t.remove();
  }
});
