// The progress printer shared by `bench db` and `backfill`: lines at each tenth off a terminal,
// a bar redrawn in place on one, a finished phase on a line of its own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  duration,
  int,
  ProgressPrinter,
  rateText,
} from '../../packages/server/src/cli/progress.js';

function io(isTTY: boolean) {
  const out: string[] = [];
  return {
    out,
    io: {
      stdout: { write: () => true },
      stderr: { write: (s: string) => out.push(s), isTTY },
      stdin: (async function* () {})(),
    },
  };
}

test('off a terminal: one line per tenth passed, a later pass every update', () => {
  const { out, io: cli } = io(false);
  const p = new ProgressPrinter(cli);
  for (let i = 0; i <= 1000; i++) p.step(i, 1000, `${i}`);
  assert.deepEqual(
    out,
    ['100', '200', '300', '400', '500', '600', '700', '800', '900', '1000'].map((s) => `${s}\n`),
  );
  out.length = 0;
  p.step(5, 1000, 'again', true);
  p.step(6, 1000, 'again', true);
  assert.equal(out.length, 2, 'always: every update printed');
  out.length = 0;
  p.line('phase done');
  p.step(100, 1000, 'next phase');
  assert.deepEqual(out, ['phase done\n', 'next phase\n'], 'the tenths count again after a line');
  p.end();
  assert.equal(out.length, 2, 'end() adds nothing to lines');
});

test('on a terminal: a bar redrawn in place, the last update always drawn, end() closes it', () => {
  const { out, io: cli } = io(true);
  const p = new ProgressPrinter(cli);
  for (let i = 0; i <= 1000; i++) p.step(i, 1000, `${i}`);
  assert.ok(out.length >= 2 && out.length < 50, `throttled: ${out.length} draws`);
  assert.equal(out[0], `\r[${'.'.repeat(24)}] 0\x1b[K`);
  assert.equal(out.at(-1), `\r[${'#'.repeat(24)}] 1000\x1b[K`, 'the final state drawn');
  p.end();
  assert.equal(out.at(-1), '\n');
  p.end();
  assert.equal(out.at(-1), '\n', 'a second end() writes nothing more');
  const n = out.length;
  p.line('done');
  assert.deepEqual(out.slice(n), ['\rdone\x1b[K\n']);
});

test('figures: thousands separators, durations, rates and ETA', () => {
  assert.equal(int(1234567.4), '1,234,567');
  assert.equal(duration(42.4), '42 s');
  assert.equal(duration(185), '3 min 5 s');
  assert.equal(rateText(500, 1500, 1000), '500 rows/s, ETA 2 s');
  assert.equal(rateText(0, 1500, 0), '0 rows/s, ETA 0 s');
});
