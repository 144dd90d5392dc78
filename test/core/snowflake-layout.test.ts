import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidLayoutError } from '../../packages/idforge/src/core/errors.js';
import {
  defineLayout,
  isLayout,
  type LayoutSpec,
} from '../../packages/idforge/src/core/snowflake/layout.js';

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
      title: 'a sequence above the time field',
      spec: withFields([
        { name: 'sequence', bits: 12 },
        { name: 'time', bits: 41 },
        { name: 'node', bits: 10 },
      ]),
      field: 'sequence',
      message: /sits above the time field/,
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
