// idforge inspect and convert after issue 9 (§6, §9): Nil/Max named in text and --json, `value`
// (canonical) in --json, the input echoed exactly, arguments not trimmed but standard input
// trimmed, UUIDs as 32 hex / {…} / urn:uuid:, --to hex for KSUID and Snowflake, errors echo at
// most ~100 characters of the input, and a hint to pass --layout for a time in the future.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cli } from '../helpers/cli.js';

const V7 = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f';
const json = async (argv: string[], stdin?: string) =>
  (await cli(['inspect', '--json', ...argv], stdin)).lines.map((l) => JSON.parse(l));

describe('inspect: Nil and Max UUIDs', () => {
  test('--json names the special value, without version or variant', async () => {
    const [nil, max] = await json([
      '00000000-0000-0000-0000-000000000000',
      'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
    ]);
    assert.deepEqual(nil, {
      input: '00000000-0000-0000-0000-000000000000',
      scheme: 'uuid',
      value: '00000000-0000-0000-0000-000000000000',
      hex: '0'.repeat(32),
      special: 'nil',
    });
    assert.equal(max.special, 'max');
    assert.equal(max.value, 'ffffffff-ffff-ffff-ffff-ffffffffffff');
    assert.equal(max.input, 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF');
    assert.equal('version' in max, false);
  });

  test('text names it with its RFC section; no version row', async () => {
    const r = await cli(['inspect', '00000000-0000-0000-0000-000000000000']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^special +Nil UUID \(RFC 9562 §5\.9\)$/m);
    assert.doesNotMatch(r.stdout, /version/);
    const m = await cli(['inspect', 'ffffffff-ffff-ffff-ffff-ffffffffffff']);
    assert.match(m.stdout, /^special +Max UUID \(RFC 9562 §5\.10\)$/m);
  });
});

describe('inspect: forms, value and whitespace', () => {
  test('32 hex digits (what gen --format hex prints), {…} and urn:uuid: are UUIDs', async () => {
    const hex = (await cli(['gen', 'uuidv7', '--format', 'hex'])).lines[0]!;
    const rs = await json([hex, `{${V7}}`, `urn:uuid:${V7}`, V7.toUpperCase()]);
    assert.equal(rs[0].scheme, 'uuid');
    assert.equal(rs[0].version, 7);
    assert.equal(rs[0].hex, hex);
    for (const r of rs.slice(1)) assert.equal(r.value, V7);
    assert.deepEqual(
      rs.map((r) => r.input),
      [hex, `{${V7}}`, `urn:uuid:${V7}`, V7.toUpperCase()],
    );
  });

  test('an argument with surrounding spaces is an error echoing it exactly', async () => {
    const r = await cli(['inspect', '--json', ' 175928847299117063']);
    assert.equal(r.code, 1);
    const o = JSON.parse(r.lines[0]!);
    assert.equal(o.input, ' 175928847299117063');
    assert.match(o.error, /surrounding whitespace/);
  });

  test('standard input is trimmed explicitly (one ID per word)', async () => {
    const rs = await json(['-'], `  ${V7}  \n\t175928847299117063\r\n`);
    assert.deepEqual(
      rs.map((r) => r.value),
      [V7, '175928847299117063'],
    );
  });
});

describe('inspect: errors echo at most ~100 characters', () => {
  test('a 1 MB line is cut in text and --json', async () => {
    const big = 'x'.repeat(1_000_000);
    const t = await cli(['inspect', big]);
    assert.equal(t.code, 1);
    assert.ok(t.stderr.length < 400, `stderr is ${t.stderr.length} characters`);
    assert.match(t.stderr, /\(1000000 characters\)/);
    const j = await cli(['inspect', '--json', big]);
    assert.ok(j.stdout.length < 400);
    const o = JSON.parse(j.lines[0]!);
    assert.equal(o.inputLength, 1_000_000);
    assert.ok(o.input.length <= 130);
  });

  test('a million digits (a Snowflake range error) is cut too', async () => {
    const t = await cli(['inspect', '1'.repeat(1_000_000), '--scheme', 'snowflake']);
    assert.equal(t.code, 1);
    assert.ok(t.stderr.length < 400, `stderr is ${t.stderr.length} characters`);
  });
});

describe('inspect: a time in the future hints at --layout', () => {
  test('the largest ID of the default layout (year 2094) gets the hint', async () => {
    const id = ((1n << 63n) - 1n).toString();
    const t = await cli(['inspect', id]);
    assert.equal(t.code, 0);
    assert.match(t.stderr, /lies in the future under layout "default".*--layout/);
    const [o] = await json([id]);
    assert.match(o.hint, /--layout/);
  });

  test('a past ID gets none', async () => {
    const t = await cli(['inspect', '175928847299117063', '--layout', 'discord']);
    assert.equal(t.stderr, '');
    const [o] = await json(['175928847299117063', '--layout', 'discord']);
    assert.equal(o.hint, undefined);
  });
});

describe('convert --to hex', () => {
  test('UUID, ULID, KSUID and Snowflake', async () => {
    const r = await cli([
      'convert',
      '--to',
      'hex',
      V7,
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      'aWgEPTl1tmebfsQzFP4bxwgy80V',
      '175928847299117063',
      '0',
      `urn:uuid:${V7}`,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.lines, [
      '017f22e279b07cc398c4dc0c0c07398f',
      '01563e3ab5d3d6764c61efb99302bd5b',
      'f'.repeat(40),
      '0271065ac1020007',
      '0'.repeat(16),
      '017f22e279b07cc398c4dc0c0c07398f',
    ]);
  });

  test('errors echo at most ~100 characters of the input', async () => {
    const r = await cli(['convert', '--to', 'hex', 'y'.repeat(1_000_000)]);
    assert.equal(r.code, 1);
    assert.ok(r.stderr.length < 400, `stderr is ${r.stderr.length} characters`);
  });
});
