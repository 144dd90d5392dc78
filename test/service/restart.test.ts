// Issue 19, §1: a restart right after a clean stop failed and blamed the clock. A node that
// issued nothing released its lease with no final mark, so the reservation it had written
// ahead of the clock (up to ttlMs - guard) stayed in the store, and the next start found the
// clock "7114 ms behind the high-water mark": IDF_BEHIND_MARK past markToleranceMs, or a wait
// below it. Every rolling restart of a fleet hit this.
//
// Now a clean stop sets the mark to exactly what the node issued (or back to the mark it found
// when nothing was issued), so a restart is ready at once. Checked here in a loop of ten
// stop/start cycles without IDs and ten with IDs on one SQLite file (in-process, real sockets),
// and once as the issue saw it: a real `idforge serve` process stopped by SIGTERM and started
// again at once.
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { decompose } from '../../packages/idforge/src/core/index.js';
import { resolveConfig, startService } from '../../packages/server/src/service/index.js';
import { openLeaseStore } from '../../packages/stores/src/index.js';
import { spawnService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';

interface Cycle {
  readonly readyMs: number;
  readonly markAfterStopMs: number | null;
  readonly stoppedAtMs: number;
  readonly lastIdTickEndMs: number | null;
}

/** GET on a connection of its own (no agent: `Connection: close`), the answer read whole. */
function getClosing(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

/** Starts the service on `db`, optionally takes IDs, stops it, and reads the stored mark. */
async function cycle(db: string, take: number, seen: Set<string>, logs: string[]): Promise<Cycle> {
  const config = resolveConfig({
    file: {
      path: 'issue-19 restart',
      // The event-loop guard is off: a busy machine's lag would answer 503, and readiness
      // after a restart is what this checks.
      values: {
        store: `sqlite:${db}`,
        port: 0,
        workers: '3',
        ttlMs: 6000,
        logLevel: 'info',
        maxEventLoopDelayMs: 0,
      },
    },
  });
  const started = performance.now();
  const service = await startService(config, { write: (line) => logs.push(line) });
  const readyMs = performance.now() - started;
  let lastIdTickEndMs: number | null = null;
  try {
    if (take > 0) {
      // On a connection of its own that the answer closes: a kept-alive idle one would make
      // the stop wait for the client to close it (the drain never closes one under its
      // client), seconds per cycle that this test is not about.
      const r = await getClosing(`${service.url}/v1/ids/snowflake?count=${take}`);
      assert.equal(r.status, 200);
      const { ids } = JSON.parse(r.body) as { ids: string[] };
      for (const id of ids) {
        assert.ok(!seen.has(id), `ID ${id} issued twice across restarts`);
        seen.add(id);
      }
      const layout = service.deps.nodes.get('default')!.layout;
      lastIdTickEndMs = decompose(layout, ids.at(-1)!).unixMs + layout.unitMs;
    }
  } finally {
    await service.close();
  }
  const stoppedAtMs = Date.now();
  const store = await openLeaseStore(`sqlite:${db}`);
  try {
    assert.deepEqual(await store.list(), [], 'the lease is released at a clean stop');
    return { readyMs, markAfterStopMs: await store.readMark(3), stoppedAtMs, lastIdTickEndMs };
  } finally {
    await store.close();
  }
}

test('ten clean stops without IDs, then ten with: each restart is ready at once, no duplicate', async () => {
  const t = tempDir('idforge-issue19-restart-');
  const db = join(t.dir, 'idforge.db');
  const seen = new Set<string>();
  const logs: string[] = [];
  try {
    const cycles: Cycle[] = [];
    let markBefore: number | null = null;
    for (let i = 0; i < 20; i++) {
      const take = i < 10 ? 0 : 50;
      const c = await cycle(db, take, seen, logs);
      cycles.push(c);
      if (take === 0) {
        // Nothing issued: the mark is what the node found (none: 0), never its reservation.
        assert.equal(c.markAfterStopMs, markBefore ?? 0, `cycle ${i}: the mark is where it was`);
      } else {
        // IDs issued: the mark is exactly the end of the last ID's tick, not the reservation.
        assert.equal(c.markAfterStopMs, c.lastIdTickEndMs, `cycle ${i}: the exact mark`);
      }
      // Whatever the cycle, a restart now finds no mark ahead of the clock to wait out.
      assert.ok(
        (c.markAfterStopMs ?? 0) <= c.stoppedAtMs + 1,
        `cycle ${i}: mark ${c.markAfterStopMs} is ahead of the clock (${c.stoppedAtMs})`,
      );
      markBefore = c.markAfterStopMs;
    }
    assert.equal(seen.size, 500);
    const waited = logs.filter((l) => /behind its high-water mark|IDF_BEHIND_MARK/.test(l));
    assert.deepEqual(waited, [], 'no start waited for, or failed on, a mark');
    const ready = cycles.map((c) => Math.round(c.readyMs));
    console.log(`issue-19 restart: ready after ${ready.join(', ')} ms`);
  } finally {
    t.remove();
  }
});

test('a real process: SIGTERM after start, then start again at once: ready, exit 0 both times', async () => {
  const t = tempDir('idforge-issue19-restart-proc-');
  const db = join(t.dir, 'idforge.db');
  try {
    for (let i = 0; i < 2; i++) {
      const p = spawnService(['--store', `sqlite:${db}`, '--workers', '1'], {}, t.dir);
      try {
        await p.ready;
        const r = await getClosing(`${p.url}/readyz`);
        assert.equal(r.status, 200, `start ${i} is ready`);
        p.child.kill('SIGTERM');
        assert.equal(await p.exited, 0, `start ${i} stops with exit 0: ${p.stderr}`);
      } finally {
        p.child.kill('SIGKILL');
        await p.exited;
      }
      const wait = p.logs.filter((l) => /behind its high-water mark/.test(String(l.msg)));
      assert.deepEqual(wait, [], `start ${i} waited for no mark`);
    }
  } finally {
    t.remove();
  }
});
