// idforge shard: the bucket and salted key of each ID (64-bit decimal, UUID, ULID, KSUID), from
// the arguments or standard input, as text or JSON lines; a bad ID exits 1 with its code while
// the others are printed; usage mistakes (no --buckets, out of range, a malformed key, an
// unknown option) exit 2 with a pointer to --help.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { saltedKey } from '../../packages/idforge/src/shard/index.js';
import { cli } from '../helpers/cli.js';

const IDS = [
  '175928847299117063',
  '0190a2b4-c5d6-7e8f-9a0b-1c2d3e4f5061',
  '01ARZ3NDEKTSV4RRFFQ69G5FAV',
];

test('one line per ID: bucket, salted key hex, the ID as given', async () => {
  const r = await cli(['shard', ...IDS, '--buckets', '16']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.lines, [
    '11 000b0271065ac1020007 175928847299117063',
    '4 00040190a2b4c5d67e8f9a0b1c2d3e4f5061 0190a2b4-c5d6-7e8f-9a0b-1c2d3e4f5061',
    '10 000a01563e3ab5d3d6764c61efb99302bd5b 01ARZ3NDEKTSV4RRFFQ69G5FAV',
  ]);
  for (const [i, id] of IDS.entries()) {
    const s = saltedKey(id, { buckets: 16 });
    assert.equal(r.lines[i], `${s.bucket} ${s.hex} ${id}`);
  }
});

test('--key changes the buckets; - reads standard input; --json prints JSON lines', async () => {
  const key = '000102030405060708090a0b0c0d0e0f';
  const r = await cli(['shard', '-', '--buckets', '16', '--key', key, '--json'], ' 42\n\n7 \n');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    r.lines.map((l) => JSON.parse(l)),
    ['42', '7'].map((id) => {
      const s = saltedKey(id, { buckets: 16, key });
      return { id, bucket: s.bucket, key: s.hex };
    }),
  );
  assert.equal(JSON.parse(r.lines[0]!).bucket, 2); // the default key puts 42 in bucket 6
});

test('a bad ID exits 1 with its code on standard error; the others are still printed', async () => {
  const r = await cli(['shard', '42', 'nope', '18446744073709551616', '7', '--buckets', '4']);
  assert.equal(r.code, 1);
  assert.equal(r.lines.length, 2);
  assert.match(r.stderr, /idforge shard: nope: .*\[IDF_INVALID_ID\]/);
  assert.match(r.stderr, /18446744073709551616: .*2\^64 - 1 \[IDF_INVALID_ID\]/);
  const j = await cli(['shard', 'nope', '--buckets', '4', '--json']);
  assert.equal(j.code, 1);
  assert.equal(JSON.parse(j.lines[0]!).error.code, 'IDF_INVALID_ID');
});

test('usage mistakes exit 2 with a clear message and a pointer to --help', async () => {
  const cases: [string[], RegExp][] = [
    [['shard', '42'], /expected --buckets N \(1 to 65536\)/],
    [['shard', '42', '--buckets', '0'], /--buckets: expected 1 to 65536, got 0/],
    [['shard', '42', '--buckets', '65537'], /--buckets: expected 1 to 65536/],
    [['shard', '42', '--buckets', 'many'], /--buckets: expected an integer/],
    [['shard', '42', '--buckets', '-3'], /--buckets: expected 1 to 65536, got -3/],
    [['shard', '42', '--buckets', '4', '--key', 'abc'], /--key: expected 32 hex digits/],
    [['shard', '42', '--buckets', '4', '--nope'], /^idforge shard: unknown flag "--nope"\n/],
    [['shard', '--buckets', '4'], /expected at least one ID/],
  ];
  for (const [argv, message] of cases) {
    const r = await cli(argv);
    assert.equal(r.code, 2, argv.join(' '));
    assert.match(r.stderr, message, argv.join(' '));
    assert.match(r.stderr, /Run "idforge shard --help" for usage/, argv.join(' '));
    assert.equal(r.stdout, '');
  }
});

test('--help prints the usage; the main help lists the command', async () => {
  const h = await cli(['shard', '--help']);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /^Usage: idforge shard <id\.\.\.> --buckets N/);
  assert.match((await cli(['--help'])).stdout, /\n {2}shard <id\.\.\.> +/);
  assert.equal((await cli(['help', 'shard'])).stdout, h.stdout);
});
