// idforge seq create --format / seq next of a formatted tag, in-process on SQLite: the format
// stored with the tag, numbers printed in the period of this clock, bad formats refused before
// any store is made.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { defineNumberFormat } from '../../packages/idforge/src/sequences/index.js';
import { cli } from '../helpers/cli.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-cli-seqfmt-');

test('seq create --format, then seq next prints formatted numbers of the period', async () => {
  const store = `sqlite:${join(dir, 'f.db')}`;
  const created = await cli([
    'seq',
    'create',
    'invoices',
    '--store',
    store,
    '--step',
    '50',
    '--format',
    'INV-{yyyy}{mm}{dd}-{n36:4}',
    '--reset',
    'daily',
    '--time-zone',
    'America/New_York',
  ]);
  assert.equal(created.code, 0, created.stderr);
  assert.match(
    created.stdout,
    /formatted INV-\{yyyy\}\{mm\}\{dd\}-\{n36:4\} \(reset daily in America\/New_York\)\n$/,
  );
  const before = Date.now();
  const next = await cli(['seq', 'next', 'invoices', '--store', store, '-n', '2']);
  const f = defineNumberFormat('INV-{yyyy}{mm}{dd}-{n36:4}', {
    reset: 'daily',
    timeZone: 'America/New_York',
  });
  const days = new Set(
    [f.periodAt(before), f.periodAt(Date.now())].map((p) => `${p.yyyy}${p.mm}${p.dd}`),
  );
  assert.equal(next.code, 0, next.stderr);
  assert.equal(next.lines.length, 2);
  assert.ok(days.has(next.lines[0]!.slice(4, 12)), next.lines[0]);
  assert.deepEqual(
    next.lines.map((l) => l.slice(12)),
    ['-0001', '-0002'],
  );
  const show = await cli(['seq', 'show', '--store', store]);
  assert.match(show.stdout, /invoices\s+0\s+50 .*formatted INV-/);
  assert.match(show.stdout, /invoices:\d{4}-\d\d-\d\d\s+50\s+50 .*period of invoices/);
});

test('a format that would repeat, or flags without --format, are refused and create nothing', async () => {
  const path = join(dir, 'none.db');
  const store = `sqlite:${path}`;
  const repeat = await cli([
    'seq',
    'create',
    'x',
    '--store',
    store,
    '--format',
    'X-{n}',
    '--reset',
    'monthly',
  ]);
  assert.equal(repeat.code, 2);
  assert.match(repeat.stderr, /\{yyyy\}, \{mm\} in a pattern that resets monthly/);
  const lone = await cli(['seq', 'create', 'x', '--store', store, '--reset', 'daily']);
  assert.match(lone.stderr, /apply with --format only/);
  const onNext = await cli(['seq', 'next', 'x', '--store', store, '--format', '{n}']);
  assert.match(onNext.stderr, /--format applies to seq create only/);
  const long = await cli([
    'seq',
    'create',
    'x'.repeat(118),
    '--store',
    store,
    '--format',
    '{yyyy}-{n}',
    '--reset',
    'yearly',
  ]);
  assert.match(long.stderr, /a tag that resets has at most 117 characters/);
  assert.equal(existsSync(path), false, 'no store file made');
});
