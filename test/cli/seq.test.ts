// idforge seq create|next|show on the embedded SQLite store, in-process.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { cli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-cli-seq-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('seq create, next and show', async () => {
  const store = `sqlite:${join(dir, 'seq.db')}`;
  const created = await cli([
    'seq',
    'create',
    'orders',
    '--store',
    store,
    '--step',
    '100',
    '--start',
    '1000',
  ]);
  assert.equal(created.code, 0, created.stderr);
  assert.equal(created.stdout, `created orders in ${store}: step 100, first number 1000\n`);
  const a = await cli(['seq', 'next', 'orders', '--store', store, '-n', '3']);
  assert.deepEqual(a.lines, ['1000', '1001', '1002']);
  const b = await cli(['seq', 'next', 'orders', '--store', store, '-n', '250']);
  assert.equal(b.lines.length, 250);
  assert.equal(b.lines[0], '1100', 'a new segment: the rest of the last one is never reissued');
  const show = await cli(['seq', 'show', '--store', store]);
  assert.match(show.lines[0]!, /^tag\s+max_id\s+step\s+updated_at\s+description$/);
  assert.match(show.lines[1]!, /^orders\s+1349\s+100\s+\d{4}-\d\d-\d\dT/);
  const json = await cli(['seq', 'show', '--store', store, '--json']);
  const rec = JSON.parse(json.lines[0]!);
  assert.equal(rec.maxId, '1349', '64-bit values travel as strings');
});

test('seq errors: an existing tag, an unknown tag, misuse', async () => {
  const store = `sqlite:${join(dir, 'errors.db')}`;
  await cli(['seq', 'create', 'users', '--store', store]);
  const again = await cli(['seq', 'create', 'users', '--store', store, '--step', '5']);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /already exists and was left unchanged.*\[IDF_TAG_EXISTS\]/);
  const unknown = await cli(['seq', 'next', 'nope', '--store', store]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /does not exist.*seq create nope.*\[IDF_UNKNOWN_TAG\]/);
  for (const [argv, message] of [
    [['seq', 'next', 'users', '--store', store, '--step', '5'], /apply to seq create only/],
    [['seq', 'bogus'], /expected create, next or show/],
    [['seq', 'next', '--store', store], /expected a tag/],
    [['seq', 'next', 'users', '--store', store, '--marks', store], /redis:\/\/ store only/],
  ] as const) {
    const r = await cli([...argv]);
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});
