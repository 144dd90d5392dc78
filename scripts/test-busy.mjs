#!/usr/bin/env node
// Runs the test suites (scripts/run-tests.mjs, same arguments) with one core kept busy by a
// spinning process pinned to it (taskset, where there is one): the suite must pass on a
// machine that is doing something else. The hog stops when the run ends, whatever its end.
//   npm run test:busy [-- dir... --only PATTERN --concurrency N]
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pinned = spawnSync('taskset', ['--version']).status === 0;
const spin = [process.execPath, '-e', 'for (;;) {}'];
const hog = spawn(pinned ? 'taskset' : spin[0], pinned ? ['-c', '0', ...spin] : spin.slice(1), {
  stdio: 'ignore',
});
console.error(`test-busy: one core kept busy (pid ${hog.pid}${pinned ? ', pinned to CPU 0' : ''})`);
const stopHog = () => hog.kill('SIGKILL');
process.on('exit', stopHog);

const runner = join(dirname(fileURLToPath(import.meta.url)), 'run-tests.mjs');
const args = process.argv.slice(2);
const tests = spawn(process.execPath, [runner, ...(args.length > 0 ? args : ['test'])], {
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => tests.kill(signal));
tests.on('exit', (code, signal) => {
  stopHog();
  process.exit(code ?? (signal === null ? 1 : 128));
});
