// Running a module's test files in a sandbox: once as they are (the baseline, whose times
// set each file's timeout), then once per mutant, the mutant written into the sandbox's copy
// of its file and the original put back afterwards.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mutant } from './mutants.js';

export type Outcome =
  | { status: 'killed'; by: string; ms: number }
  | { status: 'timeout'; by: string; ms: number }
  | { status: 'survived'; ms: number }
  | { status: 'equivalent'; reason: string; ms: number };

/** Each test file with its baseline duration (ms) and skipped tests, fastest first. */
export type TestTimes = readonly { file: string; ms: number; skipped: number }[];

const TIMEOUT_FACTOR = 3;
const TIMEOUT_MARGIN_MS = 15_000;

const running = new Set<ChildProcess>();

/** Ends the test runs under way (their whole process groups). */
export function stopAll(): void {
  for (const child of running) kill(child);
}

function kill(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

interface Run {
  readonly status: 'pass' | 'fail' | 'timeout';
  readonly ms: number;
  /** Tests the file skipped (a service that did not answer in time skips its tests). */
  readonly skipped: number;
  readonly output: string;
}

const skippedIn = (tap: string) =>
  [...tap.matchAll(/^# skipped (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);

/** One test file, through the project's runner, at nice 19, in its own process group. */
function runFile(sandbox: string, file: string, timeoutMs: number): Promise<Run> {
  const began = Date.now();
  const child = spawn(
    'nice',
    ['-n', '19', process.execPath, 'scripts/run-tests.mjs', 'test', '--only', file, '--verbose'],
    { cwd: sandbox, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(child);
  let output = '';
  let skipped = 0;
  let line = '';
  const keep = (chunk: Buffer) => {
    const text = line + chunk.toString();
    const end = text.lastIndexOf('\n') + 1;
    skipped += skippedIn(text.slice(0, end));
    line = text.slice(end);
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return new Promise((resolve) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      kill(child);
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      running.delete(child);
      kill(child); // what the file left behind (servers it started) goes with it
      const status = timedOut ? 'timeout' : code === 0 ? 'pass' : 'fail';
      resolve({ status, ms: Date.now() - began, skipped: skipped + skippedIn(line), output });
    });
  });
}

/** Runs every file unmutated; throws if one fails twice (a module that cannot be measured). */
export async function baseline(sandbox: string, files: readonly string[]): Promise<TestTimes> {
  const times: { file: string; ms: number; skipped: number }[] = [];
  for (const file of files) {
    let run = await runFile(sandbox, file, 600_000);
    if (run.status !== 'pass') run = await runFile(sandbox, file, 600_000);
    if (run.status !== 'pass') {
      throw new Error(`baseline: ${file} ${run.status} without a mutant:\n${run.output}`);
    }
    times.push({ file, ms: run.ms, skipped: run.skipped });
  }
  return times.sort((a, b) => a.ms - b.ms);
}

/** Runs `times`' files against `mutant` until one fails; restores the file in any case. */
export async function runMutant(
  sandbox: string,
  mutant: Mutant,
  times: TestTimes,
): Promise<Outcome> {
  const path = join(sandbox, mutant.file);
  const original = readFileSync(path, 'utf8');
  const began = Date.now();
  writeFileSync(
    path,
    original.slice(0, mutant.start) + mutant.replacement + original.slice(mutant.end),
  );
  try {
    for (const { file, ms, skipped } of times) {
      const timeout = ms * TIMEOUT_FACTOR + TIMEOUT_MARGIN_MS;
      let run = await runFile(sandbox, file, timeout);
      // More skips than the baseline's: a service's reachability check timed out under load,
      // and a skipped test proves nothing; run the file again (twice at most).
      for (let again = 0; again < 2 && run.status === 'pass' && run.skipped > skipped; again++) {
        run = await runFile(sandbox, file, timeout);
      }
      if (run.status === 'fail') return { status: 'killed', by: file, ms: Date.now() - began };
      if (run.status === 'timeout') return { status: 'timeout', by: file, ms: Date.now() - began };
    }
    return { status: 'survived', ms: Date.now() - began };
  } finally {
    writeFileSync(path, original);
  }
}
