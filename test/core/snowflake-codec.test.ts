import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { InvalidIdError } from '../../packages/idforge/src/core/errors.js';
import {
  compose,
  decompose,
  fieldOf,
  parseSnowflake,
  shardOf,
  snowflakeTimestamp,
} from '../../packages/idforge/src/core/snowflake/codec.js';
import {
  defineLayout,
  type Layout,
  type LayoutSpec,
} from '../../packages/idforge/src/core/snowflake/layout.js';
import { getLayout, PRESET_NAMES } from '../../packages/idforge/src/core/snowflake/presets.js';
import { baiduReadmeVector, snowflakeVectors } from '../vectors/snowflake.js';

describe('published vectors', () => {
  for (const v of snowflakeVectors) {
    test(`${v.layout} ${v.id}`, () => {
      const layout = getLayout(v.layout);
      const d = decompose(layout, v.id);
      assert.equal(d.id, BigInt(v.id), v.source);
      assert.deepEqual(d.fields, v.fields, v.source);
      const p = v.timePrecisionMs;
      assert.equal(Math.floor(d.unixMs / p) * p, v.unixMs, v.source);
      if (v.tick !== undefined) assert.equal(d.tick, v.tick, v.source);
      assert.equal(snowflakeTimestamp(layout, BigInt(v.id)), d.unixMs);
      assert.equal(compose(layout, { tick: d.tick, fields: v.fields }), BigInt(v.id));
      for (const [name, value] of Object.entries(v.fields)) {
        assert.equal(fieldOf(layout, v.id, name), value);
      }
    });
  }

  test('Instagram worked example: shardOf reads shard 1341 (31341 % 2000)', () => {
    assert.equal(shardOf('11637205501278089'), 1341);
    assert.equal(shardOf(11637205501278089n, getLayout('instagram'), 'shard'), 1341);
    assert.equal(shardOf(5n << 12n, getLayout('default'), 'node'), 5);
  });

  test('baidu/uid-generator README parseUID example, on its custom layout', () => {
    const layout = defineLayout(baiduReadmeVector.spec as unknown as LayoutSpec);
    const d = decompose(layout, baiduReadmeVector.id);
    assert.equal(d.unixMs, baiduReadmeVector.unixMs);
    assert.deepEqual(d.fields, baiduReadmeVector.fields);
  });
});

describe('parseSnowflake: every malformed reason, at every position', () => {
  const valid = '175928847299117063';
  const reject = (text: string, reason: string, position?: number, layout?: Layout) =>
    assert.throws(
      () => parseSnowflake(text, layout),
      (e: unknown) =>
        e instanceof InvalidIdError &&
        e.code === 'IDF_INVALID_ID' &&
        e.scheme === 'snowflake' &&
        e.reason === reason &&
        e.position === position &&
        e.input === text,
      `${JSON.stringify(text)} → ${reason}`,
    );

  test('a non-digit at each position gives alphabet with that position', () => {
    for (const bad of ['a', '-', '+', ' ', '.', '/', ':', '\u0661', '\uff11', 'e', '_']) {
      for (let i = 0; i < valid.length; i++) {
        reject(valid.slice(0, i) + bad + valid.slice(i + 1), 'alphabet', i);
      }
      reject(valid + bad, 'alphabet', valid.length);
    }
    reject('-1', 'alphabet', 0);
    reject('+1', 'alphabet', 0);
    reject('1n', 'alphabet', 1);
    reject('0x10', 'alphabet', 1);
  });

  test('empty → length; leading zero → format', () => {
    reject('', 'length', 0);
    reject('01', 'format', 0);
    reject('00', 'format', 0);
    assert.equal(parseSnowflake('0'), 0n);
  });

  test('range: above 2^64-1, or above the layout (2^63-1 with a sign bit)', () => {
    assert.equal(parseSnowflake('18446744073709551615'), 2n ** 64n - 1n);
    reject('18446744073709551616', 'range');
    reject('99999999999999999999', 'range');
    reject('100000000000000000000000', 'range');
    const def = getLayout('default');
    assert.equal(parseSnowflake('9223372036854775807', def), 2n ** 63n - 1n);
    reject('9223372036854775808', 'range', undefined, def);
    assert.equal(parseSnowflake('18446744073709551615', getLayout('discord')), 2n ** 64n - 1n);
    const narrow = defineLayout({
      name: 'narrow',
      epoch: 0,
      fields: [
        { name: 'time', bits: 40 },
        { name: 'sequence', bits: 13 },
      ],
    });
    assert.equal(parseSnowflake(String(2 ** 53 - 1), narrow), 2n ** 53n - 1n);
    reject(String(2n ** 53n), 'range', undefined, narrow);
  });

  test('misuse: TypeError', () => {
    assert.throws(() => parseSnowflake(175928847299117063n as never), TypeError);
    assert.throws(() => parseSnowflake('1', {} as never), TypeError);
  });
});

describe('compose and decompose: range-checked, never masked', () => {
  const def = getLayout('default');
  test('out-of-range, unknown, missing and time fields are refused', () => {
    const ok = { tick: 0, fields: { node: 1, sequence: 0 } };
    assert.equal(compose(def, ok), 1n << 12n);
    assert.throws(
      () => compose(def, { tick: 0, fields: { node: 1024, sequence: 0 } }),
      /expected an integer in \[0, 1023\], got number 1024/,
    );
    assert.throws(() => compose(def, { tick: 0, fields: { node: 1, sequence: 4096 } }), RangeError);
    assert.throws(() => compose(def, { tick: 0, fields: { node: -1, sequence: 0 } }), RangeError);
    assert.throws(() => compose(def, { tick: 0, fields: { node: 1.5, sequence: 0 } }), RangeError);
    assert.throws(() => compose(def, { tick: 2 ** 41, fields: ok.fields }), RangeError);
    assert.throws(() => compose(def, { tick: -1, fields: ok.fields }), RangeError);
    assert.throws(
      () => compose(def, { tick: 0, fields: { ...ok.fields, shard: 1 } }),
      (e: unknown) => e instanceof RangeError && /node, sequence/.test(e.message),
    );
    assert.throws(() => compose(def, { tick: 0, fields: { ...ok.fields, time: 1 } }), RangeError);
    assert.throws(() => compose(def, { tick: 0, fields: { node: 1 } }), TypeError);
    assert.throws(() => compose(def, { fields: ok.fields }), TypeError);
    assert.throws(
      () => compose(def, { tick: 0, unixMs: def.epochMs, fields: ok.fields }),
      TypeError,
    );
    assert.throws(() => compose(def, { unixMs: def.epochMs - 1, fields: ok.fields }), RangeError);
    assert.throws(() => compose(def, { unixMs: def.horizonMs, fields: ok.fields }), RangeError);
    assert.throws(() => compose({ ...def } as Layout, ok), TypeError);
  });

  test('unixMs is floored to the tick', () => {
    const sf = getLayout('sonyflake');
    const id = compose(sf, { unixMs: sf.epochMs + 29, fields: { sequence: 0, machine: 0 } });
    assert.equal(decompose(sf, id).tick, 2);
    assert.equal(decompose(sf, id).unixMs, sf.epochMs + 20);
  });

  test('decompose refuses IDs outside the layout', () => {
    assert.throws(() => decompose(def, 2n ** 63n), InvalidIdError);
    assert.throws(() => decompose(def, -1n), InvalidIdError);
    assert.throws(() => decompose(def, 1 as never), TypeError);
    assert.throws(() => fieldOf(def, 1n, 'shard'), /a field of layout "default" \(time, node/);
    assert.equal(fieldOf(def, (5n << 22n) | 7n, 'time'), 5);
  });
});

/** A random valid custom layout: widths, order, roles, epoch and tick. */
const layoutArb = fc
  .record({
    time: fc.integer({ min: 1, max: 42 }),
    seq: fc.integer({ min: 1, max: 20 }),
    nodes: fc.array(fc.integer({ min: 1, max: 16 }), { maxLength: 4 }),
    order: fc.integer({ min: 0, max: 1000 }),
    signBit: fc.boolean(),
    epoch: fc.integer({ min: -1e12, max: 2e12 }),
    unitMs: fc.integer({ min: 1, max: 1000 }),
  })
  .filter((r) => r.time + r.seq + r.nodes.reduce((a, b) => a + b, 0) <= (r.signBit ? 63 : 64))
  .map((r) => {
    const fields = [
      { name: 'time', bits: r.time },
      { name: 'seq', bits: r.seq, role: 'sequence' as const },
      ...r.nodes.map((bits, i) => ({ name: `n${i}`, bits })),
    ];
    // A deterministic shuffle driven by `order`.
    for (let i = fields.length - 1; i > 0; i--) {
      const j = (r.order * (i + 7)) % (i + 1);
      [fields[i], fields[j]] = [fields[j]!, fields[i]!];
    }
    // The sequence must sit below the time field: swap them if the shuffle put it above.
    const t = fields.findIndex((f) => f.name === 'time');
    const q = fields.findIndex((f) => f.name === 'seq');
    if (q < t) [fields[t], fields[q]] = [fields[q]!, fields[t]!];
    return defineLayout({
      name: 'random',
      epoch: r.epoch,
      unitMs: r.unitMs,
      signBit: r.signBit,
      fields,
    });
  });

const presetArb = fc.constantFrom(...PRESET_NAMES).map(getLayout);

function partsArb(layout: Layout) {
  const fields: Record<string, fc.Arbitrary<number>> = {};
  for (const f of layout.fields)
    if (f.role !== 'time') fields[f.name] = fc.integer({ min: 0, max: f.mask });
  return fc.record({
    tick: fc.integer({ min: 0, max: layout.maxTick }),
    fields: fc.record(fields),
  });
}

describe('compose and decompose are exact inverses (fast-check)', () => {
  for (const [title, arb] of [
    ['every preset', presetArb],
    ['random custom layouts', layoutArb],
  ] as const) {
    test(`${title}: parts → id → parts`, () => {
      fc.assert(
        fc.property(
          arb.chain((l) => fc.tuple(fc.constant(l), partsArb(l))),
          ([layout, parts]) => {
            const id = compose(layout, parts);
            assert.ok(id >= 0n && id <= layout.maxId);
            const d = decompose(layout, id);
            assert.equal(d.tick, parts.tick);
            assert.deepEqual(d.fields, { ...parts.fields });
            assert.equal(d.unixMs, layout.epochMs + parts.tick * layout.unitMs);
            assert.equal(decompose(layout, id.toString()).id, id);
          },
        ),
        { numRuns: 500 },
      );
    });

    test(`${title}: id → parts → id`, () => {
      fc.assert(
        fc.property(
          arb.chain((l) => fc.tuple(fc.constant(l), fc.bigInt({ min: 0n, max: l.maxId }))),
          ([layout, id]) => {
            const d = decompose(layout, id);
            assert.equal(compose(layout, { tick: d.tick, fields: d.fields }), id);
            assert.equal(compose(layout, { unixMs: d.unixMs, fields: d.fields }), id);
            assert.equal(parseSnowflake(id.toString(), layout), id);
          },
        ),
        { numRuns: 500 },
      );
    });
  }
});
