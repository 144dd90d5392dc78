// test-runner: heavy (server processes under full load; scripts/run-tests.mjs)
// Issue 24 §1: `idforge serve --processes N` on real processes. 2 and 4 processes on one port:
// 200,000 IDs through it, 0 duplicates, one worker ID per process; /v1/status, /readyz and
// /metrics speak for every process; a SIGKILLed process is replaced (a fresh lease) while the
// others serve; SIGTERM of the node stops every process cleanly, exit 0, no lease of theirs
// left in the store. A port in use is refused before any process starts.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { decompose, getLayout } from '../../packages/idforge/src/core/index.js';
import { openLeaseStore } from '../../packages/stores/src/index.js';
import { type ServiceProc, spawnService } from '../helpers/service.js';
import { silentServer } from '../helpers/tcp.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const t = tempDir('idforge-processes-');
after(() => t.remove());
const layout = getLayout('default');

interface Status {
  processes: { index: number; pid: number; answered: boolean; nodes: { workerId: number }[] }[];
}

/** Starts a node of `n` processes and waits until all of them listen. */
async function node(n: number, db: string): Promise<ServiceProc & { base: string }> {
  const proc = spawnService([
    '--store',
    `sqlite:${db}`,
    '--processes',
    String(n),
    '--ttl-ms',
    '3000',
  ]);
  await proc.ready;
  await waitFor(
    () => proc.logs.some((l) => String(l.msg).startsWith(`${n} processes listening on`)),
    `${n} processes listening`,
    60_000,
  );
  return Object.assign(proc, { base: proc.url });
}

const get = async <T>(url: string) => (await (await fetch(url)).json()) as T;

/** `total` IDs taken by 8 concurrent callers, 1,000 a request. */
async function take(base: string, total: number): Promise<bigint[]> {
  const out: bigint[] = [];
  let left = total / 1000;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (left-- > 0) {
        const r = await get<{ ids: string[] }>(`${base}/v1/ids/snowflake?count=1000`);
        for (const id of r.ids) out.push(BigInt(id));
      }
    }),
  );
  return out;
}

const workers = (ids: bigint[]) => new Set(ids.map((id) => decompose(layout, id).fields.node));

async function liveLeases(db: string) {
  const store = await openLeaseStore(`sqlite:${db}`);
  try {
    return await store.list();
  } finally {
    await store.close();
  }
}

describe('idforge serve --processes', () => {
  test('2 processes: 200,000 IDs, 0 duplicates; a SIGKILLed process is replaced; SIGTERM stops all', async () => {
    const db = join(t.dir, 'two.db');
    const proc = await node(2, db);
    const first = await take(proc.base, 200_000);
    assert.equal(new Set(first).size, 200_000, 'no duplicate');
    assert.equal(workers(first).size, 2, 'both processes served, each its own worker ID');

    const status = await get<Status>(`${proc.base}/v1/status`);
    assert.deepEqual(
      status.processes.map((p) => p.index),
      [0, 1],
    );
    const killed = status.processes[0]!;
    process.kill(killed.pid, 'SIGKILL');
    await waitFor(
      () => proc.logs.some((l) => /process 0 \(pid \d+\) exited \(SIGKILL\)/.test(String(l.msg))),
      'the primary saw it die',
    );
    // Replaced: /readyz is ready again with a new pid for process 0, answering for both.
    type Ready = { ready: boolean; processes: { index: number; pid: number; ready: boolean }[] };
    let last: Ready | undefined;
    const ready = await waitFor(
      async () => {
        const r = await fetch(`${proc.base}/readyz`);
        last = (await r.json()) as Ready;
        return r.status === 200 && last.processes[0]!.pid !== killed.pid && last;
      },
      () => `process 0 to be replaced: ${JSON.stringify(last)}`,
      60_000,
    );
    assert.ok(ready.processes.every((p) => p.ready));
    const second = await take(proc.base, 20_000);
    const all = [...first, ...second];
    assert.equal(new Set(all).size, all.length, 'no duplicate across the restart');
    const metrics = await (await fetch(`${proc.base}/metrics`)).text();
    assert.match(metrics, /^idforge_lease_seconds_to_expiry\{layout="default",process="1"\} /m);
    const issued = Number(
      /^idforge_ids_issued_total\{scheme="snowflake"\} (\d+)$/m.exec(metrics)?.[1],
    );
    assert.ok(issued >= 20_000, `issued counted across processes: ${issued}`);

    const killedWorker = killed.nodes[0]!.workerId;
    proc.child.kill('SIGTERM');
    assert.equal(await proc.exited, 0, proc.stderr);
    const left = await liveLeases(db);
    assert.ok(
      left.every((l) => l.workerId === killedWorker),
      `only the SIGKILLed process's lease may be left (until its TTL): ${JSON.stringify(left)}`,
    );
  });

  test('4 processes: 200,000 IDs through one port, 4 worker IDs, exit 0 with no lease left', async () => {
    const db = join(t.dir, 'four.db');
    const proc = await node(4, db);
    const ids = await take(proc.base, 200_000);
    assert.equal(new Set(ids).size, 200_000);
    assert.equal(workers(ids).size, 4);
    const status = await get<Status>(`${proc.base}/v1/status`);
    assert.equal(new Set(status.processes.map((p) => p.nodes[0]!.workerId)).size, 4);
    proc.child.kill('SIGTERM');
    assert.equal(await proc.exited, 0, proc.stderr);
    assert.deepEqual(await liveLeases(db), []);
  });

  test('SIGTERM while the processes start: every one stops, exit 0, no lease left', async () => {
    const db = join(t.dir, 'early.db');
    const proc = spawnService(['--store', `sqlite:${db}`, '--processes', '2']);
    await waitFor(
      () => proc.logs.some((l) => /^starting 2 processes/.test(String(l.msg))),
      'the primary forking',
    );
    proc.child.kill('SIGTERM');
    assert.equal(await proc.exited, 0, `${proc.stderr}\n${JSON.stringify(proc.logs)}`);
    if (existsSync(db)) assert.deepEqual(await liveLeases(db), []);
  });

  test('a port in use: refused before any process starts, no store created', async () => {
    const blocker = await silentServer();
    const { port } = blocker;
    const db = join(t.dir, 'busy.db');
    const proc = spawnService([
      '--store',
      `sqlite:${db}`,
      '--processes',
      '2',
      '--port',
      String(port),
    ]);
    assert.equal(await proc.exited, 1);
    assert.match(proc.stderr, /is in use/);
    assert.ok(!proc.logs.some((l) => /starting 2 processes/.test(String(l.msg))));
    await blocker.close();
    assert.equal(existsSync(db), false);
  });
});
