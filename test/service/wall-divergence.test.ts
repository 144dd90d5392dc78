// Issue 19 §10: stepping the wall clock back 50 ms, 2 s or 1 h was invisible: /readyz 200 with
// nothing listed, no metric, no log line, and /v1/status's nowMs (the wall clock) an hour
// behind the lease deadlines (the nodes' clock). IDs stayed unique and increasing because the
// nodes run on a monotonic clock anchored at start; the divergence is now reported: a warning
// check in /readyz (ready stays 200), idforge_clock_wall_divergence_seconds, and one log line
// per crossing of wallDivergenceWarnMs (warn), and one when it is back (info). In process with
// an injected wall source, and in a real `idforge serve` under Debian's libfaketime.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pino } from 'pino';
import { buildApp, openService, resolveConfig } from '../../packages/server/src/service/index.js';
import { fakeWallEnv, libfaketime, stepWall } from '../helpers/faketime.js';
import { type ServiceProc, spawnService } from '../helpers/service.js';
import { tempDir } from '../helpers/temp.js';
import { waitFor } from '../helpers/wait.js';

interface Readyz {
  ready: boolean;
  failing: string[];
  warnings?: string[];
  checks: { name: string; ok: boolean; warn?: boolean; reason: string }[];
}

describe('issue 19 §10: a wall clock stepped back is reported', () => {
  const t = tempDir('idforge-i19-wall-');
  const lines: { level: number; msg: string }[] = [];
  let offsetMs = 0;
  const wall = () => Date.now() + offsetMs;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let close: () => Promise<void>;

  before(async () => {
    const config = resolveConfig({
      file: {
        path: 'test settings',
        values: { store: `sqlite:${t.dir}/idforge.db`, maxEventLoopDelayMs: 0 },
      },
    });
    const logger = pino(
      { level: 'info' },
      { write: (l: string) => void lines.push(JSON.parse(l)) },
    );
    const opened = await openService(config, { logger, wall });
    app = await buildApp(opened.deps);
    close = async () => {
      await app.close();
      await opened.close();
      t.remove();
    };
  });
  after(() => close());

  const divergenceLines = () => lines.filter((l) => /wall clock/.test(l.msg));
  const gauge = async () => {
    const body = (await app.inject('/metrics')).body;
    const m = /^idforge_clock_wall_divergence_seconds (\S+)$/m.exec(body);
    assert.ok(m !== null, 'idforge_clock_wall_divergence_seconds is exported');
    return Number(m[1]);
  };

  for (const [label, stepMs] of [
    ['50 ms', 50],
    ['2 s', 2000],
    ['1 h', 3_600_000],
  ] as const) {
    test(`the wall clock ${label} behind: a readyz warning, the gauge, one warn line; then back`, async () => {
      const before = divergenceLines().length;
      offsetMs = -stepMs;
      for (let i = 0; i < 3; i++) {
        const r = await app.inject('/readyz');
        assert.equal(r.statusCode, 200, r.body);
        const body = r.json() as Readyz;
        assert.equal(body.ready, true);
        assert.deepEqual(body.failing, []);
        const check = body.checks.find((c) => c.name === 'wall-clock');
        assert.ok(check !== undefined, `a wall-clock check is listed: ${r.body}`);
        assert.equal(check.ok, true);
        assert.equal(check.warn, true);
        const behind = Number(/(\d+) ms behind/.exec(check.reason)?.[1]);
        assert.ok(Math.abs(behind - stepMs) <= 5, check.reason);
        assert.deepEqual(body.warnings, [`wall-clock: ${check.reason}`]);
      }
      assert.ok(Math.abs((await gauge()) + stepMs / 1000) <= 0.005);
      const status = (await app.inject('/v1/status')).json() as {
        nowMs: number;
        wallMs: number;
        nodes: { deadlineMs: number }[];
      };
      assert.ok(Math.abs(status.nowMs - status.wallMs - stepMs) <= 5, JSON.stringify(status));
      assert.ok(status.nodes[0]!.deadlineMs > status.nowMs, 'deadlines are on the nowMs clock');
      const warned = divergenceLines().slice(before);
      assert.equal(warned.length, 1, JSON.stringify(warned));
      assert.equal(warned[0]!.level, 40);
      assert.match(warned[0]!.msg, /wall clock is \d+ ms behind/);

      offsetMs = 0;
      const back = (await app.inject('/readyz')).json() as Readyz;
      assert.deepEqual(back.warnings, []);
      assert.equal(back.checks.find((c) => c.name === 'wall-clock')?.warn, false);
      assert.ok(Math.abs(await gauge()) <= 0.005);
      const returned = divergenceLines().slice(before + 1);
      assert.equal(returned.length, 1, JSON.stringify(returned));
      assert.equal(returned[0]!.level, 30);
      assert.match(returned[0]!.msg, /wall clock is back within/);
    });
  }
});

const faketime = libfaketime();

describe('issue 19 §10: a real idforge serve under libfaketime reports its wall clock stepped back', {
  skip: faketime.skip,
}, () => {
  const t = tempDir('idforge-i19-faketime-');
  const file = join(t.dir, 'faketime');
  let proc: ServiceProc;
  const readyz = async () => (await (await fetch(`${proc.url}/readyz`)).json()) as Readyz;
  const divergenceLines = () => proc.logs.filter((l) => /wall clock/.test(String(l.msg)));

  before(async () => {
    proc = spawnService(
      ['--store', `sqlite:${join(t.dir, 'idforge.db')}`, '--max-event-loop-delay-ms', '0'],
      fakeWallEnv(faketime.path!, file),
    );
    await proc.ready;
  });
  after(async () => {
    proc.child.kill('SIGTERM');
    assert.equal(await proc.exited, 0, proc.stderr);
    t.remove();
  });

  for (const stepMs of [50, 2000, 3_600_000]) {
    test(`stepped back ${stepMs} ms: readyz warns, the gauge and one log line show it; then back`, async () => {
      const seen = divergenceLines().length;
      stepWall(file, -stepMs);
      let body = await readyz();
      const check = body.checks.find((c) => c.name === 'wall-clock');
      assert.equal(check?.warn, true, JSON.stringify(body));
      const behind = Number(/(\d+) ms behind/.exec(check.reason)?.[1]);
      // Real clocks, read a few ms apart in another process: within 25 ms of the step.
      assert.ok(Math.abs(behind - stepMs) <= 25, check.reason);
      assert.equal(body.ready, true);
      assert.deepEqual(body.warnings, [`wall-clock: ${check.reason}`]);
      const metrics = await (await fetch(`${proc.url}/metrics`)).text();
      const gauge = Number(/^idforge_clock_wall_divergence_seconds (\S+)$/m.exec(metrics)?.[1]);
      assert.ok(Math.abs(gauge + stepMs / 1000) <= 0.025, `gauge ${gauge}`);
      await waitFor(() => divergenceLines().length > seen, 'the warn line', 5000);
      const warned = divergenceLines().slice(seen);
      assert.equal(warned.length, 1, JSON.stringify(warned));
      assert.equal(warned[0]!.level, 40);

      stepWall(file, 0);
      body = await readyz();
      assert.deepEqual(body.warnings, [], JSON.stringify(body));
      await waitFor(() => divergenceLines().length > seen + 1, 'the info line', 5000);
      const back = divergenceLines().slice(seen + 1);
      assert.equal(back.length, 1, JSON.stringify(back));
      assert.match(String(back[0]!.msg), /wall clock is back within/);
    });
  }
});
