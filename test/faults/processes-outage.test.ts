// Issue 24 §1: a store outage under `idforge serve --processes 2`. The project's own Redis
// (a port from the OS, never the shared one) is killed while a load takes IDs through the node's one
// port: each process stops issuing before its lease could expire in the store (no ID of a tick
// at or past the outage's start + ttlMs), /readyz names both processes, and once Redis is back
// both lease again and serve; 0 duplicates over the whole run; SIGTERM exits 0.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decompose, getLayout } from '../../packages/idforge/src/core/index.js';
import { freePort, ownServer } from '../helpers/server.js';
import { type ServiceProc, spawnService } from '../helpers/service.js';
import { serviceSkip } from '../helpers/services.js';
import { waitFor } from '../helpers/wait.js';

const skip = await serviceSkip('redis', '127.0.0.1', 6379);
const PORT = await freePort();
const TTL_MS = 3000;
const server = ownServer('redis', PORT);
const layout = getLayout('default');

interface Answer {
  atMs: number;
  status: number;
  code: string | null;
  ids: bigint[];
}

describe('--processes 2 through a store outage (own Redis)', { skip }, () => {
  before(() => server.start());
  after(() => server.stop(true, true));

  test('every process fences before its lease could expire, and leases again after', async () => {
    const proc = spawnService([
      ...['--store', `redis://127.0.0.1:${PORT}`, '--processes', '2'],
      ...['--ttl-ms', String(TTL_MS), '--acquire-timeout-ms', '60000'],
    ]);
    await proc.ready;
    await waitFor(
      () => proc.logs.some((l) => /^2 processes listening/.test(String(l.msg))),
      'both processes',
      60_000,
    );
    const answers: Answer[] = [];
    let stop = false;
    const loops = Array.from({ length: 4 }, async () => {
      while (!stop) {
        const r = await fetch(`${proc.url}/v1/ids/snowflake?count=100`, {
          signal: AbortSignal.timeout(5000),
        }).catch(() => null);
        const body = (r === null ? null : await r.json()) as {
          ids?: string[];
          error?: { code: string };
        } | null;
        answers.push({
          atMs: Date.now(),
          status: r?.status ?? 0,
          code: body?.error?.code ?? null,
          ids: (body?.ids ?? []).map((x) => BigInt(x)),
        });
        // A caller refused backs off a little, as a client does (and the record stays small).
        if (r?.status !== 200) await new Promise((res) => setTimeout(res, 20));
      }
    });
    try {
      await outageRun(proc, answers);
    } finally {
      stop = true;
      await Promise.all(loops);
      proc.child.kill('SIGTERM');
    }
    assert.equal(await proc.exited, 0, proc.stderr);
  });
});

async function outageRun(proc: ServiceProc, answers: Answer[]): Promise<void> {
  const workersSeen = () =>
    new Set(answers.flatMap((a) => a.ids.map((id) => decompose(layout, id).fields.node)));
  await waitFor(() => workersSeen().size === 2, 'IDs from both processes');

  const downAt = Date.now();
  await server.stop(true); // SIGKILL: the store is gone at once
  await waitFor(
    () => answers.some((a) => a.atMs > downAt && a.status === 503),
    'refusals once the leases could no longer be renewed',
    TTL_MS + 10_000,
  );
  // Both processes fenced: wait until every answer for a while is a refusal.
  await waitFor(
    () => {
      const recent = answers.filter((a) => a.atMs > Date.now() - 300);
      return recent.length > 0 && recent.every((a) => a.status === 503);
    },
    'every process refusing',
    TTL_MS + 10_000,
  );
  const fencedAt = Date.now();
  const r = await fetch(`${proc.url}/readyz`);
  const readyz = (await r.json()) as { failing: string[] };
  assert.equal(r.status, 503);
  for (const i of [0, 1]) {
    assert.ok(
      readyz.failing.some((f) => f.startsWith(`process ${i} `)),
      JSON.stringify(readyz),
    );
  }
  const during = answers.filter((a) => a.atMs > downAt);
  // A loop, not Math.max(...ids): a fast machine answers more IDs than a call's arguments hold.
  let lastTick = 0;
  for (const a of during) {
    for (const id of a.ids) lastTick = Math.max(lastTick, decompose(layout, id).unixMs);
  }
  assert.ok(
    lastTick < downAt + TTL_MS,
    `an ID of tick ${lastTick - downAt} ms after the outage began, past the TTL`,
  );

  await server.start();
  const backAt = Date.now();
  await waitFor(
    () => answers.some((a) => a.atMs > backAt && a.status === 200),
    'IDs again',
    60_000,
  );
  await waitFor(
    () => {
      const recent = answers.filter((a) => a.atMs > Date.now() - 300);
      return recent.length > 0 && recent.every((a) => a.status === 200);
    },
    'both processes serving again',
    60_000,
  );
  const all = answers.flatMap((a) => a.ids);
  assert.equal(new Set(all).size, all.length, 'no ID issued twice');
  const codes = new Map<string, number>();
  for (const a of during) {
    const key = a.code ?? String(a.status);
    if (a.status !== 200) codes.set(key, (codes.get(key) ?? 0) + 1);
  }
  console.log(
    `# ${all.length} IDs, 0 duplicates; down to fenced ${fencedAt - downAt} ms (ttl ${TTL_MS}), ` +
      `last ID's tick ${lastTick - downAt} ms after the outage began; refusals ${JSON.stringify(Object.fromEntries(codes))}; ` +
      `back to serving ${answers.find((a) => a.atMs > backAt && a.status === 200)!.atMs - backAt} ms`,
  );
}
