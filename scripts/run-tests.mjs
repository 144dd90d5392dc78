#!/usr/bin/env node
// Runs the test suites with Node's built-in runner over the TypeScript sources (via
// scripts/dev-loader.mjs).
// Usage: node scripts/run-tests.mjs [dir|file...] [--slow] [--only PATTERN] [--concurrency N] [--verbose]
//                                   [--record-durations]
//   *.slow.test.ts files run only with --slow (npm run test:slow); none is no failure.
// Warnings and unhandled rejections fail the run.
//
// Each file runs in its own process, N files at a time (--concurrency N, or
// IDFORGE_TEST_CONCURRENCY; default 4: the fault and cluster suites mostly wait on servers,
// restarts and TTLs; at most IDFORGE_TEST_HEAVY, default 2, of the files marked
// `// test-runner: heavy`, which load server processes fully), the longest first by the last
// run's durations (kept in
// node_modules/.cache/idforge/; a fresh clone goes by test/durations.json, which
// --record-durations rewrites from a whole run). A file that passes prints one line; a
// failing one prints its whole TAP output (--verbose: every file's). The end gives the totals
// and the ten slowest files. A file still running after IDFORGE_TEST_FILE_TIMEOUT_MS (15 min) is killed and fails.
//
// What the project can start itself, it starts: when no etcd answers on 127.0.0.1:2379 (or
// IDFORGE_ETCD_PORT), scripts/services/etcd.sh installs Debian's etcd-server if needed and
// starts one, so `npm test` runs the etcd suites too. If that fails, the etcd suites skip with
// their one-line reason, or fail under IDFORGE_REQUIRE_SERVICES=1. IDFORGE_NO_AUTOSTART=1
// turns this off.
//
// Likewise Debian's Chromium, for the browser tests (files importing test/helpers/browser.ts):
// when one is selected and /usr/bin/chromium (or IDFORGE_CHROMIUM) is missing,
// scripts/services/chromium.sh installs it; if that fails, those tests skip with their reason,
// or fail under IDFORGE_REQUIRE_SERVICES=1.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const DEFAULT_CONCURRENCY = 4;

const args = process.argv.slice(2);
const slow = args.includes('--slow');
const onlyIdx = args.indexOf('--only');
const only = onlyIdx >= 0 ? args[onlyIdx + 1] : undefined;
const valued = new Set(['--only', '--concurrency']);
const dirs = args.filter((a, i) => !a.startsWith('--') && !valued.has(args[i - 1]));

/** The test files under `dir` (or `dir` itself, a test file named on the command line). */
function collect(dir, out) {
  if (!statSync(dir).isDirectory()) {
    if (dir.endsWith('.test.ts')) out.push(dir);
    return out;
  }
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const files = dirs
  .flatMap((d) => collect(d, []))
  .filter((f) => (slow ? f.endsWith('.slow.test.ts') : !f.endsWith('.slow.test.ts')))
  .filter((f) => only === undefined || f.includes(only));

if (files.length === 0 && slow) {
  // Nothing is slow enough to be kept from every change today: nothing to run is no failure.
  console.error('run-tests: no *.slow.test.ts files; nothing slow to run');
  process.exit(0);
}
if (files.length === 0) {
  console.error(`run-tests: no test files matched${only ? ` --only ${only}` : ''}`);
  process.exit(1);
}

/** Resolves whether a TCP connection to 127.0.0.1:port opens within a second. */
function answers(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

async function ensureEtcd() {
  if (process.env.IDFORGE_NO_AUTOSTART === '1') return;
  const port = Number(process.env.IDFORGE_ETCD_PORT || 2379);
  if (await answers(port)) return;
  const script = join(dirname(fileURLToPath(import.meta.url)), 'services', 'etcd.sh');
  console.error(`run-tests: no etcd on 127.0.0.1:${port}; starting one (${script})`);
  const started = spawnSync('bash', [script, 'start', '--port', String(port)], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (started.status !== 0) {
    console.error('run-tests: etcd could not be started; the etcd suites will say so');
  }
}

function ensureChromium() {
  if (process.env.IDFORGE_NO_AUTOSTART === '1') return;
  if (existsSync(process.env.IDFORGE_CHROMIUM || '/usr/bin/chromium')) return;
  if (!files.some((f) => readFileSync(f, 'utf8').includes('helpers/browser.js'))) return;
  const script = join(dirname(fileURLToPath(import.meta.url)), 'services', 'chromium.sh');
  console.error(`run-tests: no Chromium for the browser tests; installing it (${script})`);
  const installed = spawnSync('bash', [script], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (installed.status !== 0) {
    console.error('run-tests: Chromium could not be installed; the browser tests will say so');
  }
}

await ensureEtcd();
ensureChromium();

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const loader = join(root, 'scripts', 'dev-loader.mjs');
const cacheFile = join(root, 'node_modules', '.cache', 'idforge', 'test-durations.json');

const recordedFile = join(root, 'test', 'durations.json');

/** A JSON object of durations by file, or {} where there is none. */
function readDurations(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}

// How long each file took: this checkout's last run (node_modules/.cache) first, else the run
// recorded in test/durations.json (seconds; a fresh clone, CI), else a guess: the folders
// whose files wait on servers, restarts and TTLs first, within a folder the bigger file first.
const FOLDER_WEIGHT = { faults: 6, service: 4, package: 4, sql: 3, client: 3, sequences: 3 };

function expectedMs(file, last, recorded) {
  const key = relative(root, file);
  if (typeof last[key] === 'number') return last[key];
  if (typeof recorded[key] === 'number') return recorded[key] * 1000;
  const folder = key.split(/[\\/]/)[1] ?? '';
  return (FOLDER_WEIGHT[folder] ?? 1) * 1000 + statSync(file).size / 100;
}

const concurrencyArg = args.indexOf('--concurrency');
const concurrency = Math.max(
  1,
  Number(
    (concurrencyArg >= 0 ? args[concurrencyArg + 1] : undefined) ??
      process.env.IDFORGE_TEST_CONCURRENCY ??
      DEFAULT_CONCURRENCY,
  ) || DEFAULT_CONCURRENCY,
);
const verbose = args.includes('--verbose') || process.env.IDFORGE_TEST_VERBOSE === '1';
const fileTimeoutMs = Number(process.env.IDFORGE_TEST_FILE_TIMEOUT_MS || 15 * 60_000);

/** The counts a file's TAP summary gives ("# pass 12"); null where it printed none. */
function counts(tap) {
  const out = {};
  for (const key of ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo']) {
    const m = new RegExp(`^# ${key} (\\d+)$`, 'm').exec(tap);
    if (m === null) return null;
    out[key] = Number(m[1]);
  }
  return out;
}

/**
 * The CPU time (user + system) of every process this run started and reaped, their own children
 * included (Linux's /proc, where a test's servers are counted in the test file's process): it
 * says whether the run waited on the machine or on its servers. null where /proc is not.
 */
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command's name: ... utime stime cutime cstime (fields 14-17 of proc(5)).
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/** Runs one file in its own process; resolves with its output, exit status and duration. */
function runFile(file) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        loader,
        '--throw-deprecation',
        '--unhandled-rejections=strict',
        '--test-reporter=tap',
        file,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NODE_OPTIONS: '--no-warnings=ExperimentalWarning' },
        // A process group of its own: a timeout or a stop ends the file's servers with it.
        detached: true,
      },
    );
    running.add(child);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => {
      out += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c) => {
      out += c;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup(child, 'SIGKILL');
    }, fileTimeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      const ms = performance.now() - started;
      const why = timedOut
        ? `timed out after ${fileTimeoutMs} ms (IDFORGE_TEST_FILE_TIMEOUT_MS)`
        : code !== 0
          ? `exited with ${signal ?? code}`
          : null;
      resolve({ file, out, ms, why, counts: counts(out) });
    });
  });
}

const running = new Set();
/** Set on SIGINT or SIGTERM: no file starts after it. */
let stopping = false;

/** Sends `signal` to a file's process group: the test process and every server it started. */
function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

// Stopped (Ctrl-C, or a SIGTERM to this process alone): each running file's whole group gets
// the signal, so its servers stop as they would on a terminal's Ctrl-C; what is still there
// after STOP_GRACE_MS is killed. Without this, the servers of a file stopped mid-run outlived
// it (their test process died before its clean-up ran).
const STOP_GRACE_MS = 5000;
const groupAlive = (child) => {
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    stopping = true;
    const left = [...running];
    for (const child of left) signalGroup(child, signal);
    const stoppedAt = Date.now();
    setInterval(() => {
      const alive = left.filter(groupAlive);
      if (alive.length > 0 && Date.now() - stoppedAt < STOP_GRACE_MS) return;
      for (const child of alive) signalGroup(child, 'SIGKILL');
      process.exit(130);
    }, 100);
  });
}

const last = readDurations(cacheFile);
const recorded = readDurations(recordedFile);
const queue = [...files].sort(
  (a, b) => expectedMs(b, last, recorded) - expectedMs(a, last, recorded),
);
const results = [];
const wallStart = performance.now();
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

// Files that drive several server processes under full load (a `// test-runner: heavy` line
// near their top) use both cores by themselves: at most `maxHeavy` of them run at once, the
// other places going to files that mostly wait. Four of them together starved their nodes'
// lease renewals on a 2-core machine.
const maxHeavy = Math.max(1, Number(process.env.IDFORGE_TEST_HEAVY || 2));
const heavy = new Set(
  files.filter((f) => /^\/\/ test-runner: heavy\b/m.test(readFileSync(f, 'utf8').slice(0, 4000))),
);
let heavyRunning = 0;
/** Settles when a file ends: a worker that found only heavy files left waits for it. */
let ended = resolvers();

function resolvers() {
  let resolve;
  const promise = new Promise((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** The next file this worker may start (longest first), or null when none is left. */
async function nextFile() {
  for (;;) {
    if (queue.length === 0) return null;
    const i = heavyRunning < maxHeavy ? 0 : queue.findIndex((f) => !heavy.has(f));
    if (i >= 0) {
      const file = queue.splice(i, 1)[0];
      if (heavy.has(file)) heavyRunning++; // here, before another worker looks
      return file;
    }
    await ended.promise;
  }
}

async function worker() {
  for (let file = await nextFile(); file !== null; file = await nextFile()) {
    if (stopping) return;
    const r = await runFile(file);
    if (heavy.has(file)) heavyRunning--;
    const { resolve } = ended;
    ended = resolvers();
    resolve();
    results.push(r);
    const failed = r.why !== null || r.counts === null || r.counts.fail > 0;
    const n = r.counts === null ? '' : ` (${r.counts.tests} tests)`;
    const head = `# [${results.length}/${files.length}] ${failed ? 'FAIL' : 'ok'} ${relative(root, file)} ${seconds(r.ms)}${n}`;
    if (failed || verbose) process.stdout.write(`${r.out}${r.out.endsWith('\n') ? '' : '\n'}`);
    if (failed && r.why !== null) process.stdout.write(`# ${relative(root, file)}: ${r.why}\n`);
    process.stdout.write(`${head}\n`);
  }
}

await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
// Stopped: no totals and no durations from files cut short; the signal's handler exits (130)
// once their servers are gone.
if (stopping) await new Promise(() => {});

const total = { tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
for (const r of results) for (const key of Object.keys(total)) total[key] += r.counts?.[key] ?? 0;
const failedFiles = results.filter((r) => r.why !== null || r.counts === null || r.counts.fail > 0);
const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 10);
const wallMs = performance.now() - wallStart;
const cpuMs = childrenCpuMs();
const lines = [
  `# files ${results.length} (${concurrency} at a time), wall ${seconds(wallMs)}` +
    (cpuMs === null
      ? ''
      : `, CPU ${seconds(cpuMs)} (${(cpuMs / wallMs).toFixed(1)} of ${availableParallelism()} cores busy on average)`),
  '# the ten slowest files:',
  ...slowest.map((r) => `#   ${seconds(r.ms).padStart(8)}  ${relative(root, r.file)}`),
  ...Object.entries(total).map(([k, v]) => `# ${k} ${v}`),
  ...failedFiles.map((r) => `# failed: ${relative(root, r.file)}${r.why ? ` (${r.why})` : ''}`),
];
process.stdout.write(`${lines.join('\n')}\n`);

// The next run orders the longest first by these (a whole run only, so a partial run by --only
// does not forget the others).
try {
  mkdirSync(dirname(cacheFile), { recursive: true });
  const merged = { ...last };
  for (const r of results) merged[relative(root, r.file)] = Math.round(r.ms);
  writeFileSync(cacheFile, `${JSON.stringify(merged, null, 1)}\n`);
} catch {
  // A read-only checkout still runs its tests; only the ordering hint is lost.
}
// --record-durations: this run becomes the order of a fresh clone (test/durations.json, whole
// seconds, slowest first), to be committed after a full run on a quiet machine.
if (args.includes('--record-durations')) {
  const sorted = [...results].sort((a, b) => b.ms - a.ms);
  const table = Object.fromEntries(
    sorted.map((r) => [relative(root, r.file), Math.max(1, Math.round(r.ms / 1000))]),
  );
  writeFileSync(recordedFile, `${JSON.stringify(table, null, 2)}\n`);
  process.stdout.write(`# durations recorded in ${relative(root, recordedFile)}\n`);
}
process.exit(failedFiles.length === 0 && total.fail === 0 ? 0 : 1);
