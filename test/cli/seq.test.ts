// idforge seq create|next|show|step on the embedded SQLite store, in-process.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-cli-seq-');

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
  const [rec] = JSON.parse(json.stdout);
  assert.equal(rec.maxId, '1349', '64-bit values travel as strings');
});

test('seq show --json on a store without tags prints []', async () => {
  const store = `sqlite:${join(dir, 'empty-show.db')}`;
  await cli(['migrate', '--store', store]);
  const json = await cli(['seq', 'show', '--store', store, '--json']);
  assert.equal(json.code, 0, json.stderr);
  assert.equal(json.stdout, '[]\n');
});

test('seq step changes the stored step, never max_id; the next segment uses it', async () => {
  const store = `sqlite:${join(dir, 'step.db')}`;
  await cli(['seq', 'create', 'photos', '--store', store, '--step', '10']);
  assert.deepEqual((await cli(['seq', 'next', 'photos', '--store', store, '-n', '2'])).lines, [
    '1',
    '2',
  ]);
  const set = await cli(['seq', 'step', 'photos', '500', '--store', store]);
  assert.equal(set.code, 0, set.stderr);
  assert.equal(set.stdout, `step of photos in ${store} set to 500; max_id 10 unchanged\n`);
  const json = await cli(['seq', 'show', '--store', store, '--json']);
  const [photos] = JSON.parse(json.stdout);
  assert.deepEqual([photos.maxId, photos.step], ['10', 500]);
  const next = await cli(['seq', 'next', 'photos', '--store', store]);
  assert.deepEqual(next.lines, ['11']);
  const show = await cli(['seq', 'show', '--store', store]);
  assert.match(show.lines[1]!, /^photos\s+510\s+500\s/, 'a segment of the new step was taken');
  const env = await cli(['seq', 'step', 'photos', '1'], '', { IDFORGE_STORE: store });
  assert.equal(env.stdout, `step of photos in ${store} set to 1; max_id 510 unchanged\n`);
  const help = await cli(['seq', '--help']);
  assert.match(help.stdout, /seq step <tag> <N>/);
});

test('seq step errors: an unknown tag, a missing store file, bad steps, a Redis counter', async () => {
  const store = `sqlite:${join(dir, 'step-errors.db')}`;
  await cli(['seq', 'create', 'users', '--store', store]);
  const unknown = await cli(['seq', 'step', 'nope', '5', '--store', store]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /"nope" does not exist.*\[IDF_UNKNOWN_TAG\]/);
  const missing = join(dir, 'no-such.db');
  const noFile = await cli(['seq', 'step', 'users', '5', '--store', `sqlite:${missing}`]);
  assert.equal(noFile.code, 1);
  assert.match(noFile.stderr, /\[IDF_STORE_PATH\]/);
  assert.equal(existsSync(missing), false, 'seq step never creates a store file');
  for (const [argv, message] of [
    [['seq', 'step', '--store', store], /seq step: expected a tag and a step/],
    [['seq', 'step', 'users', '--store', store], /seq step: expected a step after the tag/],
    [
      ['seq', 'step', 'users', '0', '--store', store],
      /seq step: N: expected 1 to 2147483647, got 0/,
    ],
    [['seq', 'step', 'users', '2147483648', '--store', store], /expected 1 to 2147483647/],
    [['seq', 'step', 'users', '1.5', '--store', store], /expected an integer from 1 to 2147483647/],
    [['seq', 'step', 'users', '5', 'x', '--store', store], /seq step: unexpected argument "x"/],
    [['seq', 'step', 'users', '--step', '5', '--store', store], /apply to seq create only/],
    [['seq', 'step', 'a\nb', '5', '--store', store], /^idforge seq step: /],
    [['seq', 'step', 'users', '5', '--store', 'redis://127.0.0.1:1'], /a counter store keeps none/],
    [
      ['seq', 'create', 'users', '--store', 'redis://127.0.0.1:1', '--format', 'INV-{n}'],
      /--format needs a table store \(sqlite:, postgres:\/\/, mysql:\/\/\)/,
    ],
  ] as const) {
    const r = await cli([...argv]);
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  const show = await cli(['seq', 'show', '--store', store, '--json']);
  assert.equal(JSON.parse(show.stdout)[0].step, 1000, 'nothing was changed');
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
    [['seq', 'bogus'], /expected create, next, show or step, got "bogus"/],
    [['seq', 'next', '--store', store], /expected a tag/],
    [
      ['seq', 'next', 'users', '--store', store, '--marks', store],
      /--marks applies to a counter store \(redis:\/\/\) only/,
    ],
  ] as const) {
    const r = await cli([...argv]);
    assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});
