// idforge public: keygen writes a 0600 key file (and refuses to overwrite one), keygen
// --key-file adds a version that encodes from then on, retire makes old IDs fail with their
// code; encode/decode round trip through files, $IDFORGE_PUBLIC_KEYS and standard input;
// usage mistakes exit 2, tampered or retired IDs exit 1 with the code.
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cli } from '../helpers/cli.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-public-');
const KEYS = '1:AAECAwQFBgcICQoLDA0ODw'; // a fixed key: deterministic outputs

test('keygen --out writes a new key file with mode 0600 and refuses to overwrite it', async () => {
  const file = join(dir, 'keys.txt');
  const r = await cli(['public', 'keygen', '--out', file]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const text = readFileSync(file, 'utf8');
  assert.match(text, /^1:[A-Za-z0-9_-]{22}$/m);
  const again = await cli(['public', 'keygen', '--out', file]);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /exists/);
  assert.equal(readFileSync(file, 'utf8'), text);
  const printed = await cli(['public', 'keygen', '--version', '7', '--bytes', '32']);
  assert.match(printed.stdout, /^7:[A-Za-z0-9_-]{43}$/m);
});

test('encode and decode round trip 64-bit, UUID and ULID inputs, with a prefix', async () => {
  const ids = ['0', '42', '18446744073709551615', '0190a2b4-c5d6-7e8f-9a0b-1c2d3e4f5061'];
  const enc = await cli(['public', 'encode', ...ids, '--prefix', 'inv'], '', {
    IDFORGE_PUBLIC_KEYS: KEYS,
  });
  assert.equal(enc.code, 0, enc.stderr);
  assert.deepEqual(
    enc.lines.map((l) => l.length),
    [27, 27, 27, 33],
  );
  const dec = await cli(['public', 'decode', ...enc.lines, '--prefix', 'inv'], '', {
    IDFORGE_PUBLIC_KEYS: KEYS,
  });
  assert.deepEqual(dec.lines, ids);
  const ulid = await cli(['public', 'encode', '01ARZ3NDEKTSV4RRFFQ69G5FAV'], '', {
    IDFORGE_PUBLIC_KEYS: KEYS,
  });
  const back = await cli(['public', 'decode', ulid.lines[0]!, '--as', 'ulid'], '', {
    IDFORGE_PUBLIC_KEYS: KEYS,
  });
  assert.deepEqual(back.lines, ['01ARZ3NDEKTSV4RRFFQ69G5FAV']);
});

test('standard input (-), --key-file and --json (64-bit IDs as strings)', async () => {
  const file = join(dir, 'fixed.txt');
  writeFileSync(file, `${KEYS}\n`, { mode: 0o600 });
  const enc = await cli(['public', 'encode', '-', '--key-file', file, '--json'], '1\n2 3\n');
  assert.equal(enc.code, 0, enc.stderr);
  const rows = JSON.parse(enc.stdout) as { id: string; publicId: string }[];
  assert.deepEqual(
    rows.map((r) => r.id),
    ['1', '2', '3'],
  );
  const dec = await cli(
    ['public', 'decode', '-', '--key-file', file, '--json'],
    rows.map((r) => r.publicId).join('\n'),
  );
  assert.deepEqual(
    JSON.parse(dec.stdout),
    rows.map((r) => ({ publicId: r.publicId, id: r.id })),
  );
});

test('a tampered ID exits 1 with IDF_PUBLIC_ID_INVALID; the others still decode', async () => {
  const env = { IDFORGE_PUBLIC_KEYS: KEYS };
  const good = (await cli(['public', 'encode', '9', '--prefix', 'inv'], '', env)).lines[0]!;
  const last = good.at(-1) === 'A' ? 'Q' : 'A';
  const bad = `${good.slice(0, -2)}x${last}`;
  const r = await cli(['public', 'decode', bad, good, '--prefix', 'inv'], '', env);
  assert.equal(r.code, 1);
  assert.deepEqual(r.lines, ['9']);
  assert.match(r.stderr, /\[IDF_PUBLIC_ID_INVALID\]/);
  const json = await cli(['public', 'decode', bad, '--prefix', 'inv', '--json'], '', env);
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.stdout)[0].error.code, 'IDF_PUBLIC_ID_INVALID');
  const swapped = await cli(
    ['public', 'decode', good.replace('inv_', 'usr_'), '--prefix', 'usr'],
    '',
    env,
  );
  assert.equal(swapped.code, 1);
});

test('rotation: keygen --key-file adds v2 (it encodes), retire 1 refuses v1 IDs naming version 1', async () => {
  const file = join(dir, 'rotate.txt');
  assert.equal((await cli(['public', 'keygen', '--out', file])).code, 0);
  const v1 = (await cli(['public', 'encode', '77', '--key-file', file])).lines[0]!;
  assert.equal(v1[0], '1');
  const add = await cli(['public', 'keygen', '--key-file', file]);
  assert.equal(add.code, 0, add.stderr);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const v2 = (await cli(['public', 'encode', '77', '--key-file', file])).lines[0]!;
  assert.equal(v2[0], '2');
  assert.deepEqual((await cli(['public', 'decode', v1, v2, '--key-file', file])).lines, [
    '77',
    '77',
  ]);
  assert.equal((await cli(['public', 'retire', '1', '--key-file', file])).code, 0);
  const r = await cli(['public', 'decode', v1, '--key-file', file]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /key version 1, which is retired.*\[IDF_PUBLIC_KEY_RETIRED\]/);
  assert.deepEqual((await cli(['public', 'decode', v2, '--key-file', file])).lines, ['77']);
  const last = await cli(['public', 'retire', '2', '--key-file', file]);
  assert.equal(last.code, 2);
  assert.match(last.stderr, /last key not retired/);
});

test('usage mistakes exit 2 and name the problem', async () => {
  const env = { IDFORGE_PUBLIC_KEYS: KEYS };
  const cases: [string[], Record<string, string>, RegExp][] = [
    [['public'], env, /expected a subcommand/],
    [['public', 'frob'], env, /got "frob"/],
    [['public', 'encode', '1'], {}, /--key-file F or \$IDFORGE_PUBLIC_KEYS/],
    [['public', 'encode', '1', '--prefix', 'Inv'], env, /prefix: expected/],
    [['public', 'encode', '1', '--as', 'ulid'], env, /--as does not apply/],
    [['public', 'encode'], env, /at least one ID/],
    [['public', 'decode', 'x', '--key-file', join(dir, 'missing.txt')], {}, /cannot read/],
    [['public', 'keygen', '--version', '62'], {}, /--version/],
    [['public', 'keygen', '--bytes', '24'], {}, /--bytes: expected 16 or 32/],
    [['public', 'retire', '1'], {}, /--key-file/],
  ];
  for (const [argv, e, message] of cases) {
    const r = await cli(argv, '', e);
    assert.equal(r.code, 2, argv.join(' '));
    assert.match(r.stderr, message, argv.join(' '));
  }
});

test('a bad internal ID or a bad key file exits 1 with its code', async () => {
  const r = await cli(['public', 'encode', 'not-an-id', '18446744073709551616'], '', {
    IDFORGE_PUBLIC_KEYS: KEYS,
  });
  assert.equal(r.code, 1);
  assert.equal(r.stderr.match(/\[IDF_INVALID_ID\]/g)?.length, 2);
  const k = await cli(['public', 'encode', '1'], '', { IDFORGE_PUBLIC_KEYS: '1:short' });
  assert.equal(k.code, 1);
  assert.match(k.stderr, /\[IDF_PUBLIC_KEYS_INVALID\]/);
  assert.doesNotMatch(k.stderr, /short/);
});

test('a key file readable by others works, with a warning', async () => {
  const file = join(dir, 'open.txt');
  writeFileSync(file, `${KEYS}\n`, { mode: 0o644 });
  const r = await cli(['public', 'encode', '1', '--key-file', file]);
  assert.equal(r.code, 0);
  assert.match(r.stderr, /readable by others \(mode 0644\); chmod 600/);
});
