#!/usr/bin/env node
// Runs the test suites with Node's built-in runner over the TypeScript sources (via tsx).
// Usage: node scripts/run-tests.mjs [dir...] [--slow] [--only PATTERN]
//   *.slow.test.ts files run only with --slow (npm run test:slow).
// Warnings and unhandled rejections fail the run.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

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

const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--throw-deprecation', '--unhandled-rejections=strict', '--test', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_OPTIONS: '--no-warnings=ExperimentalWarning' } },
);
process.exit(result.status ?? 1);
