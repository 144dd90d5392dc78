// Many processes taking segments from one tag at once, on one backend: 8 processes, started
// together behind a barrier, each take 500 segments of step 100 → no block shared or skipped,
// each process's blocks increasing, and all 8 taking at the same time (their first-to-last
// take intervals overlap). How finely the blocks interleave is reported: on the servers the
// takes alternate almost every time; SQLite's busy handler lets a process that just committed
// take the lock again before the sleeping waiters wake, so its blocks come in runs.
// The negative control (on one backend, `control: true`) runs the same processes with a take
// that is SELECT then UPDATE without a transaction, all 8 reading before any writes
// (fixtures/racy-take.ts): the blocks must then overlap.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Segment } from '../../packages/idforge/src/sequences/ports.js';
import { assertContiguous } from '../contract/segment-store.js';
import { tsEntry } from '../helpers/bundle.js';
import { eachLine } from '../helpers/lines.js';
import { openTestSegmentStore } from '../helpers/segment-stores.js';
import { waitFor } from '../helpers/wait.js';

const fixture = fileURLToPath(new URL('./fixtures/segment-proc.ts', import.meta.url));

export interface SegmentFaultOptions {
  /** A fresh store URL (its own file or namespace). */
  readonly url: () => string;
  readonly skip?: string | false;
  /** Also run the negative control (SQLite URLs only). */
  readonly control?: boolean;
}

interface Proc {
  readonly child: ChildProcess;
  readonly segments: Segment[];
  fatal: string | null;
  span: [number, number] | null;
  /** Printed W: waiting at the racy take's barrier. */
  waiting: boolean;
  readonly ready: Promise<void>;
  readonly exited: Promise<number | string>;
}

function start(config: Record<string, unknown>): Proc {
  const child = spawn(process.execPath, [...tsEntry(fixture), JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const proc: Proc = {
    child,
    segments: [],
    fatal: null,
    span: null,
    waiting: false,
    ready: Promise.resolve(),
    // Never rejects (once() would on an 'error' event, leaving the ready chain unhandled).
    exited: new Promise((resolve) =>
      child.on('close', (code, signal) => resolve((code ?? signal) as number | string)),
    ),
  };
  let onReady!: () => void;
  (proc as { ready: Promise<void> }).ready = new Promise<void>((resolve, reject) => {
    onReady = resolve;
    proc.exited.then((code) => reject(new Error(`exited before ready: ${proc.fatal ?? code}`)));
  });
  proc.ready.catch(() => undefined);
  eachLine(child.stdout!, (line) => {
    if (line === 'R') onReady();
    else if (line === 'W') proc.waiting = true;
    else if (line.startsWith('X ')) proc.fatal = line.slice(2);
    else if (line.startsWith('T ')) {
      const [from, to] = line.slice(2).split(' ').map(Number);
      proc.span = [from!, to!];
    } else if (line.startsWith('S ')) {
      const v = line.slice(2).split(' ');
      for (let i = 0; i < v.length; i += 2) {
        proc.segments.push({
          tag: config.tag as string,
          first: BigInt(v[i]!),
          last: BigInt(v[i + 1]!),
        });
      }
    }
  });
  return proc;
}

/** How often the owner changes along the blocks in number order: 7 means no interleaving. */
function ownerChanges(procs: readonly Proc[]): number {
  const owned = procs.flatMap((p, owner) => p.segments.map((s) => ({ first: s.first, owner })));
  owned.sort((a, b) => (a.first < b.first ? -1 : 1));
  let changes = 0;
  for (let i = 1; i < owned.length; i++) if (owned[i]!.owner !== owned[i - 1]!.owner) changes++;
  return changes;
}

export function segmentFaultSuite(name: string, options: SegmentFaultOptions): void {
  describe(`segments from many processes: ${name}`, { skip: options.skip ?? false }, () => {
    test('8 processes x 500 segments of step 100: disjoint, contiguous, increasing per process', {
      timeout: 180_000,
    }, async (t) => {
      const PROCS = 8;
      const COUNT = 500;
      const STEP = 100;
      const url = options.url();
      const store = await openTestSegmentStore(url);
      try {
        await store.migrate();
        await store.createTag('race', { step: 10 });
      } finally {
        await store.close();
      }
      const procs = Array.from({ length: PROCS }, () =>
        start({ url, tag: 'race', count: COUNT, step: STEP }),
      );
      try {
        await Promise.all(procs.map((p) => p.ready));
        const started = Date.now();
        for (const p of procs) p.child.stdin!.end('go\n');
        const codes = await Promise.all(procs.map((p) => p.exited));
        const ms = Date.now() - started;
        assert.deepEqual(
          procs.map((p) => p.fatal),
          procs.map(() => null),
        );
        assert.deepEqual(
          codes,
          procs.map(() => 0),
        );
        for (const [i, p] of procs.entries()) {
          assert.equal(p.segments.length, COUNT, `process ${i}`);
          for (const [j, s] of p.segments.entries()) {
            assert.equal(s.last - s.first + 1n, BigInt(STEP), `process ${i} block ${j} size`);
            const prev = p.segments[j - 1];
            if (prev !== undefined)
              assert.ok(s.first > prev.last, `process ${i} not increasing at ${j}`);
          }
        }
        const all = procs.flatMap((p) => p.segments);
        const total = BigInt(PROCS * COUNT * STEP);
        assert.equal(assertContiguous(all, 1n), total, 'no overlap, no gap');
        const spans = procs.map((p) => p.span!);
        const lastStart = Math.max(...spans.map((s) => s[0]));
        const firstEnd = Math.min(...spans.map((s) => s[1]));
        assert.ok(
          lastStart < firstEnd,
          `the processes did not all take at once: ${JSON.stringify(spans)}`,
        );
        const changes = ownerChanges(procs);
        const check = await openTestSegmentStore(url);
        try {
          assert.equal((await check.getTag('race'))?.maxId, total);
        } finally {
          await check.close();
        }
        t.diagnostic(
          `${name}: ${PROCS * COUNT} takes in ${ms} ms (${Math.round((PROCS * COUNT * 1000) / ms)}/s), ` +
            `0 overlaps, all 8 taking together for ${firstEnd - lastStart} ms, ` +
            `${changes} owner changes along the range`,
        );
      } finally {
        for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
      }
    });

    if (!options.control) return;

    test('negative control: the same 8 processes taking without a transaction get overlapping blocks', async (t) => {
      const url = options.url();
      const store = await openTestSegmentStore(url);
      try {
        await store.migrate();
        await store.createTag('racy', { step: 10 });
      } finally {
        await store.close();
      }
      const procs = Array.from({ length: 8 }, () =>
        start({ url, tag: 'racy', count: 20, step: 100, racy: true }),
      );
      try {
        await Promise.all(procs.map((p) => p.ready));
        for (const p of procs) p.child.stdin!.write('go\n');
        // Every process has read max_id; only now may they write it back.
        await waitFor(() => procs.every((p) => p.waiting), 'all 8 to read max_id');
        for (const p of procs) p.child.stdin!.end('write\n');
        const codes = await Promise.all(procs.map((p) => p.exited));
        assert.deepEqual(codes, Array(8).fill(0), procs.map((p) => p.fatal).join('; '));
        const all = procs.flatMap((p) => p.segments);
        assert.equal(all.length, 160);
        const sorted = [...all].sort((a, b) => (a.first < b.first ? -1 : 1));
        let overlaps = 0;
        for (let i = 1; i < sorted.length; i++)
          if (sorted[i]!.first <= sorted[i - 1]!.last) overlaps++;
        t.diagnostic(`control: ${overlaps} overlapping blocks of ${all.length}`);
        assert.throws(() => assertContiguous(all, 1n), /gap or overlap/, 'the check fails');
        assert.deepEqual(
          procs.map((p) => `${p.segments[0]!.first}-${p.segments[0]!.last}`),
          Array(8).fill('1-100'),
          'all 8 took the same first block',
        );
      } finally {
        for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
      }
    });
  });
}
