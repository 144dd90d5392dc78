// Several `idforge gen snowflake --store URL` processes started at once print disjoint IDs
// (the CLI as users run it: separate OS processes sharing the embedded SQLite store).
//
// The worker IDs are distinct for certain, not by luck of timing: standard output is made
// blocking (fixtures/blocking-stdout.mjs) and the test does not read it until each process has
// printed its worker ID, so no process can finish (its first write blocks on the full pipe) and
// give its ID back before all six hold one at once. The TTL is long enough that no lease of a
// blocked process expires meanwhile.
// The negative control runs the same six processes with one fixed node ID and no lease, under
// a clock frozen at the same instant in every process: they print the same IDs.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { decompose, getLayout } from '../../packages/idforge/src/core/index.js';
import { BINS, loader } from '../helpers/bins.js';
import { suiteTempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const frozen = fileURLToPath(new URL('./fixtures/frozen-clock.mjs', import.meta.url));
const blocking = fileURLToPath(new URL('./fixtures/blocking-stdout.mjs', import.meta.url));
const dir = suiteTempDir('idforge-cli-fleet-');

interface CliProc {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  /** Starts reading standard output (until then the process blocks once the pipe is full). */
  drain(): void;
  readonly exited: Promise<number | string>;
}

function startCli(args: string[], preload: string[] = [], env: NodeJS.ProcessEnv = {}): CliProc {
  const child = spawn(process.execPath, ['--import', loader, ...preload, BINS.idforge, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const proc: CliProc = {
    child,
    stdout: '',
    stderr: '',
    drain() {
      child.stdout!.setEncoding('utf8').on('data', (s: string) => (proc.stdout += s));
    },
    exited: new Promise((resolve) =>
      child.on('close', (code, signal) => resolve(code ?? signal ?? -1)),
    ),
  };
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (proc.stderr += s));
  return proc;
}

const workerLine = /worker ID (\d+) /;

test('6 CLI processes at once on one store: distinct worker IDs, disjoint IDs', async () => {
  const store = `sqlite:${join(dir, 'ids.db')}`;
  const procs = Array.from({ length: 6 }, () =>
    startCli(
      [
        'gen',
        'snowflake',
        '--store',
        store,
        '--workers',
        '0-5',
        '--wait',
        '10000',
        '--ttl',
        '120000',
        '-n',
        '50000',
      ],
      ['--import', blocking],
    ),
  );
  try {
    // 50,000 IDs are ~1 MB: far more than a pipe holds, so none gets past its first write.
    await waitFor(
      () => procs.every((p) => workerLine.test(p.stderr) || p.child.exitCode !== null),
      'every process to print its worker ID',
      30_000,
    );
    const held = procs.map((p) => Number(workerLine.exec(p.stderr)?.[1] ?? -1));
    assert.deepEqual(
      [...held].sort((a, b) => a - b),
      [0, 1, 2, 3, 4, 5],
      `six processes holding at once: ${procs.map((p) => `[${p.child.exitCode}] ${p.stderr}`).join(' | ')}`,
    );
    for (const p of procs) p.drain();
    const codes = await Promise.all(procs.map((p) => p.exited));
    assert.deepEqual(codes, Array(6).fill(0), procs.map((p) => p.stderr).join(' | '));
    const all = new Set<string>();
    for (const [i, p] of procs.entries()) {
      const lines = p.stdout.trim().split('\n');
      assert.equal(lines.length, 50_000);
      for (const l of lines) all.add(l);
      assert.ok(
        lines.every((l) => decompose(getLayout('default'), BigInt(l)).fields.node === held[i]),
        `process ${i}: every ID carries worker ID ${held[i]}`,
      );
    }
    assert.equal(all.size, 300_000, 'no ID printed twice');
  } finally {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  }
});

test('negative control: 6 CLI processes with one fixed node ID and no lease print the same IDs', async (t) => {
  const env = { IDFORGE_TEST_FROZEN_MS: String(Date.now()) };
  const procs = Array.from({ length: 6 }, () =>
    startCli(['gen', 'snowflake', '--node', '0', '-n', '4000'], ['--import', frozen], env),
  );
  for (const p of procs) p.drain();
  const codes = await Promise.all(procs.map((p) => p.exited));
  assert.deepEqual(codes, Array(6).fill(0), procs.map((p) => p.stderr).join(' | '));
  // The check of the test above, on this output: it must fail.
  const all = new Set<string>();
  let printed = 0;
  for (const p of procs) {
    const lines = p.stdout.trim().split('\n');
    printed += lines.length;
    for (const l of lines) all.add(l);
  }
  t.diagnostic(`control: ${printed - all.size} of ${printed} IDs printed twice`);
  assert.equal(printed, 24_000);
  assert.notEqual(all.size, printed, 'the duplicate check fails without the lease');
  assert.equal(all.size, 4000, 'all six printed the same 4,000 IDs');
});
