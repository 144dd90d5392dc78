// test-runner: heavy (server processes under full load; scripts/run-tests.mjs)
// Issue 32 §13: what a `--processes N` node says for the whole node, on real processes. Its rate
// limit is the node's (N processes do not admit N times rateLimit), and the counters its
// /metrics and /v1/status sum across processes never go down when a process dies (the
// primary carries the dead one's last counts over), which Prometheus would read as a reset.
import assert from 'node:assert/strict';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type ServiceProc, spawnService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const t = tempDir('idforge-processes-limits-');
after(() => t.remove());

/**
 * Starts a node of 2 processes with `args` and waits until both listen (the event-loop guard
 * off, spawnService's default: the sums and the limit are under test, not the guard).
 */
async function node(name: string, args: string[]): Promise<ServiceProc> {
  const proc = spawnService(['--store', `sqlite:${join(t.dir, `${name}.db`)}`, ...args]);
  await proc.ready;
  await waitFor(
    () => proc.logs.some((l) => String(l.msg).startsWith('2 processes listening on')),
    '2 processes listening',
    60_000,
  );
  return proc;
}

/** SIGTERM to the node; a clean stop exits 0 (`clean`: asserted, else only awaited). */
async function stop(proc: ServiceProc, clean: boolean): Promise<void> {
  proc.child.kill('SIGTERM');
  const code = await proc.exited;
  if (clean) assert.equal(code, 0, proc.stderr);
}

/** A GET on a connection of its own (the primary hands each new one to the next process). */
function fresh(url: string): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    }).on('error', reject);
  });
}

/** The node's summed `idforge_ids_issued_total{scheme="snowflake"}`, and /v1/status's. */
async function issued(base: string): Promise<{ metric: number; status: number }> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const metric = Number(/^idforge_ids_issued_total\{scheme="snowflake"\} (\d+)$/m.exec(text)?.[1]);
  const s = (await (await fetch(`${base}/v1/status`)).json()) as { issued: { snowflake?: number } };
  return { metric, status: s.issued.snowflake ?? 0 };
}

describe('idforge serve --processes 2 speaks for the node', () => {
  test('--rate-limit 20: the node admits at most 20 of 100 fresh connections, not 20 per process', async () => {
    const proc = await node('limit', [
      '--processes',
      '2',
      '--rate-limit',
      '20',
      '--rate-window-ms',
      '60000',
    ]);
    let clean = false;
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 100; i++) {
        const r = await fresh(`${proc.url}/v1/ids/snowflake`);
        assert.equal(r.headers['x-ratelimit-limit'], '20');
        statuses.push(r.status);
      }
      const ok = statuses.filter((s) => s === 200).length;
      assert.equal(ok + statuses.filter((s) => s === 429).length, 100, statuses.join(' '));
      assert.ok(ok <= 20, `${ok} of 100 admitted: the limit is the node's`);
      // docs/service.md's tolerance: the tokens the other process holds, at most its last
      // share of what was left (20 / (2 × 2) = 5 at the start of the window).
      assert.ok(ok >= 15, `${ok} of 100 admitted: at most 5 may be held by the other process`);
      clean = true;
    } finally {
      await stop(proc, clean);
    }
  });

  test('a SIGKILLed process: the summed issued counters do not go down', async () => {
    const proc = await node('carry', ['--processes', '2', '--ttl-ms', '3000']);
    let clean = false;
    try {
      for (let i = 0; i < 20; i++) {
        assert.equal((await fresh(`${proc.url}/v1/ids/snowflake?count=1000`)).status, 200);
      }
      const before = await issued(proc.url);
      assert.deepEqual(before, { metric: 20_000, status: 20_000 });
      const status = (await (await fetch(`${proc.url}/v1/status`)).json()) as {
        processes: { index: number; pid: number; issued: { snowflake?: number } }[];
      };
      const victim = status.processes[0]!;
      assert.ok((victim.issued.snowflake ?? 0) > 0, 'process 0 issued some of them');
      process.kill(victim.pid, 'SIGKILL');
      await waitFor(
        () => proc.logs.some((l) => /process 0 \(pid \d+\) exited/.test(String(l.msg))),
        'the primary saw process 0 die',
      );
      const dead = await issued(proc.url);
      assert.ok(dead.metric >= before.metric, `metric ${before.metric} → ${dead.metric}`);
      assert.ok(dead.status >= before.status, `status ${before.status} → ${dead.status}`);
      // Replaced: the new process 0 starts from 0, the sums keep what the dead one had issued.
      await waitFor(
        () => proc.logs.filter((l) => /^listening on/.test(String(l.msg))).length >= 3,
        'process 0 replaced',
        60_000,
      );
      // The new process may still be leasing its worker ID: a 503 (IDF_NOT_READY) serves
      // nothing, and the sums must grow by what was served.
      let served = 0;
      await waitFor(async () => {
        const { status } = await fresh(`${proc.url}/v1/ids/snowflake?count=10`);
        assert.ok(status === 200 || status === 503, `status ${status}`);
        if (status === 200) served += 10;
        return served >= 40;
      }, '40 IDs served after the replacement');
      const later = await issued(proc.url);
      assert.ok(later.metric >= dead.metric + served, `metric ${dead.metric} → ${later.metric}`);
      assert.ok(later.status >= dead.status + served, `status ${dead.status} → ${later.status}`);
      clean = true;
    } finally {
      await stop(proc, clean);
    }
  });
});
