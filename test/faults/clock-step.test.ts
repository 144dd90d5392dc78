// Issue 23 §2 on real processes: `idforge serve --on-large-rollback switch-worker` under Debian's
// libfaketime, its wall clock stepped back 1 s, then 1 min, then 1 h more while a client takes
// IDs without pause: after each step the node switches worker ID and serves again (IDs whose
// time is the stepped wall clock's), 0 duplicates against everything issued before by any
// worker ID, and a restart an hour behind serves at once. Negative control: without the switch
// the running node carries on ahead of the wall clock, and the restart is refused
// (IDF_BEHIND_MARK), as before.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { decompose, getLayout } from '../../packages/idforge/src/core/index.js';
import { fakeWallEnv, libfaketime, stepWall } from '../helpers/faketime.js';
import { type ServiceProc, spawnService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

const faketime = libfaketime();
const layout = getLayout('default');
const t = tempDir('idforge-clock-step-');
after(() => t.remove());

interface Taken {
  /** Real time the answer came, ms. */
  atMs: number;
  status: number;
  ids: bigint[];
}

/** Takes IDs from `url` in a loop until stopped; every answer is kept. */
function taker(url: string) {
  const taken: Taken[] = [];
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const r = await fetch(`${url}/v1/ids/snowflake?count=200`).catch(() => null);
      const body = r === null ? null : ((await r.json()) as { ids?: string[] });
      taken.push({
        atMs: Date.now(),
        status: r?.status ?? 0,
        ids: (body?.ids ?? []).map((x) => BigInt(x)),
      });
    }
  })();
  return {
    taken,
    /** Resolves with the first answer kept for which `cond` holds; fails after `boundMs`. */
    until: (cond: (x: Taken) => boolean, what: string, boundMs = 20_000) =>
      waitFor(() => taken.find(cond), what, boundMs),
    async stop() {
      stop = true;
      await loop;
    },
  };
}

const workerOf = (id: bigint) => decompose(layout, id).fields.node!;
const timeOf = (id: bigint) => decompose(layout, id).unixMs;

async function stopped(proc: ServiceProc) {
  proc.child.kill('SIGTERM');
  assert.equal(await proc.exited, 0, proc.stderr);
}

describe('a real idforge serve whose wall clock steps back', { skip: faketime.skip }, () => {
  const store = `sqlite:${join(t.dir, 'idforge.db')}`;

  test('switch-worker: 1 s, 1 min, 1 h back: a new worker ID each time, serving within a bound, 0 duplicates', async () => {
    const file = join(t.dir, 'faketime-switch');
    const env = fakeWallEnv(faketime.path!, file);
    const args = [
      '--store',
      store,
      '--on-large-rollback',
      'switch-worker',
      '--max-event-loop-delay-ms',
      '0',
    ];
    const proc = spawnService(args, env);
    await proc.ready;
    const take = taker(proc.url);
    await take.until((x) => x.status === 200, 'the first IDs');
    const figures: string[] = [];
    let offset = 0;
    for (const [label, stepMs] of [
      ['1 s', 1000],
      ['1 min', 60_000],
      ['1 h', 3_600_000],
    ] as const) {
      const workersBefore = new Set(take.taken.flatMap((x) => x.ids.map(workerOf)));
      offset -= stepMs;
      const steppedAt = Date.now();
      stepWall(file, offset);
      // Served again: IDs of a worker ID not used before, their time the stepped wall clock's.
      const back = await take.until(
        (x) => x.atMs >= steppedAt && x.ids.length > 0 && !workersBefore.has(workerOf(x.ids[0]!)),
        `IDs of a new worker ID after the ${label} step`,
      );
      const fakeNow = back.atMs + offset;
      assert.ok(
        Math.abs(timeOf(back.ids[0]!) - fakeNow) < 2000,
        `${label}: IDs on the stepped clock`,
      );
      const refused = take.taken.filter(
        (x) => x.atMs >= steppedAt && x.atMs <= back.atMs && x.status !== 200,
      );
      figures.push(`${label}: switched in ${back.atMs - steppedAt} ms (${refused.length} refused)`);
    }
    await take.stop();
    const all = take.taken.flatMap((x) => x.ids);
    assert.equal(new Set(all).size, all.length, 'no ID issued twice, across every worker ID');
    const metrics = await (await fetch(`${proc.url}/metrics`)).text();
    assert.match(metrics, /^idforge_worker_switches_total\{layout="default"\} 3$/m);
    const readyz = (await (await fetch(`${proc.url}/readyz`)).json()) as { warnings?: string[] };
    assert.ok(
      readyz.warnings?.some((w) => /^switch:default: switched from worker ID \d+ to \d+/.test(w)),
      JSON.stringify(readyz),
    );
    await stopped(proc);

    // A restart still an hour behind every worker ID used: another one, at once.
    const again = spawnService(args, env);
    await again.ready;
    const r = (await (await fetch(`${again.url}/v1/ids/snowflake?count=10`)).json()) as {
      ids: string[];
    };
    const ids = r.ids.map((x) => BigInt(x));
    assert.ok(ids.every((id) => !all.includes(id)));
    await stopped(again);
    console.log(`# ${figures.join('; ')}; ${all.length} IDs, 0 duplicates`);
  });

  test('negative control (refuse): the running node ignores the step; the restart is refused', async () => {
    const file = join(t.dir, 'faketime-refuse');
    const env = fakeWallEnv(faketime.path!, file);
    const own = `sqlite:${join(t.dir, 'refuse.db')}`;
    const args = ['--store', own, '--max-event-loop-delay-ms', '0', '--acquire-timeout-ms', '0'];
    const proc = spawnService(args, env);
    await proc.ready;
    const before = (await (await fetch(`${proc.url}/v1/ids/snowflake?count=10`)).json()) as {
      ids: string[];
    };
    stepWall(file, -3_600_000);
    const during = (await (await fetch(`${proc.url}/v1/ids/snowflake?count=10`)).json()) as {
      ids: string[];
    };
    assert.ok(timeOf(BigInt(during.ids[0]!)) > Date.now() - 60_000, 'still on the unstepped clock');
    assert.ok(BigInt(during.ids[0]!) > BigInt(before.ids.at(-1)!));
    await stopped(proc);
    const again = spawnService(args, env);
    const code = await again.exited;
    assert.notEqual(code, 0);
    assert.match(again.stderr + JSON.stringify(again.logs), /IDF_BEHIND_MARK/);
  });
});
