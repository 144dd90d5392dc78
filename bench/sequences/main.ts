/**
 * Central sequences benchmark: `npm run bench:sequences` (`-- --quick` for a smoke test).
 *
 * 1. IDs per second from a warm segment on the synchronous path (`tryNext()`), with mitata
 *    and with a plain loop, against the goal of 25 million per second (Meituan Leaf's
 *    in-process figure is 23 to 26 million on a faster machine).
 * 2. For each reachable store (SQLite always; PostgreSQL, MariaDB, Redis when they answer):
 *    IDs per second through `next()` with the store in the loop, and round trips per million
 *    IDs (blocks taken), against the expected 1,000,000 / step for a fixed step. A Redis block
 *    costs one INCRBY plus a read and a durable write of its mark (in SQLite here).
 * 3. Gap-free numbers against segment numbers, per engine, in a transaction that numbers one
 *    row (./gap-free.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SegmentBuffer } from '../../packages/idforge/src/sequences/segment-buffer.js';
import { openCounterStore, openSegmentStore } from '../../packages/stores/src/open.js';
import { openSequence } from '../../packages/stores/src/open-sequence.js';
import { dropNamespaces } from '../../test/helpers/namespaces.js';
import { gapFreePath } from './gap-free.js';

const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const GOAL = 25e6;

function machine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return `${cpus().length} x ${cpu}, Node.js ${process.version}`;
}

/** An in-memory source: the warm path never waits on it. */
function memorySource() {
  let next = 1n;
  return async (size: number) => {
    const first = next;
    next += BigInt(size);
    return { first, last: next - 1n };
  };
}

async function syncPath(): Promise<void> {
  const buf = new SegmentBuffer({
    tag: 'bench',
    source: memorySource(),
    minStep: 2_000_000_000,
    dynamicStep: false,
  });
  await buf.warm();
  const { measure } = await import('mitata');
  const stats = await measure(() => buf.tryNext(), { min_cpu_time: quick ? 50e6 : 500e6 });
  const n = quick ? 10_000_000 : 100_000_000;
  let rates: number[] = [];
  for (let round = 0; round < (quick ? 1 : 3); round++) {
    const t0 = performance.now();
    let last = 0n;
    for (let i = 0; i < n; i++) last = buf.tryNext() as bigint;
    const ms = performance.now() - t0;
    if (last === 0n) throw new Error('unreachable');
    rates.push(n / (ms / 1000));
  }
  rates = rates.sort((a, b) => a - b);
  const median = rates[Math.floor(rates.length / 2)]!;
  console.log('## 1. Warm segment, synchronous path (tryNext)\n');
  console.log(`mitata: ${stats.avg.toFixed(2)} ns per ID (p75 ${stats.p75.toFixed(2)} ns)`);
  console.log(
    `loop of ${n.toLocaleString('en-US')}: ${(median / 1e6).toFixed(1)} million IDs/s ` +
      `(median of ${rates.length}); goal ${GOAL / 1e6} million/s: ${median >= GOAL ? 'PASS' : 'MISS'}`,
  );
}

interface StoreCase {
  name: string;
  url: string;
  /** Redis counters: the durable mark store. */
  marks?: string;
}

async function reachableStores(): Promise<StoreCase[]> {
  const ns = `bench_${randomBytes(3).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'idforge-bench-seq-'));
  const all: StoreCase[] = [
    { name: 'sqlite', url: `sqlite:${join(dir, 'seq.db')}` },
    { name: 'postgres', url: `postgres://postgres@127.0.0.1:5432/test?namespace=${ns}` },
    { name: 'mysql', url: `mysql://root@127.0.0.1:3306/test?namespace=${ns}` },
    { name: 'redis', url: `redis://127.0.0.1:6379?namespace=${ns}` },
  ];
  const marks = `sqlite:${join(dir, 'marks.db')}`;
  const out: StoreCase[] = [];
  for (const c of all) {
    try {
      if (c.name === 'redis') {
        const r = await openCounterStore(c.url, { connectTimeoutMs: 2000 });
        await r.close();
        out.push({ ...c, marks });
        continue;
      }
      const s = await openSegmentStore(c.url, { connectTimeoutMs: 2000 });
      await s.migrate();
      await s.close();
      out.push(c);
    } catch (e) {
      console.log(`(skipping ${c.name}: ${(e as Error).message.split('\n')[0]})`);
    }
  }
  return out;
}

async function storePath(): Promise<void> {
  console.log('\n## 2. Through next() with the store in the loop\n');
  const ids = quick ? 200_000 : 1_000_000;
  const rows: string[][] = [
    ['store', 'step', 'IDs', 'IDs/s', 'round trips', 'per million', 'expected'],
  ];
  const cases = await reachableStores();
  for (const c of cases) {
    for (const step of [1000, 10_000]) {
      const tag = `bench_${step}_${randomBytes(3).toString('hex')}`;
      if (c.marks === undefined) {
        const store = await openSegmentStore(c.url);
        await store.createTag(tag, { step });
        await store.close();
      }
      const opened = await openSequence(c.url, tag, {
        dynamicStep: false,
        blockSize: step,
        ...(c.marks === undefined ? {} : { marks: c.marks }),
      });
      const seq = opened.sequence;
      const t0 = performance.now();
      let prev = 0n;
      for (let i = 0; i < ids; i++) {
        const v = seq.tryNext() ?? (await seq.next());
        if (v <= prev) throw new Error(`${c.name}: not increasing at ${v}`);
        prev = v;
      }
      const s = (performance.now() - t0) / 1000;
      const trips = seq.stats.fetches;
      await opened.close();
      rows.push([
        c.name,
        String(step),
        ids.toLocaleString('en-US'),
        Math.round(ids / s).toLocaleString('en-US'),
        String(trips),
        ((trips * 1e6) / ids).toFixed(0),
        (1e6 / step).toFixed(0),
      ]);
    }
  }
  await dropNamespaces(
    'postgres',
    cases.filter((c) => c.name === 'postgres').map((c) => c.url),
  ).catch(() => undefined);
  await dropNamespaces(
    'mysql',
    cases.filter((c) => c.name === 'mysql').map((c) => c.url),
  ).catch(() => undefined);
  await dropNamespaces(
    'redis',
    cases.filter((c) => c.name === 'redis').map((c) => c.url),
  ).catch(() => undefined);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join('  '));
  console.log(
    '\nround trips count every block taken, including the prefetched one still buffered at the end.',
  );
}

console.log(`# idforge sequences benchmark (${quick ? 'quick' : 'full'})\n\n${machine()}\n`);
await syncPath();
await storePath();
await gapFreePath(quick);
