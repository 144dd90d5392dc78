// Multi-process segment sequences on a real store: 8 processes x 200,000 numbers from one tag
// through the double buffer: 0 duplicates, each process's numbers increasing.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openSegmentStore } from '../../packages/stores/src/open.js';
import { tsEntry } from '../helpers/bundle.js';
import { eachLine } from '../helpers/lines.js';
import { duplicates } from '../helpers/procs.js';
import { waitFor } from '../helpers/wait.js';

const fixture = fileURLToPath(new URL('./fixtures/seq-proc.ts', import.meta.url));

interface SeqRun {
  ids: bigint[];
  code: number | null;
  fatal: string | null;
  /** Printed W (racy mode): waiting at the barrier of its first take. */
  waiting: boolean;
}

/** Starts a seq-proc; `child.stdin` is a pipe (racy mode reads its barrier line from it). */
export function startSeqProc(config: Record<string, unknown>): {
  run: SeqRun;
  child: ChildProcess;
  done: Promise<SeqRun>;
} {
  const child = spawn(process.execPath, [...tsEntry(fixture), JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const run: SeqRun = { ids: [], code: null, fatal: null, waiting: false };
  eachLine(child.stdout!, (line) => {
    if (line.startsWith('I ')) for (const s of line.slice(2).split(' ')) run.ids.push(BigInt(s));
    else if (line.startsWith('X ')) run.fatal = line.slice(2);
    else if (line === 'W') run.waiting = true;
  });
  const done = new Promise<SeqRun>((resolve) => {
    child.on('close', (code) => {
      run.code = code;
      resolve(run);
    });
  });
  return { run, child, done };
}

export function runSeqProc(config: Record<string, unknown>): Promise<SeqRun> {
  const p = startSeqProc(config);
  p.child.stdin!.end();
  return p.done;
}

export interface SequenceFleetOptions {
  readonly url: () => string;
  /** Redis counters: the durable mark store. */
  readonly marks?: () => string;
  readonly skip?: string | false;
  /** Also run the negative control (SQLite segment URLs only). */
  readonly control?: boolean;
}

export function sequenceFleetSuite(name: string, options: SequenceFleetOptions): void {
  describe(`segment sequences on ${name} (real processes)`, { skip: options.skip ?? false }, () => {
    test('8 processes x 200,000 numbers from one tag: 0 duplicates, each increasing', async () => {
      const url = options.url();
      const tag = `orders_${randomBytes(3).toString('hex')}`;
      const marks = options.marks?.();
      if (marks === undefined) {
        const store = await openSegmentStore(url);
        await store.migrate();
        await store.createTag(tag, { step: 1000 });
        await store.close();
      }
      const runs = await Promise.all(
        Array.from({ length: 8 }, () =>
          runSeqProc({ store: url, tag, count: 200_000, ...(marks ? { marks } : {}) }),
        ),
      );
      for (const r of runs) {
        assert.equal(r.code, 0, r.fatal ?? '');
        assert.equal(r.ids.length, 200_000);
        for (let i = 1; i < r.ids.length; i++) {
          if (r.ids[i]! <= r.ids[i - 1]!) assert.fail(`not increasing at ${i}: ${r.ids[i]}`);
        }
      }
      assert.equal(duplicates(runs.flatMap((r) => r.ids)), 0);
    });

    if (!options.control) return;

    test('negative control: the same 8 processes over a take without a transaction draw duplicates', async (t) => {
      // Segments taken by SELECT then UPDATE, every process reading before any writes its
      // first block (a barrier): all 8 draw the same first 1,000 numbers.
      const url = options.url();
      const tag = `racy_${randomBytes(3).toString('hex')}`;
      const store = await openSegmentStore(url);
      await store.migrate();
      await store.createTag(tag, { step: 1000 });
      await store.close();
      const procs = Array.from({ length: 8 }, () =>
        startSeqProc({ store: url, tag, count: 5000, racy: true }),
      );
      try {
        await waitFor(
          () => procs.every((p) => p.run.waiting || p.run.code !== null),
          'all 8 to read max_id',
        );
        for (const p of procs) p.child.stdin!.end('write\n');
        const runs = await Promise.all(procs.map((p) => p.done));
        for (const r of runs) assert.equal(r.code, 0, r.fatal ?? '');
        const all = runs.flatMap((r) => r.ids);
        assert.equal(all.length, 40_000);
        const dups = duplicates(all);
        t.diagnostic(`control: ${dups} duplicates among ${all.length} numbers`);
        assert.ok(dups >= 7 * 1000, 'the duplicate check fails: the first block 8 times');
      } finally {
        for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
      }
    });
  });
}
