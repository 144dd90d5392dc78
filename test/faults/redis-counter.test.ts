// Redis counters that move backwards, for real: the project's own Redis WITHOUT persistence
// (scripts/services/redis.sh start --no-persist, a port from the OS) is flushed (FLUSHALL) and killed
// and restarted empty while blocks are drawn; the durable marks are in SQLite (and in
// PostgreSQL for the multi-process run when it is there). The shared Redis is never touched.
//
// Each guarded scenario must end with 0 duplicates and regressions detected; the same
// scenario drawn with bare INCRBY must find duplicates, or the scenario proves nothing.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { IdforgeError } from '../../packages/idforge/src/core/index.js';
import { counterBlockSource } from '../../packages/idforge/src/sequences/counter-source.js';
import { CounterRegressedError } from '../../packages/idforge/src/sequences/index.js';
import type { BlockSource, DurableMarkStore } from '../../packages/idforge/src/sequences/ports.js';
import {
  openRedisCounterStore,
  type RedisCounterStore,
} from '../../packages/stores/src/redis/counter-store.js';
import { openMarks } from '../contract/mark-store.js';
import { tsEntry } from '../helpers/bundle.js';
import { eachLine } from '../helpers/lines.js';
import { duplicates } from '../helpers/procs.js';
import { freePort, ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { suiteTempDir } from '../helpers/temp.js';
import { early, waitFor } from '../helpers/wait.js';

const PORT = await freePort();
const REDIS = `redis://127.0.0.1:${PORT}?namespace=ctr`;
const PG = process.env.IDFORGE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
// The shared server's presence says whether Redis is installed here at all.
const skip = await serviceSkip('redis', '127.0.0.1', 6379);
// With IDFORGE_REQUIRE_SERVICES=1 a missing PostgreSQL fails the run instead of skipping.
const pgAt = new URL(PG);
const pgSkip = await serviceSkip('postgres', pgAt.hostname, Number(pgAt.port || 5432));
const server = ownServer('redis', PORT, ['--no-persist']);
const dir = suiteTempDir('idforge-counter-');
const quiet = { warn() {} };
let keys = 0;

async function flushAll(): Promise<void> {
  const r = new Redis(REDIS.replace(/\?.*/, ''), { lazyConnect: true, maxRetriesPerRequest: 0 });
  await r.connect();
  await r.flushall();
  r.disconnect();
}

interface Fixture {
  counter: RedisCounterStore;
  marks: DurableMarkStore;
  key: string;
}

async function fixture(): Promise<Fixture> {
  const counter = await openRedisCounterStore(REDIS, { connectTimeoutMs: 1000 });
  const marks = await openMarks(`sqlite:${join(dir, 'marks.db')}`);
  return { counter, marks, key: `k${keys++}` };
}

async function close(f: Fixture): Promise<void> {
  await f.counter.close();
  await f.marks.close();
}

function bareSource(f: Fixture): BlockSource {
  return async (size) => {
    const last = await f.counter.incrBy(f.key, size);
    return { first: last - BigInt(size) + 1n, last };
  };
}

function numbers(blocks: ReadonlyArray<{ first: bigint; last: bigint }>): bigint[] {
  return blocks.flatMap((b) => {
    const out: bigint[] = [];
    for (let v = b.first; v <= b.last; v++) out.push(v);
    return out;
  });
}

/** 40 blocks of 100, FLUSHALL, 40 more: the numbers served. */
async function flushScenario(take: BlockSource): Promise<bigint[]> {
  const blocks: Array<{ first: bigint; last: bigint }> = [];
  for (let i = 0; i < 40; i++) blocks.push(await take(100));
  await flushAll();
  for (let i = 0; i < 40; i++) blocks.push(await take(100));
  return numbers(blocks);
}

describe('Redis counter moving backwards (own Redis without persistence)', { skip }, () => {
  before(() => server.start());
  after(async () => {
    await server.stop();
    if (pgSkip !== false) return;
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: PG });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS idforge_test_ctr_${process.pid} CASCADE`);
    await client.end();
  });

  test('FLUSHALL mid-run: 0 duplicates, the regression detected and re-seeded', async () => {
    const f = await fixture();
    try {
      const take = counterBlockSource(f.counter, f.marks, f.key, { logger: quiet });
      const ids = await flushScenario(take);
      assert.equal(ids.length, 8000);
      assert.equal(duplicates(ids), 0);
      const s = take.stats();
      assert.equal(s.regressions, 1);
      assert.equal(s.reseeds, 1);
      assert.ok(ids[4000]! > ids[3999]!, 'after the flush, above everything before it');
    } finally {
      await close(f);
    }
  });

  test('negative control: the same FLUSHALL scenario with bare INCRBY finds duplicates', async () => {
    const f = await fixture();
    try {
      const ids = await flushScenario(bareSource(f));
      assert.equal(duplicates(ids), 4000, 'every number after the flush was served before');
    } finally {
      await close(f);
    }
  });

  /** Draws blocks of 50 with `take` while Redis is killed and restarted empty. */
  async function killScenario(take: BlockSource) {
    const blocks: Array<{ first: bigint; last: bigint }> = [];
    const codes: string[] = [];
    let restarted = -1;
    let running = true;
    const loop = early(async () => {
      while (running) {
        try {
          blocks.push(await take(50));
        } catch (e) {
          if (!(e instanceof IdforgeError)) throw e;
          codes.push(e.code);
        }
        await sleep(2);
      }
    });
    try {
      await waitFor(() => blocks.length >= 30, '30 blocks');
      await server.stop(true);
      await waitFor(() => codes.length > 0, 'a draw to fail while Redis is down');
      await server.start();
      restarted = blocks.length;
      await waitFor(() => blocks.length >= restarted + 30, '30 blocks after the restart');
    } finally {
      running = false;
      await loop;
    }
    return { blocks, codes, restarted };
  }

  test('killed and restarted empty while drawing: errors during the outage, then 0 duplicates', async (t) => {
    const f = await fixture();
    const take = counterBlockSource(f.counter, f.marks, f.key, { logger: quiet });
    const { blocks, codes, restarted } = await killScenario(take).finally(() => close(f));
    const s = take.stats();
    t.diagnostic(
      `blocks ${blocks.length} (${restarted} before the restart), failed draws ${codes.length}, ` +
        `regressions ${s.regressions}, reseeds ${s.reseeds}`,
    );
    assert.ok(codes.includes('IDF_STORE_UNAVAILABLE'), `codes: ${[...new Set(codes)]}`);
    assert.ok(s.regressions > 0 && s.reseeds > 0);
    assert.equal(duplicates(numbers(blocks)), 0);
    for (let i = 1; i < blocks.length; i++) assert.ok(blocks[i]!.first > blocks[i - 1]!.last);
  });

  test('negative control: the same kill and empty restart with bare INCRBY reissues numbers', async (t) => {
    const f = await fixture();
    const { blocks, restarted } = await killScenario(bareSource(f)).finally(() => close(f));
    const dups = duplicates(numbers(blocks));
    t.diagnostic(`control: ${dups} duplicates (${restarted} blocks before the restart)`);
    // The empty Redis counts from 0 again: at least the first 30 blocks after it repeat.
    assert.ok(dups >= 30 * 50, 'the duplicate check fails without the guard');
  });

  test('refuse: CounterRegressedError, and nothing at or below the mark is served', async () => {
    const f = await fixture();
    try {
      const take = counterBlockSource(f.counter, f.marks, f.key, {
        onRegression: 'refuse',
        logger: quiet,
      });
      for (let i = 0; i < 5; i++) await take(100);
      await flushAll();
      // Each refusal still moved the counter by 100: it climbs back over the mark (500).
      for (let i = 1; i <= 5; i++) {
        await assert.rejects(
          take(100),
          (e: unknown) =>
            e instanceof CounterRegressedError &&
            e.value === BigInt(i * 100) &&
            e.markValue === 500n,
        );
      }
      assert.deepEqual(await take(100), { first: 501n, last: 600n });
      assert.equal(take.stats().reseeds, 0);
    } finally {
      await close(f);
    }
  });

  for (const [marks, mode, markSkip] of [
    ['sqlite', 'guard', false],
    ['postgres', 'guard', pgSkip],
    ['sqlite', 'bare', false],
  ] as const) {
    const title =
      mode === 'guard'
        ? `4 processes, marks in ${marks}, FLUSHALL then a kill and empty restart: 0 overlap`
        : 'negative control: 4 processes with bare INCRBY across a FLUSHALL overlap';
    test(title, { skip: markSkip }, async (t) => {
      const key = `multi${keys++}`;
      const url =
        marks === 'sqlite'
          ? `sqlite:${join(dir, `${key}.db`)}`
          : `${PG}?namespace=idforge_test_ctr_${process.pid}`;
      await (await openMarks(url)).close(); // migrated once, before the processes start
      const procs = [1, 2, 3, 4].map(() =>
        spawnDrawer({ redis: REDIS, marks: url, key, size: 50, blocks: 150, mode }),
      );
      const total = () => procs.reduce((n, p) => n + p.blocks.length, 0);
      try {
        // Every drawer connected and drawing before any fault: on a busy machine the last one
        // to start could otherwise first reach Redis while the test has it stopped.
        await waitFor(() => procs.every((p) => p.blocks.length > 0), 'every drawer drawing');
        await waitFor(() => total() >= 100, '100 blocks');
        await flushAll();
        if (mode === 'guard') {
          await waitFor(() => total() >= 300, '300 blocks');
          const failed = procs.reduce((n, p) => n + p.errors, 0);
          await server.stop(true);
          await waitFor(
            () => procs.reduce((n, p) => n + p.errors, 0) > failed,
            'a draw to fail while Redis is down',
          );
          await server.start();
        }
        await Promise.all(procs.map((p) => p.exited));
      } finally {
        for (const p of procs) if (p.code === null) p.child.kill('SIGKILL');
      }
      const all = procs.flatMap((p) => p.blocks).sort((a, b) => (a.first < b.first ? -1 : 1));
      let overlaps = 0;
      for (let i = 1; i < all.length; i++) if (all[i]!.first <= all[i - 1]!.last) overlaps++;
      const regressions = procs.reduce((n, p) => n + p.stats[1]!, 0);
      t.diagnostic(
        `blocks ${all.length}, overlaps ${overlaps}, regressions ${regressions}, ` +
          `reseeds ${procs.reduce((n, p) => n + p.stats[2]!, 0)}, failed draws ` +
          `${procs.reduce((n, p) => n + p.errors, 0)}`,
      );
      assert.equal(all.length, 600);
      for (const p of procs) assert.equal(p.code, 0);
      if (mode === 'bare') {
        assert.ok(overlaps > 0, 'the bare counter repeated numbers');
        return;
      }
      assert.equal(overlaps, 0);
      assert.ok(regressions > 0);
      for (const p of procs) {
        for (let i = 1; i < p.blocks.length; i++) {
          assert.ok(p.blocks[i]!.first > p.blocks[i - 1]!.last, 'increasing within a process');
        }
      }
    });
  }
});

const drawer = fileURLToPath(new URL('./fixtures/counter-proc.ts', import.meta.url));

interface Drawer {
  readonly child: ChildProcess;
  readonly blocks: Array<{ first: bigint; last: bigint }>;
  stats: number[];
  errors: number;
  code: number | string | null;
  readonly exited: Promise<void>;
}

function spawnDrawer(config: Record<string, unknown>): Drawer {
  const child = spawn(process.execPath, [...tsEntry(drawer), JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const d: Drawer = {
    child,
    blocks: [],
    stats: [0, 0, 0],
    errors: 0,
    code: null,
    exited: new Promise((resolve) => {
      child.on('close', (code, signal) => {
        d.code = code ?? signal;
        resolve();
      });
    }),
  };
  eachLine(child.stdout!, (line) => {
    const [kind, ...rest] = line.split(' ');
    if (kind === 'B') d.blocks.push({ first: BigInt(rest[0]!), last: BigInt(rest[1]!) });
    else if (kind === 'E') d.errors++;
    else if (kind === 'S') d.stats = rest.map(Number);
  });
  return d;
}
