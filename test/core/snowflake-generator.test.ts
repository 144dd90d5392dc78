import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type Clock, ManualClock } from '../../packages/idforge/src/core/clock.js';
import { ClockRollbackError } from '../../packages/idforge/src/core/errors.js';
import { decompose } from '../../packages/idforge/src/core/snowflake/codec.js';
import {
  SnowflakeGenerator,
  type SnowflakeGeneratorOptions,
} from '../../packages/idforge/src/core/snowflake/generator.js';
import { defineLayout, type Layout } from '../../packages/idforge/src/core/snowflake/layout.js';
import { getLayout, PRESET_NAMES } from '../../packages/idforge/src/core/snowflake/presets.js';
import { assertIncreasing, def, quiet, rig, T0 } from './snowflake-rig.js';

describe('uniqueness', () => {
  test('1,000,000 IDs from one generator on the real clock: strictly increasing', () => {
    const gen = new SnowflakeGenerator({ node: 1 });
    const ids = gen.batch(500_000);
    for (let i = 0; i < 500_000; i++) ids.push(gen.next());
    assertIncreasing(ids);
    assert.equal(new Set(ids).size, 1_000_000);
    assert.equal(gen.stats.issued, 1_000_000);
  });

  test('1,000,000 IDs across 4 nodes, interleaved on one clock: no duplicate', () => {
    const clock = new ManualClock(T0);
    const gens = [0, 1, 2, 3].map((node) => new SnowflakeGenerator({ node, clock }));
    const per = gens.map(() => [] as bigint[]);
    const all = new Set<bigint>();
    for (let i = 0; i < 250_000; i++) {
      for (let g = 0; g < 4; g++) {
        const id = gens[g]!.next();
        per[g]!.push(id);
        all.add(id);
      }
      if (i % 3000 === 0) clock.advance(1); // time moves on now and then
    }
    assert.equal(all.size, 1_000_000);
    for (const ids of per) assertIncreasing(ids);
  });
});

describe('state transitions (ManualClock)', () => {
  const steps: {
    title: string;
    /** Clock moves (ms) before each call; null = call without moving. */
    moves: number[];
    /** [tick offset from T0, sequence] of each ID, or an error class for the last call. */
    expect: ([number, number] | typeof ClockRollbackError)[];
    stats: { exhaustionWaits: number; rollbackWaits: number; slept: number };
  }[] = [
    {
      title: 'same tick counts up; a new tick restarts at 0',
      moves: [0, 0, 0, 1, 0, 5],
      expect: [
        [0, 0],
        [0, 1],
        [0, 2],
        [1, 0],
        [1, 1],
        [6, 0],
      ],
      stats: { exhaustionWaits: 0, rollbackWaits: 0, slept: 0 },
    },
    {
      title: 'a step back within tolerance is waited out, the sequence continues',
      moves: [0, 0, -5, 0],
      expect: [
        [0, 0],
        [0, 1],
        [0, 2],
        [0, 3],
      ],
      stats: { exhaustionWaits: 0, rollbackWaits: 1, slept: 5 },
    },
    {
      title: 'a step back of exactly the tolerance (10 ms) is still waited out',
      moves: [3, -10, 1],
      expect: [
        [3, 0],
        [3, 1],
        [4, 0],
      ],
      stats: { exhaustionWaits: 0, rollbackWaits: 1, slept: 10 },
    },
    {
      title: 'a step back beyond tolerance throws',
      moves: [0, -11],
      expect: [[0, 0], ClockRollbackError],
      stats: { exhaustionWaits: 0, rollbackWaits: 0, slept: 0 },
    },
  ];
  for (const s of steps) {
    test(s.title, () => {
      const { clock, gen, parts } = rig();
      let last = -1n;
      s.moves.forEach((move, i) => {
        clock.advance(move);
        const want = s.expect[i]!;
        if (typeof want === 'function') {
          assert.throws(() => gen.next(), want);
          return;
        }
        const id = gen.next();
        assert.ok(id > last);
        last = id;
        const p = parts(id);
        assert.deepEqual(
          [p.tick - (T0 - def.epochMs), p.fields.sequence, p.fields.node],
          [...want, 7],
        );
      });
      const { exhaustionWaits, rollbackWaits } = gen.stats;
      assert.deepEqual({ exhaustionWaits, rollbackWaits, slept: clock.slept }, s.stats);
    });
  }
});

describe('node identity: explicit, range-checked, never masked', () => {
  const make = (options: SnowflakeGeneratorOptions) => () =>
    new SnowflakeGenerator({ clock: new ManualClock(T0), ...options });

  test('missing: an error listing the required fields', () => {
    assert.throws(
      make({}),
      (e: unknown) => e instanceof TypeError && /\(node; there is no default/.test(e.message),
    );
    assert.throws(
      make({ layout: 'twitter-2010', fields: { datacenter: 1 } }),
      (e: unknown) =>
        e instanceof TypeError && /\(datacenter, worker;.*got none for worker/.test(e.message),
    );
  });

  test('out of range: RangeError, never masked', () => {
    assert.throws(make({ node: 1024 }), (e: unknown) => {
      return (
        e instanceof RangeError &&
        /expected an integer in \[0, 1023\], got number 1024/.test(e.message)
      );
    });
    assert.throws(make({ node: -1 }), RangeError);
    assert.throws(make({ node: 1.5 }), RangeError);
    assert.throws(make({ node: '7' as never }), TypeError);
    assert.throws(make({ layout: 'discord', fields: { worker: 32, process: 0 } }), /\[0, 31\]/);
  });

  test('unknown or non-node fields: RangeError', () => {
    assert.throws(
      make({ fields: { node: 1, shard: 2 } }),
      /only node fields of layout "default" \(node\)/,
    );
    assert.throws(make({ fields: { node: 1, sequence: 2 } }), RangeError);
    assert.throws(make({ fields: { node: 1, time: 2 } }), RangeError);
    assert.throws(make({ node: 1, fields: { node: 1 } }), /not both/);
    assert.throws(make({ node: 1, nodeId: 2 } as never), /only layout, node, fields/);
  });

  test('node on a layout with two node fields (twitter-2010): RangeError telling to use fields', () => {
    assert.throws(
      make({ layout: 'twitter-2010', node: 3 }),
      (e: unknown) =>
        e instanceof RangeError &&
        /has the node fields datacenter, worker: set them with the fields option/.test(e.message),
    );
  });

  test('bad layout, clock and numbers', () => {
    assert.throws(make({ node: 1, layout: 'nope' }), RangeError);
    assert.throws(make({ node: 1, layout: { ...def } as Layout }), TypeError);
    assert.throws(make({ node: 1, clock: {} as Clock }), TypeError);
    assert.throws(make({ node: 1, toleranceMs: -1 }), RangeError);
    assert.throws(make({ node: 1, warnYears: Number.NaN }), RangeError);
  });

  test('getters: layout, nodeFields, stats; nextString is decimal', () => {
    const gen = new SnowflakeGenerator({
      layout: 'twitter-2010',
      fields: { datacenter: 2, worker: 31 },
      clock: new ManualClock(Date.parse('2020-01-01T00:00:00Z')),
    });
    assert.equal(gen.layout, getLayout('twitter-2010'));
    assert.deepEqual(gen.nodeFields, { datacenter: 2, worker: 31 });
    assert.ok(Object.isFrozen(gen.nodeFields));
    assert.deepEqual(gen.stats, { issued: 0, exhaustionWaits: 0, rollbackWaits: 0, lastTick: -1 });
    const text = gen.nextString();
    assert.match(text, /^[1-9][0-9]*$/);
    assert.deepEqual(decompose(gen.layout, text).fields, {
      datacenter: 2,
      worker: 31,
      sequence: 0,
    });
  });
});

describe('batch', () => {
  test('interleaved with next(): one increasing stream; counts and bounds', () => {
    const { gen } = rig();
    const ids = [gen.next(), ...gen.batch(5000), gen.next(), ...gen.batch(1), ...gen.batch(0)];
    assert.equal(ids.length, 5003);
    assertIncreasing(ids);
    assert.equal(gen.stats.issued, 5003);
    assert.throws(() => gen.batch(-1), RangeError);
    assert.throws(() => gen.batch(2 ** 24 + 1), RangeError);
    assert.throws(() => gen.batch(1.5), RangeError);
  });
});

describe('decode(generate(fields)) = fields for every layout (fast-check)', () => {
  const custom = [
    defineLayout({
      name: 'node-on-top',
      epoch: 0,
      unitMs: 7,
      signBit: false,
      fields: [
        { name: 'rack', bits: 9 },
        { name: 'time', bits: 42 },
        { name: 'sequence', bits: 3 },
        { name: 'slot', bits: 10 },
      ],
    }),
    defineLayout({
      name: 'tiny',
      epoch: '1999-12-31T23:00:00-01:00',
      fields: [
        { name: 'time', bits: 44 },
        { name: 'sequence', bits: 1 },
      ],
    }),
  ];
  const layouts = [...PRESET_NAMES.map(getLayout), ...custom];
  const arb = fc.constantFrom(...layouts).chain((layout) => {
    const nodes: Record<string, fc.Arbitrary<number>> = {};
    for (const f of layout.nodeFields) nodes[f.name] = fc.integer({ min: 0, max: f.mask });
    return fc.tuple(
      fc.constant(layout),
      fc.record(nodes),
      fc.integer({ min: layout.epochMs, max: layout.horizonMs - 1 - 1000 * layout.unitMs }),
      fc.integer({ min: 1, max: 600 }),
    );
  });
  test('node fields, tick and increasing sequence survive the round trip', () => {
    fc.assert(
      fc.property(arb, ([layout, nodes, at, count]) => {
        const clock = new ManualClock(at);
        const fields = { ...nodes };
        const gen = new SnowflakeGenerator({ layout, fields, clock, ...quiet });
        const ids = gen.batch(count);
        assertIncreasing(ids);
        const first = decompose(layout, ids[0]!);
        assert.equal(first.tick, Math.floor((at - layout.epochMs) / layout.unitMs));
        assert.equal(first.fields[layout.sequenceField.name], 0);
        for (const id of ids) {
          const d = decompose(layout, id);
          for (const [k, v] of Object.entries(fields)) assert.equal(d.fields[k], v);
        }
      }),
      { numRuns: 200 },
    );
  });
});
