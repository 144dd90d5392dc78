// Crash and restart with a rewound clock, on a real store: 6 cycles (each rewind twice) of
// running at full rate, SIGKILL at a random moment, and a restart with the clock 1 s, 10 s or
// 1 h behind the last issued ID. Every restart must wait (within tolerance) or fail with
// IDF_BEHIND_MARK, and the union of all IDs has no duplicate. The negative control restarts a
// bare generator (no mark) under the same worker ID: it must produce duplicates, proving the
// check can fail.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { decompose, getLayout } from '../../packages/idforge/src/core/index.js';
import { duplicates, migrated, type NodeProc, startNode } from '../helpers/procs.js';

const layout = getLayout('default');
const timeOf = (id: bigint) => decompose(layout, id).unixMs;
const BEHIND = [1000, 10_000, 3_600_000];

export interface RestartOptions {
  readonly url: () => string;
  readonly ttlMs: number;
  readonly cycles: number;
  readonly skip?: string | false;
}

async function runFor(p: NodeProc, ms: number): Promise<void> {
  await p.ready;
  await sleep(ms);
  p.child.kill('SIGKILL');
  await p.exited;
}

function lastIssued(all: bigint[][]): number {
  let max = 0;
  for (const ids of all) for (const id of ids) max = Math.max(max, timeOf(id));
  return max;
}

export function markRestartSuite(name: string, options: RestartOptions): void {
  const { ttlMs, cycles } = options;
  const common = { workers: [0, 0], ttlMs, batch: 256, pauseMs: 1, acquireTimeoutMs: 4 * ttlMs };
  describe(`high-water mark across crashes on ${name}`, { skip: options.skip ?? false }, () => {
    test(`${cycles} kill/restart cycles with the clock 1 s, 10 s and 1 h behind: 0 duplicates`, async () => {
      const store = await migrated(options.url());
      const all: bigint[][] = [];
      const outcomes = { waited: 0, refused: 0 };
      for (let i = 0; i < cycles; i++) {
        const run = startNode({ store, ...common });
        // Runs of 0.2 to 1.4 s, so a restart 1 s behind usually lands inside the last run.
        await runFor(run, 200 + Math.floor(Math.random() * 1200));
        all.push(run.ids);
        const behind = BEHIND[i % 3]!;
        const rewindTo = lastIssued(all) - behind;
        const restart = startNode({ store, ...common, rewindTo, markToleranceMs: 5000 });
        const ok = await restart.ready.then(
          () => true,
          () => false,
        );
        if (ok) {
          outcomes.waited++;
          assert.equal(behind, 1000, 'only the 1 s rewind is within tolerance');
          await runFor(restart, 150);
          all.push(restart.ids);
          assert.ok(restart.ids.length > 0);
        } else {
          outcomes.refused++;
          assert.notEqual(behind, 1000, `the 1 s rewind was refused: ${restart.fatal}`);
          assert.match(
            restart.fatal ?? '',
            /^IDF_BEHIND_MARK the clock .* ms behind the high-water mark/,
          );
        }
      }
      const total = all.reduce((n, ids) => n + ids.length, 0);
      assert.ok(total > 10_000, `issued ${total}`);
      assert.equal(duplicates(all.flat()), 0);
      assert.equal(outcomes.waited, Math.ceil(cycles / 3));
      assert.equal(outcomes.refused, cycles - Math.ceil(cycles / 3));
    });

    test('negative control: the same rewind on a bare generator reissues IDs', async () => {
      const store = await migrated(options.url());
      const all: bigint[][] = [];
      for (let i = 0; i < 3; i++) {
        const run = startNode({ store, ...common });
        await runFor(run, 1500);
        all.push(run.ids);
        const rewindTo = lastIssued(all) - 1000;
        const bare = startNode({
          mode: 'bare',
          workers: [0, 0],
          rewindTo,
          batch: 256,
          pauseMs: 1,
        });
        await runFor(bare, 800);
        all.push(bare.ids);
      }
      assert.ok(duplicates(all.flat()) > 0, 'the rewound bare generator repeated IDs');
    });
  });
}
