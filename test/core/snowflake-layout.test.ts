import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { InvalidLayoutError } from '../../src/core/errors.js';
import {
  defineLayout,
  describeLayout,
  isLayout,
  type LayoutSpec,
  layoutYearsLeft,
} from '../../src/core/snowflake/layout.js';
import { getLayout, LAYOUTS, PRESET_NAMES } from '../../src/core/snowflake/presets.js';

const base: LayoutSpec = {
  name: 'custom',
  epoch: '2025-01-01T00:00:00Z',
  fields: [
    { name: 'time', bits: 41 },
    { name: 'node', bits: 10 },
    { name: 'sequence', bits: 12 },
  ],
};

const withFields = (fields: LayoutSpec['fields'], more: Partial<LayoutSpec> = {}): LayoutSpec => ({
  ...base,
  ...more,
  fields,
});

describe('defineLayout: every invalid definition names the problem and the field', () => {
  const cases: { title: string; spec: LayoutSpec; field: string; message: RegExp }[] = [
    {
      title: '65 bits without a sign bit',
      spec: withFields(
        [
          { name: 'time', bits: 42 },
          { name: 'node', bits: 11 },
          { name: 'sequence', bits: 12 },
        ],
        { signBit: false },
      ),
      field: 'bits',
      message: /65 bits: at most 64/,
    },
    {
      title: 'a sign bit with 64 bits of fields',
      spec: withFields([
        { name: 'time', bits: 42 },
        { name: 'node', bits: 10 },
        { name: 'sequence', bits: 12 },
      ]),
      field: 'bits',
      message: /64 bits plus the sign bit: at most 63 fit/,
    },
    {
      title: 'duplicate names',
      spec: withFields([
        { name: 'time', bits: 41 },
        { name: 'node', bits: 5 },
        { name: 'node', bits: 5 },
        { name: 'sequence', bits: 12 },
      ]),
      field: 'node',
      message: /duplicate field name "node"/,
    },
    ...[0, -3, 12.5, Number.NaN, 54].map((bits) => ({
      title: `width ${bits}`,
      spec: withFields([
        { name: 'time', bits: 41 },
        { name: 'node', bits },
        { name: 'sequence', bits: 12 },
      ]),
      field: 'node',
      message: /field "node" has .* bits: expected an integer in \[1, 53\]/,
    })),
    {
      title: 'an empty field name',
      spec: withFields([
        { name: 'time', bits: 41 },
        { name: '', bits: 10 },
        { name: 'sequence', bits: 12 },
      ]),
      field: '',
      message: /field name "" must start with a letter/,
    },
    {
      title: 'no time field',
      spec: withFields([
        { name: 'node', bits: 10 },
        { name: 'sequence', bits: 12 },
      ]),
      field: 'time',
      message: /no time field/,
    },
    {
      title: 'no sequence field',
      spec: withFields([
        { name: 'time', bits: 41 },
        { name: 'node', bits: 10 },
      ]),
      field: 'sequence',
      message: /no sequence field/,
    },
    {
      title: 'two time fields',
      spec: withFields([
        { name: 'time', bits: 30 },
        { name: 'ts2', bits: 11, role: 'time' },
        { name: 'sequence', bits: 12 },
      ]),
      field: 'ts2',
      message: /two time fields \("time" and "ts2"\)/,
    },
    {
      title: 'two sequence fields',
      spec: withFields([
        { name: 'time', bits: 41 },
        { name: 'seq', bits: 10, role: 'sequence' },
        { name: 'sequence', bits: 12 },
      ]),
      field: 'sequence',
      message: /two sequence fields/,
    },
    {
      title: 'an unknown role',
      spec: withFields([
        { name: 'time', bits: 41 },
        { name: 'node', bits: 10, role: 'shard' as never },
        { name: 'sequence', bits: 12 },
      ]),
      field: 'node',
      message: /role "shard"/,
    },
    {
      title: 'a time field reaching past the last Date',
      spec: withFields(
        [
          { name: 'time', bits: 53 },
          { name: 'sequence', bits: 10 },
        ],
        { unitMs: 1000 },
      ),
      field: 'time',
      message: /last instant a JavaScript Date holds/,
    },
    ...[
      'not a date',
      '2025-02-30',
      '2025-01-01T00:00:00', // no offset: would depend on the local time zone
      '2025-01-01T24:00:00Z',
      '2025-13-01',
      '2025-1-1',
      '2025-01-01T00:00:00+25:00',
      '',
    ].map((epoch) => ({
      title: `epoch "${epoch}"`,
      spec: { ...base, epoch },
      field: 'epoch',
      message: /epoch .* is not a valid time/,
    })),
    ...[1.5, Number.NaN, Number.POSITIVE_INFINITY, 9e15].map((epoch) => ({
      title: `epoch ${epoch}`,
      spec: { ...base, epoch },
      field: 'epoch',
      message: /is not a valid time/,
    })),
    ...[0, -1, 1.5].map((unitMs) => ({
      title: `unitMs ${unitMs}`,
      spec: { ...base, unitMs },
      field: 'unitMs',
      message: /unitMs .*: expected a positive integer/,
    })),
  ];
  for (const c of cases) {
    test(c.title, () => {
      assert.throws(
        () => defineLayout(c.spec),
        (e: unknown) =>
          e instanceof InvalidLayoutError &&
          e.code === 'IDF_INVALID_LAYOUT' &&
          e.field === c.field &&
          e.layout === 'custom' &&
          c.message.test(e.message),
      );
    });
  }

  test('wrong types are misuse: TypeError', () => {
    assert.throws(() => defineLayout(null as never), TypeError);
    assert.throws(() => defineLayout({ ...base, fields: 'time:41' as never }), TypeError);
    assert.throws(() => defineLayout({ ...base, epoch: new Date() as never }), TypeError);
    assert.throws(() => defineLayout({ ...base, unitMs: '1' as never }), TypeError);
    assert.throws(() => defineLayout({ ...base, signBit: 1 as never }), TypeError);
    assert.throws(
      () => defineLayout(withFields([{ name: 'time', bits: '41' as never }])),
      /bits: expected a number, got string "41"/,
    );
  });
});

describe('defineLayout: valid layouts are precomputed and frozen', () => {
  test('roles default by name; shifts, masks, limits', () => {
    const l = defineLayout(base);
    assert.ok(isLayout(l) && Object.isFrozen(l) && Object.isFrozen(l.fields));
    assert.deepEqual(
      l.fields.map((f) => [f.name, f.role, f.bits, f.shift, f.mask, f.maskBig, f.shiftBig]),
      [
        ['time', 'time', 41, 22, 2 ** 41 - 1, 2n ** 41n - 1n, 22n],
        ['node', 'node', 10, 12, 1023, 1023n, 12n],
        ['sequence', 'sequence', 12, 0, 4095, 4095n, 0n],
      ],
    );
    assert.equal(l.totalBits, 63);
    assert.equal(l.maxId, 2n ** 63n - 1n);
    assert.equal(l.maxSequence, 4095);
    assert.equal(l.maxTick, 2 ** 41 - 1);
    assert.equal(l.nodeFields.length, 1);
    assert.equal(l.epochMs, 1735689600000);
    assert.equal(isLayout({ ...l }), false);
  });

  test('epoch forms: unix ms, UTC date, date-time with Z or an offset', () => {
    const at = (epoch: string | number) => defineLayout({ ...base, epoch }).epochMs;
    assert.equal(at('2016-05-20'), Date.UTC(2016, 4, 20));
    assert.equal(at('2016-05-20T00:00:00+08:00'), 1463673600000);
    assert.equal(at('2016-05-20T00:00+08:00'), 1463673600000);
    assert.equal(at('2010-11-04T01:42:54.657Z'), 1288834974657);
    assert.equal(at(-1000), -1000);
  });

  test('a custom 53-bit layout (IDs exact as JavaScript numbers) needs no sign bit', () => {
    const l = defineLayout({
      name: 'js-safe',
      epoch: 0,
      unitMs: 1000,
      fields: [
        { name: 'time', bits: 32 },
        { name: 'node', bits: 8 },
        { name: 'sequence', bits: 13 },
      ],
    });
    assert.equal(l.maxId, 2n ** 53n - 1n);
    assert.equal(l.negativeMs, undefined);
    assert.equal(l.maxIdsPerSecondPerNode, 8192);
  });
});

describe('presets', () => {
  const iso = (ms: number | undefined) =>
    ms === undefined ? undefined : new Date(ms).toISOString();
  const expected: Record<string, [string, string, string | undefined, number, number, number]> = {
    // name: epoch, horizon, negative from, max IDs/s per node, max nodes, total bits
    default: ['2025-01-01T00:00:00.000Z', '2094-09-07T15:47:35.552Z', undefined, 4096000, 1024, 63],
    'twitter-2010': [
      '2010-11-04T01:42:54.657Z',
      '2080-07-10T17:30:30.209Z',
      undefined,
      4096000,
      1024,
      63,
    ],
    discord: [
      '2015-01-01T00:00:00.000Z',
      '2154-05-15T07:35:11.104Z',
      '2084-09-06T15:47:35.552Z',
      4096000,
      1024,
      64,
    ],
    instagram: [
      '2011-08-24T21:07:01.721Z',
      '2081-04-30T12:54:37.273Z',
      '2046-06-27T17:00:49.497Z',
      1024000,
      8192,
      64,
    ],
    sonyflake: [
      '2014-09-01T00:00:00.000Z',
      '2188-11-16T03:28:58.880Z',
      undefined,
      25600,
      65536,
      63,
    ],
    // DefaultUidGenerator javadoc: "until to 2024-11-20 21:24:16" (China time)
    baidu: ['2016-05-19T16:00:00.000Z', '2024-11-20T13:24:16.000Z', undefined, 8192, 2 ** 22, 63],
  };

  test('the six presets, in order, with their figures', () => {
    assert.deepEqual(PRESET_NAMES, Object.keys(expected));
    for (const [name, want] of Object.entries(expected)) {
      const l = getLayout(name);
      assert.deepEqual(
        [
          iso(l.epochMs),
          iso(l.horizonMs),
          iso(l.negativeMs),
          l.maxIdsPerSecondPerNode,
          l.maxNodes,
          l.totalBits,
        ],
        want,
        name,
      );
      assert.ok(l.source && l.source.length > 10, `${name} has a source`);
      assert.ok(Object.isFrozen(l));
    }
    assert.ok(Object.isFrozen(LAYOUTS) && Object.isFrozen(PRESET_NAMES));
  });

  test('field names and roles as their owners define them', () => {
    const shape = (name: string) =>
      getLayout(name).fields.map((f) => `${f.name}:${f.bits}:${f.role}`);
    assert.deepEqual(shape('twitter-2010'), [
      'time:41:time',
      'datacenter:5:node',
      'worker:5:node',
      'sequence:12:sequence',
    ]);
    assert.deepEqual(shape('discord'), [
      'time:42:time',
      'worker:5:node',
      'process:5:node',
      'increment:12:sequence',
    ]);
    assert.deepEqual(shape('instagram'), ['time:41:time', 'shard:13:node', 'sequence:10:sequence']);
    // sony/sonyflake: the sequence sits above the machine ID
    assert.deepEqual(shape('sonyflake'), [
      'time:39:time',
      'sequence:8:sequence',
      'machine:16:node',
    ]);
    assert.equal(getLayout('sonyflake').unitMs, 10);
    assert.equal(getLayout('baidu').unitMs, 1000);
    // sony/sonyflake README: "The lifetime (174 years)"
    assert.equal(
      Math.floor(layoutYearsLeft(getLayout('sonyflake'), getLayout('sonyflake').epochMs)),
      174,
    );
  });

  test('getLayout: RangeError listing the names; TypeError for a non-string', () => {
    assert.throws(
      () => getLayout('snowflake'),
      (e: unknown) => {
        return e instanceof RangeError && /"default", "twitter-2010", .*"baidu"/.test(e.message);
      },
    );
    assert.throws(() => getLayout('toString'), RangeError);
    assert.throws(() => getLayout(7 as never), TypeError);
  });

  test('layoutYearsLeft: positive before the horizon, negative after', () => {
    const baidu = getLayout('baidu');
    assert.equal(layoutYearsLeft(baidu, baidu.horizonMs), 0);
    assert.ok(layoutYearsLeft(baidu, Date.parse('2025-11-20T13:24:16Z')) < -0.99);
    assert.ok(
      Math.abs(layoutYearsLeft(getLayout('default'), Date.parse('2025-01-01')) - 69.7) < 0.1,
    );
  });
});

describe('describeLayout and docs/layouts.md', () => {
  test('the diagram shows bit numbers, the sign bit and every field', () => {
    assert.equal(
      describeLayout(getLayout('default')),
      [
        'default: epoch 2025-01-01T00:00:00.000Z, tick 1 ms',
        ' 63  62                 22 21     12 11          0',
        '+---+---------------------+---------+-------------+',
        '| 0 |       time 41       | node 10 | sequence 12 |',
        '+---+---------------------+---------+-------------+',
      ].join('\n'),
    );
    const small = describeLayout(
      defineLayout({
        name: 'small',
        epoch: 0,
        fields: [
          { name: 'time', bits: 40 },
          { name: 'x', bits: 1 },
          { name: 'sequence', bits: 2 },
        ],
      }),
    );
    assert.match(small, /\|\s+0 \(21\)\s+\|/);
    assert.match(small, /\| x 1 \|/);
  });

  test('docs/layouts.md shows every preset diagram and horizon as the code computes them', () => {
    const doc = readFileSync(new URL('../../docs/layouts.md', import.meta.url), 'utf8');
    for (const name of PRESET_NAMES) {
      const l = getLayout(name);
      const diagram = describeLayout(l).split('\n').slice(1).join('\n');
      assert.ok(doc.includes(diagram), `${name} diagram`);
      assert.ok(doc.includes(new Date(l.horizonMs).toISOString()), `${name} horizon`);
      if (l.negativeMs !== undefined) {
        assert.ok(doc.includes(new Date(l.negativeMs).toISOString()), `${name} negative`);
      }
    }
  });
});
