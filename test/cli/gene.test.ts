// `idforge gen snowflake --gene-from ID | --gene N` (issue 13): IDs that route to the parent's
// shard, and usage errors (exit 2) for every way the options can be wrong.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { decompose, getLayout } from '../../packages/idforge/src/core/index.js';
import { shardOf } from '../../packages/idforge/src/snowflake/index.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const gene8 = getLayout('gene-8');

describe('idforge gen snowflake --gene-from / --gene', () => {
  test("every ID carries the parent ID's low 8 bits, increasing", async () => {
    const user = '18446744073709551615'; // 2^64 - 1: any 64-bit ID, of any layout
    const r = await cli([
      'gen',
      'snowflake',
      '--layout',
      'gene-8',
      '--node',
      '4',
      '--gene-from',
      user,
      '-n',
      '300',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.lines.length, 300);
    const ids = r.lines.map(BigInt);
    for (let i = 0; i < ids.length; i++) {
      for (const n of [1, 2, 16, 256]) assert.equal(shardOf(ids[i]!, n), shardOf(user, n));
      assert.equal(decompose(gene8, ids[i]!).fields.node, 4);
      if (i > 0) assert.ok(ids[i]! > ids[i - 1]!);
    }
  });

  test('--store: a leased worker ID, and the gene from the parent on every ID', async () => {
    const { dir, remove: removeDir } = tempDir('idforge-gene-');
    try {
      const store = `sqlite:${join(dir, 'leases.db')}`;
      const argv = ['gen', 'snowflake', '--layout', 'gene-8', '--store', store, '-n', '50'];
      const r = await cli([...argv, '--gene-from', '1234']);
      assert.equal(r.code, 0, r.stderr);
      const ids = r.lines.map(BigInt);
      assert.equal(ids.length, 50);
      for (const id of ids) assert.equal(shardOf(id, 256), 1234 % 256);
      // Without a parent: a random gene per ID, not one per batch.
      const random = await cli(argv);
      assert.equal(random.code, 0, random.stderr);
      assert.ok(new Set(random.lines.map((l) => shardOf(l, 256))).size > 10);
    } finally {
      removeDir();
    }
  });

  test('--gene N sets the gene; none gives random genes', async () => {
    const r = await cli([
      'gen',
      'snowflake',
      '--layout',
      'gene-8',
      '--node',
      '1',
      '--gene',
      '200',
      '-n',
      '3',
    ]);
    assert.equal(r.code, 0, r.stderr);
    for (const id of r.lines) assert.equal(shardOf(id, 256), 200);
    const random = await cli(['gen', 'snowflake', '--layout', 'gene-8', '--node', '1', '-n', '64']);
    assert.equal(random.code, 0, random.stderr);
    // 64 random genes of 8 bits: all equal with probability 2^-504
    assert.ok(new Set(random.lines.map((id) => shardOf(id, 256))).size > 1);
  });

  test('usage errors: exit 2 with a message naming the fix', async () => {
    const gen = ['gen', 'snowflake', '--layout', 'gene-8', '--node', '1'];
    const cases: [string[], RegExp][] = [
      [
        ['gen', 'snowflake', '--node', '1', '--gene-from', '5'],
        /--gene-from: layout "default" has no gene field; the layouts with one: gene-8 \(8 bits\)/,
      ],
      [
        ['gen', 'snowflake', '--layout', 'discord', '--gene', '5'],
        /--gene: layout "discord" has no gene field.*gene-8/,
      ],
      [['gen', 'ulid', '--gene-from', '5'], /apply to snowflake only/],
      [
        [...gen, '--gene-from', 'abc'],
        /--gene-from: expected a 64-bit ID in decimal.*"a" at position 0/,
      ],
      [[...gen, '--gene-from', '-5'], /--gene-from: expected a 64-bit ID.*position 0/],
      [[...gen, '--gene-from', '007'], /--gene-from:.*leading zero/],
      [[...gen, '--gene-from', '18446744073709551616'], /--gene-from:.*above 2\^64-1/],
      [[...gen, '--gene-from', '9'.repeat(5000)], /--gene-from:.*a 5000-digit number/],
      [[...gen, '--gene-from', ''], /--gene-from:.*empty/],
      [[...gen, '--gene', '256'], /--gene: expected 0 to 255, got 256/],
      [[...gen, '--gene', 'x'], /--gene: expected an integer from 0 to 255/],
      [[...gen, '--gene', '1', '--gene-from', '1'], /--gene-from and --gene: give one/],
      [
        ['gen', 'snowflake', '--layout', 'gene-8', '--gene', '1'],
        /needs an explicit node identity/,
      ],
      [
        ['gen', 'snowflake', '--store', 'sqlite::memory:', '--gene', '1'],
        /--gene: layout "default" has no gene field; the layouts with one: gene-8 \(8 bits\)/,
      ],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.match(r.stderr, message, argv.join(' '));
      assert.ok(r.stderr.length < 600, 'the message does not echo a huge ID');
      assert.equal(r.stdout, '');
    }
  });

  test('the layouts table shows the gene field and --help documents the options', async () => {
    const layouts = await cli(['layouts']);
    assert.match(
      layouts.stdout,
      /^gene-8\s+sign:1 time:41 node:8 sequence:6 gene:8\s.*64,000\s+256$/m,
    );
    const json = JSON.parse((await cli(['layouts', '--json'])).stdout);
    const g = json.find((l: { name: string }) => l.name === 'gene-8');
    assert.deepEqual(g.bits.at(-1), { name: 'gene', bits: 8, role: 'gene' });
    const help = await cli(['gen', '--help']);
    assert.match(help.stdout, /--gene-from ID/);
    assert.match(help.stdout, /--gene N/);
  });

  test('inspect --layout gene-8 shows the gene', async () => {
    const r = await cli(['inspect', '--layout', 'gene-8', '--json', '123456789012345']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).fields.gene, Number(123456789012345n & 255n));
  });
});
