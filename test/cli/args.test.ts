// The CLI in the tool's own words (issue 9 §4, §9): argument errors prefixed once, naming the
// option as the command line spells it and the range it must lie in; unknown top-level flags;
// the environment passed in through io, never read from process.env; one table of output
// formats; one text of store schemes in every store command's --help; `leases --json` and
// `plan --writer`; `seq create` on an existing Redis counter refused like a table store's tag.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { bytes64, FORMATS, formatId, IdOutput } from '../../packages/idforge/src/cli/formats.js';
import { cli } from '../helpers/cli.js';
import { freshNamespaceUrl } from '../helpers/namespaces.js';
import { serviceSkip } from '../helpers/services.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-cli-args-');

describe('argument errors', () => {
  test('prefixed once: "idforge gen: …", "idforge seq create: …", never doubled', async () => {
    const cases: [string[], string][] = [
      [
        ['gen'],
        'idforge gen: expected a scheme: uuidv4, uuidv7, ulid, ksuid, snowflake or typeid\n',
      ],
      [['gen', 'uuidv7', 'x'], 'idforge gen: unexpected argument "x"\n'],
      [['seq', 'nope'], 'idforge seq: expected create, next, show or step, got "nope"\n'],
      [['seq', 'next'], 'idforge seq next: expected a tag\n'],
      [['plan'], 'idforge plan: expected --writers N\n'],
      [['plan', '--writers', '2', 'x'], 'idforge plan: unexpected argument "x"\n'],
      [['ticket'], 'idforge ticket: expected setup or next\n'],
      [['ticket', 'next'], 'idforge ticket next: expected a tag\n'],
      [['layouts', 'x'], 'idforge layouts: unexpected argument "x"\n'],
      [['leases', 'x'], 'idforge leases: unexpected argument "x"\n'],
    ];
    for (const [argv, first] of cases) {
      const r = await cli(argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.equal(`${r.stderr.split('\n')[0]!}\n`, first, argv.join(' '));
      assert.doesNotMatch(r.stderr, /idforge (\w+)( \w+)?: \1[ :]/, argv.join(' '));
    }
  });

  test('a --layout typo is named with the close layout, on every command that takes one', async () => {
    const layouts = 'default, twitter-2010, discord, instagram, sonyflake, baidu, gene-8';
    for (const [argv, typo, near] of [
      [['gen', 'snowflake', '--layout', 'twiter-2010'], 'twiter-2010', 'twitter-2010'],
      [['inspect', '175928847299117063', '--layout', 'dicsord'], 'dicsord', 'discord'],
      [['sql', '--layout', 'gene8'], 'gene8', 'gene-8'],
    ] as const) {
      const r = await cli([...argv]);
      assert.equal(r.code, 2, argv.join(' '));
      assert.equal(
        r.stderr.split('\n')[0],
        `idforge ${argv[0]}: --layout: unknown layout "${typo}" (did you mean ${near}?); ` +
          `one of ${layouts} (idforge layouts)`,
      );
    }
    const far = await cli(['gen', 'snowflake', '--layout', 'zzzzzz']);
    assert.equal(
      far.stderr.split('\n')[0],
      `idforge gen: --layout: unknown layout "zzzzzz"; one of ${layouts} (idforge layouts)`,
    );
  });

  test('-n -1 (and --count=-1, -n 0) says the range', async () => {
    for (const argv of [
      ['gen', 'uuidv7', '-n', '-1'],
      ['gen', 'uuidv7', '--count', '-1'],
      ['gen', 'uuidv7', '--count=-1'],
    ]) {
      const r = await cli(argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.match(r.stderr, /^idforge gen: --count: expected 1 to 10000000, got -1\n/, r.stderr);
    }
    const zero = await cli(['seq', 'next', 'a', '-n', '0']);
    assert.match(zero.stderr, /--count: expected 1 to 10000000, got 0/);
    const word = await cli(['gen', 'uuidv7', '-n', 'x']);
    assert.match(word.stderr, /--count: expected an integer from 1 to 10000000, got "x"/);
    const start = await cli(['seq', 'create', 'a', '--start', '-5']);
    assert.match(start.stderr, /--start: expected 1 to 2\^63 - 1, got -5/);
  });

  test('--field is named as the CLI spells it, with its layout and range', async () => {
    const base = ['gen', 'snowflake', '--layout', 'twitter-2010'];
    const cases: [string[], RegExp][] = [
      [
        ['--field', 'wrk=1'],
        /--field wrk: layout "twitter-2010" has no node field "wrk" \(its node fields: datacenter, worker\)/,
      ],
      [
        ['--field', 'worker=99', '--field', 'datacenter=1'],
        /--field worker: expected 0 to 31, got 99/,
      ],
      [
        ['--field', 'worker=-1', '--field', 'datacenter=1'],
        /--field worker: expected 0 to 31, got -1/,
      ],
      [['--field', 'worker'], /--field: expected NAME=VALUE, got "worker"/],
      [['--field', 'worker=3'], /pass --field datacenter=VALUE/],
      [
        ['--node', '1'],
        /--node: layout "twitter-2010" has no field "node"; pass --field datacenter=VALUE --field worker=VALUE/,
      ],
    ];
    for (const [extra, message] of cases) {
      const r = await cli([...base, ...extra]);
      assert.equal(r.code, 2, extra.join(' '));
      assert.match(r.stderr, message, r.stderr);
      assert.doesNotMatch(r.stderr, /SnowflakeGenerator/, 'the library name is not the CLI word');
    }
    const node = await cli(['gen', 'snowflake', '--node', '1024']);
    assert.match(node.stderr, /^idforge gen: --node: expected 0 to 1023, got 1024\n/);
    const ok = await cli([...base, '--field', 'datacenter=1', '--field', 'worker=31']);
    assert.equal(ok.code, 0, ok.stderr);
  });

  test('an unknown top-level flag is a flag, not a command', async () => {
    for (const flag of ['--bogus', '-x']) {
      const r = await cli([flag]);
      assert.equal(r.code, 2);
      assert.equal(r.stderr, `idforge: unknown flag "${flag}"\nRun "idforge --help" for usage.\n`);
    }
    const cmd = await cli(['frobnicate']);
    assert.match(cmd.stderr, /^idforge: unknown command "frobnicate"/);
    const proto = await cli(['toString']);
    assert.match(proto.stderr, /^idforge: unknown command "toString"/);
  });
});

describe('the environment comes in through io', () => {
  test('$IDFORGE_STORE of io.env is the default store; process.env is not read', async () => {
    const store = `sqlite:${join(dir, 'env.db')}`;
    const saved = process.env.IDFORGE_STORE;
    process.env.IDFORGE_STORE = `sqlite:${join(dir, 'process-env.db')}`;
    try {
      const r = await cli(['seq', 'create', 'envtag'], '', { IDFORGE_STORE: store });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /env\.db/);
      assert.ok(existsSync(join(dir, 'env.db')));
      assert.ok(!existsSync(join(dir, 'process-env.db')), 'process.env was read');
    } finally {
      if (saved === undefined) delete process.env.IDFORGE_STORE;
      else process.env.IDFORGE_STORE = saved;
    }
  });
});

describe('output formats: one table', () => {
  test('64-bit and 128-bit IDs in text, json, hex and base64', () => {
    assert.deepEqual(Object.keys(FORMATS), ['text', 'json', 'hex', 'base64']);
    const id64 = 0x0123456789abcdefn;
    assert.equal(formatId('text', id64), '81985529216486895');
    assert.equal(formatId('hex', id64), '0123456789abcdef');
    assert.equal(formatId('base64', id64), 'ASNFZ4mrze8=');
    assert.deepEqual([...bytes64(1n)], [0, 0, 0, 0, 0, 0, 0, 1]);
    const id128 = new Uint8Array(16).fill(0xab);
    assert.equal(formatId('hex', id128), 'ab'.repeat(16));
    let out = '';
    const json = new IdOutput('json', { write: (s: string) => (out += s) });
    json.add(id64);
    json.add('01ARZ3NDEKTSV4RRFFQ69G5FAV');
    json.end();
    assert.equal(out, '["81985529216486895","01ARZ3NDEKTSV4RRFFQ69G5FAV"]\n');
  });

  test('gen snowflake --format hex is the 64 bits; convert --to hex agrees', async () => {
    const text = await cli(['gen', 'snowflake', '--node', '7']);
    const id = BigInt(text.lines[0]!);
    const conv = await cli(['convert', id.toString(), '--to', 'hex']);
    assert.equal(conv.lines[0], id.toString(16).padStart(16, '0'));
    const hex = await cli(['gen', 'snowflake', '--node', '7', '-n', '3', '--format', 'hex']);
    assert.equal(hex.lines.length, 3);
    for (const l of hex.lines) assert.match(l, /^[0-9a-f]{16}$/);
    const b64 = await cli(['gen', 'uuidv7', '-n', '2', '--format', 'base64']);
    for (const l of b64.lines) assert.equal(Buffer.from(l, 'base64').length, 16);
    const bad = await cli(['gen', 'uuidv7', '--format', 'xml']);
    assert.match(bad.stderr, /--format: expected one of text, json, hex, base64, got "xml"/);
  });
});

describe('store commands', () => {
  test('every store command lists the same schemes in --help, file: included', async () => {
    const blocks: string[] = [];
    for (const c of ['gen', 'leases', 'migrate', 'seq']) {
      const r = await cli([c, '--help']);
      const at = r.stdout.indexOf('  --store URL');
      assert.ok(at >= 0, c);
      const block = r.stdout.slice(at, r.stdout.indexOf('keeps several applications apart', at));
      for (const scheme of ['sqlite:', 'file:', 'postgres://', 'mysql://', 'redis://', 'etcd://']) {
        assert.ok(block.includes(scheme), `${c} --help lists ${scheme}`);
      }
      blocks.push(block);
    }
    assert.equal(new Set(blocks).size, 1, 'one shared text');
  });

  test('leases --json prints [] when there is none', async () => {
    const store = `sqlite:${join(dir, 'leases.db')}`;
    assert.equal((await cli(['migrate', '--store', store])).code, 0);
    const r = await cli(['leases', '--store', store, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '[]\n');
  });
});

describe('plan', () => {
  test('--writer i prints only writer i, runnable; the overview runs nothing', async () => {
    const one = await cli(['plan', '--writers', '3', '--writer', '2']);
    assert.equal(one.code, 0, one.stderr);
    const sql = one.lines.filter((l) => !l.startsWith('--'));
    assert.deepEqual(sql, [
      'SET GLOBAL auto_increment_increment = 3;',
      'SET GLOBAL auto_increment_offset = 2;',
    ]);
    assert.match(one.stdout, /-- writer 2: 2, 5, 8, \.\.\./);
    assert.doesNotMatch(one.stdout, /-- writer [13]:/);
    const all = await cli(['plan', '--writers', '3']);
    assert.deepEqual(
      all.lines.filter((l) => !l.startsWith('--')),
      [],
      'piping the overview into a server configures nothing',
    );
    assert.match(all.stdout, /-- {3}SET GLOBAL auto_increment_offset = 3;/);
    assert.match(all.stdout, /--writer I/);
    const bad = await cli(['plan', '--writers', '3', '--writer', '4']);
    assert.match(bad.stderr, /^idforge plan: --writer: expected 1 to 3, got 4/);
  });

  test('--dialect postgres creates the sequence once', async () => {
    const r = await cli(['plan', '--writers', '2', '--writer', '2', '--dialect', 'postgres']);
    const creates = r.lines.filter((l) => /^CREATE SEQUENCE/.test(l));
    assert.deepEqual(creates, [
      'CREATE SEQUENCE ids AS bigint INCREMENT BY 2 START WITH 2 MINVALUE 1 NO CYCLE;',
    ]);
    const all = await cli(['plan', '--writers', '2', '--dialect', 'postgres']);
    assert.equal(all.lines.filter((l) => /^CREATE SEQUENCE/.test(l)).length, 0);
    const single = await cli(['plan', '--writers', '1', '--dialect', 'postgres']);
    assert.equal(single.lines.filter((l) => /^CREATE SEQUENCE/.test(l)).length, 1);
    const json = await cli(['plan', '--writers', '3', '--writer', '3', '--json']);
    assert.deepEqual(
      JSON.parse(json.stdout).perWriter.map((w: { writer: number }) => w.writer),
      [3],
    );
  });
});

describe('seq create on a Redis counter', async () => {
  const skip = await serviceSkip('Redis', '127.0.0.1', 6379);
  const url = freshNamespaceUrl('redis', 'cliargs');
  after(async () => {
    if (skip !== false) return;
    const ns = new URL(url).searchParams.get('namespace')!;
    const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
    await redis.connect();
    const keys = await redis.keys(`${ns}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  test('an existing counter is refused (IDF_TAG_EXISTS) and left unchanged', { skip }, async () => {
    const marks = `sqlite:${join(dir, 'marks.db')}`;
    const created = await cli(['seq', 'create', 'orders', '--store', url, '--start', '100']);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /next number above 99/);
    const again = await cli(['seq', 'create', 'orders', '--store', url, '--start', '5000']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists and was left unchanged.*\[IDF_TAG_EXISTS\]/);
    const next = await cli(['seq', 'next', 'orders', '--store', url, '--marks', marks]);
    assert.equal(next.code, 0, next.stderr);
    assert.equal(next.lines[0], '100');
  });
});
