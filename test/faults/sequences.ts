// Multi-process segment sequences on a real store: 8 processes x 200,000 numbers from one tag
// through the double buffer: 0 duplicates, each process's numbers increasing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { openSegmentStore } from '../../src/adapters/open.js';
import { duplicates } from '../helpers/procs.js';

const fixture = fileURLToPath(new URL('./fixtures/seq-proc.ts', import.meta.url));

interface SeqRun {
  ids: bigint[];
  code: number | null;
  fatal: string | null;
}

export function runSeqProc(config: Record<string, unknown>): Promise<SeqRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, JSON.stringify(config)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const run: SeqRun = { ids: [], code: null, fatal: null };
    let buf = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buf += chunk;
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('I '))
          for (const s of line.slice(2).split(' ')) run.ids.push(BigInt(s));
        else if (line.startsWith('X ')) run.fatal = line.slice(2);
        nl = buf.indexOf('\n');
      }
    });
    child.on('close', (code) => {
      run.code = code;
      resolve(run);
    });
  });
}

export interface SequenceFleetOptions {
  readonly url: () => string;
  /** Redis counters: the durable mark store. */
  readonly marks?: () => string;
  readonly skip?: string | false;
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
  });
}
