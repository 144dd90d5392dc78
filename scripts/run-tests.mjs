#!/usr/bin/env node
// Runs the test suites with Node's built-in runner over the TypeScript sources (via tsx).
// Usage: node scripts/run-tests.mjs [dir...] [--slow] [--only PATTERN]
//   *.slow.test.ts files run only with --slow (npm run test:slow).
// Warnings and unhandled rejections fail the run.
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
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const slow = args.includes('--slow');
const onlyIdx = args.indexOf('--only');
const only = onlyIdx >= 0 ? args[onlyIdx + 1] : undefined;
const dirs = args.filter((a, i) => !a.startsWith('--') && (onlyIdx < 0 || i !== onlyIdx + 1));

function collect(dir, out) {
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

if (files.length === 0) {
  console.error('run-tests: no test files matched');
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
const result = spawnSync(
  process.execPath,
  [
    '--import',
    join(dirname(fileURLToPath(import.meta.url)), 'dev-loader.mjs'),
    '--throw-deprecation',
    '--unhandled-rejections=strict',
    '--test',
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_OPTIONS: '--no-warnings=ExperimentalWarning' } },
);
process.exit(result.status ?? 1);
