// TypeID in the CLI (issue 12): gen typeid --prefix, inspect detecting a TypeID by its "_"
// (or --scheme typeid), convert to and from UUID, and the usage mistakes named with exit 2.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTypeId, typeIdTimestamp } from '../../packages/idforge/src/public/index.js';
import { cli } from '../helpers/cli.js';

const ID = 'prefix_01h455vb4pex5vsknk084sn02q';
const UUID = '01890a5d-ac96-774b-bcce-b302099a8057';

test('gen typeid: strictly increasing TypeIDs of the prefix, now; the bytes are the UUIDv7', async () => {
  const r = await cli(['gen', 'typeid', '--prefix', 'user', '-n', '1000']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.lines.length, 1000);
  for (let i = 0; i < r.lines.length; i++) {
    const id = r.lines[i]!;
    assert.equal(parseTypeId(id, { prefix: 'user' }).prefix, 'user');
    if (i > 0) assert.ok(id > r.lines[i - 1]!);
  }
  assert.ok(Math.abs(typeIdTimestamp(r.lines[0]!) - Date.now()) < 60_000);
  const none = await cli(['gen', 'typeid']);
  assert.match(none.lines[0]!, /^[0-7][0-9a-hjkmnp-tv-z]{25}$/);
  const hex = await cli(['gen', 'typeid', '--prefix', 'user', '--format', 'hex']);
  assert.match(hex.lines[0]!, /^[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
});

test('gen: --prefix is checked and applies to typeid only', async () => {
  for (const argv of [
    ['gen', 'typeid', '--prefix', 'User'],
    ['gen', 'typeid', '--prefix', 'a_'],
    ['gen', 'uuidv7', '--prefix', 'user'],
  ]) {
    const r = await cli(argv);
    assert.equal(r.code, 2, argv.join(' '));
    assert.match(r.stderr, /--prefix/);
  }
});

test('inspect: a TypeID is detected by its "_", or read with --scheme typeid', async () => {
  const r = await cli(['inspect', '--json', ID]);
  assert.equal(r.code, 0);
  assert.deepEqual(JSON.parse(r.lines[0]!), {
    input: ID,
    scheme: 'typeid',
    value: ID,
    hex: UUID.replaceAll('-', ''),
    prefix: 'prefix',
    uuid: UUID,
    version: 7,
    variant: 'rfc9562',
    unixMs: 1688096058518,
    timestamp: '2023-06-30T03:34:18.518Z',
  });
  const bare = await cli(['inspect', '--json', '--scheme', 'typeid', '01h455vb4pex5vsknk084sn02q']);
  assert.equal(JSON.parse(bare.lines[0]!).prefix, '');
  const text = await cli(['inspect', ID]);
  assert.match(text.stdout, /^prefix +prefix$/m);
  assert.match(text.stdout, new RegExp(`^uuid +${UUID}$`, 'm'));
  const bad = await cli(['inspect', '--json', '--scheme', 'typeid', '01H455VB4PEX5VSKNK084SN02Q']);
  assert.equal(bad.code, 1);
  assert.equal(JSON.parse(bad.lines[0]!).scheme, 'typeid');
  assert.match(JSON.parse(bad.lines[0]!).error, /lower case/);
  const over = await cli(['inspect', 'user_8zzzzzzzzzzzzzzzzzzzzzzzzz']);
  assert.equal(over.code, 1);
  assert.match(over.stderr, /invalid typeid: .*above "7"/);
});

test('convert: TypeID to UUID and hex, UUID to TypeID with --prefix', async () => {
  assert.deepEqual((await cli(['convert', ID, '--to', 'uuid'])).lines, [UUID]);
  assert.deepEqual((await cli(['convert', ID, '--to', 'hex'])).lines, [UUID.replaceAll('-', '')]);
  assert.deepEqual((await cli(['convert', UUID, '--to', 'typeid', '--prefix', 'prefix'])).lines, [
    ID,
  ]);
  assert.deepEqual((await cli(['convert', UUID, '--to', 'typeid'])).lines, [ID.slice(7)]);
  const bad = await cli(['convert', 'prefix_01h455vb4pex5vsknk084sn0', '--to', 'uuid']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /invalid typeid/);
  for (const argv of [
    ['convert', UUID, '--to', 'ulid', '--prefix', 'x'],
    ['convert', UUID, '--to', 'typeid', '--prefix', '_x'],
  ]) {
    const r = await cli(argv);
    assert.equal(r.code, 2, argv.join(' '));
    assert.match(r.stderr, /--prefix/);
  }
});

test('help names typeid in gen, inspect and convert', async () => {
  for (const cmd of ['gen', 'inspect', 'convert']) {
    const r = await cli([cmd, '--help']);
    assert.match(r.stdout, /typeid/i, cmd);
  }
});
