// `npm test` starts what the project can start itself (issue 9 §7): with no etcd answering,
// scripts/run-tests.mjs starts one through scripts/services/etcd.sh before the suites run, so
// the README's test command runs the etcd suites instead of skipping them.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePorts } from '../helpers/server.js';
import { reachable, serviceSkip } from '../helpers/services.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const port = Number(process.env.IDFORGE_ETCD_PORT || 2379);

test('etcd answers on the port the test runner promised', async (t) => {
  const skip = await serviceSkip('etcd', '127.0.0.1', port);
  if (skip) return t.skip(skip);
  assert.ok(await reachable('127.0.0.1', port));
});

test('with no etcd on its port, the test runner starts one', {
  skip: process.env.IDFORGE_AUTOSTART_CHILD === '1',
}, async (t) => {
  const [own, peer] = (await freePorts(2)) as [number, number];
  const stop = () =>
    run('bash', ['scripts/services/etcd.sh', 'stop', '--port', String(own), '--wipe'], {
      cwd: root,
    });
  await stop();
  t.after(stop);
  assert.equal(await reachable('127.0.0.1', own), false);
  const { stdout, stderr } = await run(
    process.execPath,
    ['scripts/run-tests.mjs', 'test', '--only', 'scripts/etcd-autostart'],
    {
      cwd: root,
      env: {
        ...Object.fromEntries(
          // Not a child of this runner: a nested run reports in its own words.
          Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT'),
        ),
        IDFORGE_ETCD_PORT: String(own),
        IDFORGE_ETCD_PEER_PORT: String(peer),
        IDFORGE_AUTOSTART_CHILD: '1',
        IDFORGE_REQUIRE_SERVICES: '1',
      },
      timeout: 120_000,
    },
  );
  assert.match(stderr, new RegExp(`no etcd on 127\\.0\\.0\\.1:${own}; starting one`));
  assert.match(stdout, /# pass 1\b/);
  assert.match(stdout, /# fail 0\b/);
  assert.ok(await reachable('127.0.0.1', own), 'the started etcd still answers');
});
