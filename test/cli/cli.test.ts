import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cli } from '../helpers/cli.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('idforge gen', () => {
  test('uuidv7 -n 1000: strictly increasing version-7 UUIDs, one per line', async () => {
    const r = await cli(['gen', 'uuidv7', '-n', '1000']);
    assert.equal(r.code, 0);
    assert.equal(r.lines.length, 1000);
    for (let i = 0; i < r.lines.length; i++) {
      assert.match(r.lines[i]!, UUID_RE);
      assert.equal(r.lines[i]![14], '7');
      if (i > 0) assert.ok(r.lines[i]! > r.lines[i - 1]!, `line ${i} increases`);
    }
  });

  for (const method of ['fraction', 'random']) {
    test(`uuidv7 --method ${method} is strictly increasing too`, async () => {
      const r = await cli(['gen', 'uuidv7', '-n', '500', '--method', method]);
      assert.equal(r.code, 0);
      for (let i = 1; i < r.lines.length; i++) assert.ok(r.lines[i]! > r.lines[i - 1]!);
    });
  }

  test('uuidv4, ulid, ksuid: right shape', async () => {
    assert.match((await cli(['gen', 'uuidv4'])).lines[0]!, UUID_RE);
    assert.match((await cli(['gen', 'ulid'])).lines[0]!, /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    assert.match((await cli(['gen', 'ksuid'])).lines[0]!, /^[0-9A-Za-z]{27}$/);
  });

  test('ulid --monotonic -n 2000 is strictly increasing', async () => {
    const r = await cli(['gen', 'ulid', '--monotonic', '-n', '2000']);
    for (let i = 1; i < r.lines.length; i++) assert.ok(r.lines[i]! > r.lines[i - 1]!);
  });

  test('--format json: a JSON array of strings (64-bit IDs never as numbers)', async () => {
    const r = await cli(['gen', 'snowflake', '--node', '7', '-n', '3', '--format', 'json']);
    assert.equal(r.code, 0);
    const ids = JSON.parse(r.stdout) as unknown[];
    assert.equal(ids.length, 3);
    for (const id of ids) {
      assert.equal(typeof id, 'string');
      assert.match(id as string, /^[0-9]+$/);
    }
  });

  test('--format hex and base64 print the bytes', async () => {
    const hex = await cli(['gen', 'snowflake', '--node', '1', '--format', 'hex', '-n', '2']);
    assert.match(hex.lines[0]!, /^[0-9a-f]{16}$/);
    const b64 = await cli(['gen', 'uuidv7', '--format', 'base64']);
    assert.equal(Buffer.from(b64.lines[0]!, 'base64').length, 16);
    const k = await cli(['gen', 'ksuid', '--format', 'hex']);
    assert.match(k.lines[0]!, /^[0-9a-f]{40}$/);
  });

  test('snowflake --node sets the node field; inspect reads it back', async () => {
    const g = await cli(['gen', 'snowflake', '--node', '1023', '-n', '5']);
    assert.equal(g.code, 0);
    const ins = await cli(['inspect', '--json', ...g.lines]);
    for (const line of ins.lines) {
      const o = JSON.parse(line);
      assert.equal(o.scheme, 'snowflake');
      assert.equal(o.fields.node, 1023);
    }
  });

  test('snowflake --layout twitter-2010 --field datacenter=1 --field worker=3', async () => {
    const g = await cli([
      'gen',
      'snowflake',
      '--layout',
      'twitter-2010',
      '--field',
      'datacenter=1',
      '--field',
      'worker=3',
    ]);
    assert.equal(g.code, 0, g.stderr);
    const o = JSON.parse(
      (await cli(['inspect', '--json', '--layout', 'twitter-2010', g.lines[0]!])).lines[0]!,
    );
    assert.equal(o.fields.datacenter, 1);
    assert.equal(o.fields.worker, 3);
    assert.ok(Math.abs(o.unixMs - Date.now()) < 60_000);
  });

  test('snowflake without a node identity is refused, naming what to pass', async () => {
    const r = await cli(['gen', 'snowflake']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--node ID/);
    const t = await cli(['gen', 'snowflake', '--layout', 'twitter-2010']);
    assert.match(t.stderr, /--field datacenter=VALUE --field worker=VALUE/);
  });

  test('an out-of-range node is refused, never masked', async () => {
    const r = await cli(['gen', 'snowflake', '--node', '1024']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /1023/);
    assert.equal(r.stdout, '');
  });

  test('usage mistakes exit 2 with a pointer to --help', async () => {
    for (const argv of [
      ['gen'],
      ['gen', 'uuidv9'],
      ['gen', 'uuidv7', '-n', 'x'],
      ['gen', 'uuidv7', '--format', 'xml'],
      ['gen', 'uuidv4', '--node', '1'],
      ['gen', 'uuidv7', '--bogus'],
      ['gen', 'snowflake', '--node', '1', '--layout', 'nope'],
      ['frobnicate'],
    ]) {
      const r = await cli(argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.match(r.stderr, /--help/, argv.join(' '));
    }
  });
});

describe('idforge inspect', () => {
  test('--json: one object per ID with input, scheme, version, unixMs, timestamp, fields', async () => {
    const r = await cli([
      'inspect',
      '--json',
      '017f22e2-79b0-7cc3-98c4-dc0c0c07398f', // RFC 9562 A.6
      '01ARZ3NDEKTSV4RRFFQ69G5FAV', // ULID spec README
      '0ujtsYcgvSTl8PAuAdqWYSMnLOv', // segmentio/ksuid README
      '175928847299117063', // Discord API reference, "Snowflakes"
      '--layout',
      'discord',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const [u, l, k, s] = r.lines.map((x) => JSON.parse(x));
    assert.deepEqual(
      { scheme: u.scheme, version: u.version, unixMs: u.unixMs, timestamp: u.timestamp },
      { scheme: 'uuid', version: 7, unixMs: 1645557742000, timestamp: '2022-02-22T19:22:22.000Z' },
    );
    assert.equal(l.scheme, 'ulid');
    assert.equal(l.unixMs, 1469922850259);
    assert.equal(k.scheme, 'ksuid');
    assert.equal(k.timestamp, '2017-10-10T04:00:47.000Z');
    assert.equal(s.scheme, 'snowflake');
    assert.equal(s.timestamp, '2016-04-30T11:18:25.796Z');
    assert.deepEqual(s.fields, { worker: 1, process: 0, increment: 7 });
  });

  test('invalid input: error names what is wrong, exit 1, valid ones still decoded', async () => {
    const r = await cli([
      'inspect',
      '--json',
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      '01ARZ3NDEKTSV4RRFFQ69G5FAU', // U is not in Crockford's alphabet
      '81ARZ3NDEKTSV4RRFFQ69G5FAV', // first character above 7: overflow
      'hello',
    ]);
    assert.equal(r.code, 1);
    const o = r.lines.map((x) => JSON.parse(x));
    assert.equal(o[0].error, undefined);
    assert.match(o[1].error, /position 25/);
    assert.match(o[2].error, /overflow|above|larger|exceed/i);
    assert.match(o[3].error, /scheme/);
  });

  test('--scheme uuidv4 rejects a v7 (the version must match)', async () => {
    const r = await cli([
      'inspect',
      '--scheme',
      'uuidv4',
      '--json',
      '017f22e2-79b0-7cc3-98c4-dc0c0c07398f',
    ]);
    assert.equal(r.code, 1);
    assert.match(JSON.parse(r.lines[0]!).error, /version/);
  });

  test('--lenient reads I, L and O as Crockford intended', async () => {
    const strict = await cli(['inspect', '--json', '01ARZ3NDEKTSV4RRFFQ69G5FAO']);
    assert.equal(strict.code, 1);
    const lenient = await cli(['inspect', '--json', '--lenient', '01ARZ3NDEKTSV4RRFFQ69G5FAO']);
    assert.equal(lenient.code, 0);
    const same = await cli(['inspect', '--json', '01ARZ3NDEKTSV4RRFFQ69G5FA0']);
    assert.equal(JSON.parse(lenient.lines[0]!).unixMs, JSON.parse(same.lines[0]!).unixMs);
  });

  test('reads IDs from standard input with -', async () => {
    const r = await cli(
      ['inspect', '--json', '-'],
      '01ARZ3NDEKTSV4RRFFQ69G5FAV\n0ujtsYcgvSTl8PAuAdqWYSMnLOv\n',
    );
    assert.equal(r.lines.length, 2);
  });

  test('the table form is readable', async () => {
    const r = await cli(['inspect', '175928847299117063', '--layout', 'discord']);
    assert.match(r.stdout, /^input\s+175928847299117063$/m);
    assert.match(r.stdout, /^timestamp\s+2016-04-30T11:18:25\.796Z$/m);
    assert.match(r.stdout, /^worker\s+1$/m);
  });
});

describe('idforge convert', () => {
  // RFC 9562 Appendix A.1 (v1) and A.5 (v6) describe the same instant and node.
  const v1 = 'c232ab00-9414-11ec-b3c8-9f6bdeced846';
  const v6 = '1ec9414c-232a-6b00-b3c8-9f6bdeced846';

  test('v1 → v6 → v1', async () => {
    assert.deepEqual((await cli(['convert', v1, '--to', 'v6'])).lines, [v6]);
    assert.deepEqual((await cli(['convert', v6, '--to', 'v1'])).lines, [v1]);
  });

  test('mysql-swap and back (UUID_TO_BIN(u, 1) / BIN_TO_UUID(b, 1))', async () => {
    const swapped = (await cli(['convert', v1, '--to', 'mysql-swap'])).lines[0]!;
    assert.equal(swapped, '11ec9414c232ab00b3c89f6bdeced846');
    const back = await cli(['convert', swapped, '--to', 'uuid', '--from', 'mysql-swap']);
    assert.deepEqual(back.lines, [v1]);
  });

  test('ulid ↔ uuid and hex', async () => {
    const u = (await cli(['convert', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--to', 'uuid'])).lines[0]!;
    assert.equal(u, '01563e3a-b5d3-d676-4c61-efb99302bd5b');
    assert.deepEqual((await cli(['convert', u, '--to', 'ulid'])).lines, [
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    ]);
    assert.deepEqual((await cli(['convert', u, '--to', 'hex'])).lines, [
      '01563e3ab5d3d6764c61efb99302bd5b',
    ]);
  });

  test('a bad input is reported on stderr with exit 1; --to is required', async () => {
    const r = await cli(['convert', 'not-a-uuid', '--to', 'v6']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /not-a-uuid/);
    assert.equal((await cli(['convert', v1])).code, 2);
  });
});

describe('idforge layouts', () => {
  test('table lists every preset; baidu shows its expired horizon', async () => {
    const r = await cli(['layouts']);
    assert.equal(r.code, 0);
    for (const name of ['default', 'twitter-2010', 'discord', 'instagram', 'sonyflake', 'baidu']) {
      assert.match(r.stdout, new RegExp(`^${name}\\s`, 'm'));
    }
    assert.match(r.stdout, /^baidu\s.*2024-11-\d\d EXPIRED/m);
  });

  test('--json: horizon, negative date, rate cap, max nodes', async () => {
    const all = JSON.parse((await cli(['layouts', '--json'])).stdout);
    const d = all.find((l: { name: string }) => l.name === 'default');
    assert.equal(d.maxIdsPerSecondPerNode, 4_096_000);
    assert.equal(d.maxNodes, 1024);
    assert.equal(d.horizon, new Date(Date.UTC(2025, 0, 1) + 2 ** 41).toISOString());
    const ig = all.find((l: { name: string }) => l.name === 'instagram');
    assert.equal(ig.negative, new Date(1314220021721 + 2 ** 40).toISOString());
    assert.equal(all.find((l: { name: string }) => l.name === 'baidu').expired, true);
  });
});

test('--help and --version', async () => {
  const h = await cli(['--help']);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /Usage: idforge <command>/);
  for (const c of ['gen', 'inspect', 'convert', 'layouts']) {
    const r = await cli([c, '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, new RegExp(`Usage: idforge ${c}`));
  }
  assert.match((await cli(['--version'])).stdout, /^\d+\.\d+\.\d+\n$/);
});
