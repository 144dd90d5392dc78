// Shard genes (issue 13): an ID minted with geneFrom another ID routes to that ID's shard for
// every power-of-two shard count up to 2^geneBits; IDs stay unique and strictly increasing.
import * as assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ManualClock } from '../../packages/idforge/src/core/clock.js';
import { InvalidIdError, InvalidLayoutError } from '../../packages/idforge/src/core/errors.js';
import { seededRandom } from '../../packages/idforge/src/core/random.js';
import { decompose, shardOf } from '../../packages/idforge/src/core/snowflake/codec.js';
import { SnowflakeGenerator } from '../../packages/idforge/src/core/snowflake/generator.js';
import {
  defineLayout,
  type FieldSpec,
  type Layout,
} from '../../packages/idforge/src/core/snowflake/layout.js';
import { getLayout } from '../../packages/idforge/src/core/snowflake/presets.js';

const quiet = { onWarning: () => {} };
const gene8 = getLayout('gene-8');
const T0 = gene8.epochMs + 1_000_000;
const U64 = 2n ** 64n - 1n;

/** time | sequence 2 | gene g, in 1-hour ticks so the time field fits whatever g is. */
function geneLayout(g: number): Layout {
  return defineLayout({
    name: `gene-${g}-test`,
    epoch: 0,
    unitMs: 3_600_000,
    fields: [
      { name: 'time', bits: Math.min(30, 61 - g) },
      { name: 'sequence', bits: 2 },
      { name: 'gene', bits: g, role: 'gene' },
    ],
  });
}

function rig(layout: Layout | string = gene8, seed = 1) {
  const clock = new ManualClock(typeof layout === 'string' ? T0 : layout.epochMs + 7_200_000);
  const random = seededRandom(seed);
  const fields: Record<string, number> =
    typeof layout === 'string' || layout.nodeFields.length > 0 ? { node: 3 } : {};
  return { clock, gen: new SnowflakeGenerator({ layout, clock, random, fields, ...quiet }) };
}

/** Every power of two from 1 to 2^bits. */
const powers = (bits: number) => Array.from({ length: bits + 1 }, (_, k) => 2 ** k);

// A user ID: any 64-bit value, as bigint or text, or one a gene layout minted (a gene of its own).
const userIds = fc.oneof(
  fc.bigInt({ min: 0n, max: U64 }),
  fc.bigInt({ min: 0n, max: U64 }).map(String),
  fc.integer({ min: 0, max: 2 ** 31 }).map((seed) => rig(gene8, seed).gen.next()),
);

describe('shardOf(orderId, n) === shardOf(userId, n)', () => {
  test('for every gene width g, every power of two n <= 2^g, arbitrary user IDs', () => {
    const layouts = Array.from({ length: 53 }, (_, i) => geneLayout(i + 1));
    fc.assert(
      fc.property(fc.constantFrom(...layouts), userIds, (layout, userId) => {
        const { gen } = rig(layout);
        const orderId = gen.next({ geneFrom: userId });
        const g = layout.geneField!.bits;
        for (const n of powers(g)) assert.equal(shardOf(orderId, n), shardOf(userId, n), `n=${n}`);
        // a grandchild carries the same gene
        const itemId = gen.next({ geneFrom: orderId });
        assert.equal(shardOf(itemId, 2 ** g), shardOf(userId, 2 ** g));
        assert.equal(
          decompose(layout, orderId).fields.gene,
          Number(BigInt(userId) % 2n ** BigInt(g)),
        );
      }),
      { numRuns: 300 },
    );
  });

  test('batch: every ID of the batch carries the gene', () => {
    const { gen } = rig();
    const user = 0xfedcba987654321n;
    for (const id of gen.batch(200, { geneFrom: user })) assert.equal(shardOf(id, 256), 0x21);
    for (const id of gen.batch(3, { gene: 7 })) assert.equal(shardOf(id, 256), 7);
  });

  test('negative control: without a gene (layout default) the property fails', () => {
    const def = getLayout('default');
    const gen = new SnowflakeGenerator({
      layout: def,
      node: 1,
      clock: new ManualClock(T0),
      ...quiet,
    });
    const property = fc.property(userIds, (userId) => {
      const orderId = gen.next();
      for (const n of powers(8)) assert.equal(shardOf(orderId, n), shardOf(userId, n));
    });
    assert.throws(() => fc.assert(property, { numRuns: 100 }), /Property failed/);
  });

  test('negative control: past 2^geneBits shards the gene no longer decides', () => {
    const { gen } = rig();
    const property = fc.property(userIds, (userId) => {
      const orderId = gen.next({ geneFrom: userId });
      assert.equal(shardOf(orderId, 512), shardOf(userId, 512));
    });
    assert.throws(() => fc.assert(property, { numRuns: 200 }), /Property failed/);
  });
});

describe('uniqueness and order across mixed genes', () => {
  const op = fc.oneof(
    fc.constant({ kind: 'random' as const }),
    fc.integer({ min: 0, max: 255 }).map((gene) => ({ kind: 'gene' as const, gene })),
    fc.bigInt({ min: 0n, max: U64 }).map((geneFrom) => ({ kind: 'from' as const, geneFrom })),
    fc.integer({ min: 0, max: 150 }).map((count) => ({ kind: 'batch' as const, count })),
    fc.integer({ min: 0, max: 3 }).map((ms) => ({ kind: 'tick' as const, ms })),
  );

  test('strictly increasing, unique, and each ID has the gene it asked for', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const { clock, gen } = rig();
        const ids: bigint[] = [];
        for (const o of ops) {
          if (o.kind === 'tick') clock.advance(o.ms);
          else if (o.kind === 'batch') ids.push(...gen.batch(o.count));
          else if (o.kind === 'random') ids.push(gen.next());
          else {
            const id = gen.next(o.kind === 'gene' ? { gene: o.gene } : { geneFrom: o.geneFrom });
            const want = o.kind === 'gene' ? o.gene : Number(o.geneFrom & 255n);
            assert.equal(decompose(gene8, id).fields.gene, want);
            ids.push(id);
          }
        }
        for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, `at ${i}`);
        assert.equal(gen.stats.issued, ids.length);
      }),
      { numRuns: 150 },
    );
  });

  test('sequence exhaustion within a ms waits for the next tick, whatever the genes', () => {
    const { clock, gen } = rig();
    const ids = [gen.next({ gene: 255 }), ...gen.batch(63, { gene: 0 }), gen.next({ gene: 9 })];
    assert.equal(gen.stats.exhaustionWaits, 1, 'the 65th ID of the ms waited');
    assert.ok(clock.slept > 0);
    const parts = ids.map((id) => decompose(gene8, id));
    assert.deepEqual(
      parts.map((p) => p.fields.sequence),
      [...Array.from({ length: 64 }, (_, i) => i), 0],
    );
    assert.equal(parts[64]!.tick, parts[0]!.tick + 1);
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!);
  });
});

describe('where user IDs come from: the spread of their low 8 bits', () => {
  /** Largest bucket over the mean bucket, for 256 shards. */
  function skew(ids: readonly bigint[]): number {
    const buckets = new Array<number>(256).fill(0);
    for (const id of ids) buckets[shardOf(id, 256)]!++;
    return Math.max(...buckets) / (ids.length / 256);
  }

  test('default layout at a low rate: every ID on shard 0; gene layout and serials: even', () => {
    const N = 25_600;
    const clock = new ManualClock(T0); // one ID per ms from each: a low rate
    const def = new SnowflakeGenerator({ node: 5, clock, ...quiet });
    const random = seededRandom(42);
    const genes = new SnowflakeGenerator({ layout: gene8, node: 5, clock, random, ...quiet });
    const sparse: bigint[] = [];
    const spread: bigint[] = [];
    for (let i = 0; i < N; i++, clock.advance(1)) {
      sparse.push(def.next());
      spread.push(genes.next());
    }
    const serials = Array.from({ length: N }, (_, i) => BigInt(1000 + i));
    assert.equal(skew(sparse), 256, 'default layout, one ID per ms: all on one shard');
    assert.ok(skew(spread) < 1.5, `gene layout, random genes: skew ${skew(spread)}`);
    assert.equal(skew(serials), 1, 'database serial');
  });
});

describe('misuse and bad input', () => {
  test('layouts: at most one gene field, and it must be the least significant', () => {
    const spec = (fields: FieldSpec[]) => () => defineLayout({ name: 'g', epoch: 0, fields });
    const time = { name: 'time', bits: 41 };
    const seq = { name: 'sequence', bits: 6 };
    const gene = (name: string): FieldSpec => ({ name, bits: 4, role: 'gene' });
    assert.throws(spec([time, seq, gene('a'), gene('b')]), (e: unknown) => {
      return (
        e instanceof InvalidLayoutError && e.field === 'b' && /two gene fields/.test(e.message)
      );
    });
    assert.throws(spec([time, gene('g'), seq]), (e: unknown) => {
      return (
        e instanceof InvalidLayoutError && e.field === 'g' && /least significant/.test(e.message)
      );
    });
    // a field merely named "gene" is a node field, as before
    const named = defineLayout({
      name: 'n',
      epoch: 0,
      fields: [time, seq, { name: 'gene', bits: 4 }],
    });
    assert.equal(named.geneField, undefined);
    assert.equal(named.nodeFields[0]!.name, 'gene');
    assert.throws(spec([time, seq, { name: 'x', bits: 2, role: 'shard' as never }]), /"gene"/);
  });

  test('next/batch: bad genes throw before an ID is used up', () => {
    const { gen } = rig();
    const bad: [unknown, RegExp | typeof InvalidIdError][] = [
      [{ gene: 256 }, /RangeError.*\[0, 255\]/],
      [{ gene: -1 }, /RangeError/],
      [{ gene: 1.5 }, /RangeError/],
      [{ gene: '3' }, /TypeError/],
      [{}, /TypeError.*exactly one of gene and geneFrom/],
      [{ gene: 1, geneFrom: 1n }, /TypeError.*exactly one/],
      [{ geneFrom: 'abc' }, InvalidIdError],
      [{ geneFrom: '' }, InvalidIdError],
      [{ geneFrom: -1n }, InvalidIdError],
      [{ geneFrom: 2n ** 64n }, InvalidIdError],
      [{ geneFrom: -3 }, /RangeError/],
      [{ geneFrom: 2 ** 53 }, /RangeError/],
      [{ geneFrom: null }, /TypeError/],
      [null, /TypeError/],
      [7, /TypeError/],
    ];
    for (const [options, want] of bad) {
      const check = (e: unknown) =>
        want instanceof RegExp
          ? want.test(`${(e as Error).name}: ${(e as Error).message}`)
          : e instanceof want;
      assert.throws(() => gen.next(options as never), check, JSON.stringify(String(options)));
      assert.throws(() => gen.batch(2, options as never), check);
    }
    assert.equal(gen.stats.issued, 0);
    assert.equal(shardOf(gen.next({ geneFrom: 2 ** 53 - 1 }), 256), 255);
    assert.equal(shardOf(gen.next({ geneFrom: '511' }), 256), 255);
  });

  test('a layout without a gene field refuses a gene, naming a layout that has one', () => {
    const gen = new SnowflakeGenerator({ node: 1, clock: new ManualClock(T0), ...quiet });
    assert.throws(() => gen.next({ geneFrom: 5n }), /RangeError.*no gene field.*gene-8/s);
    assert.throws(() => gen.batch(1, { gene: 0 }), RangeError);
    assert.throws(() => gen.nextString({ gene: 0 }), RangeError);
    assert.equal(gen.stats.issued, 0);
    assert.throws(() => new SnowflakeGenerator({ node: 1, random: {} as never }), TypeError);
  });

  test('shardOf(id, n): n a power of two in [1, 2^53]; the layout form is unchanged', () => {
    for (const n of [0, 3, 6, 1.5, 2 ** 54, Number.NaN, -2]) {
      assert.throws(() => shardOf(5n, n), RangeError, String(n));
    }
    assert.throws(() => shardOf(5n, 4 as never, 'shard' as never), RangeError);
    assert.equal(shardOf(U64, 2 ** 53), 2 ** 53 - 1);
    assert.equal(shardOf('1023', 1), 0);
    assert.equal(shardOf(1023, 16), 15);
    assert.throws(() => shardOf('01', 16), InvalidIdError);
    assert.throws(() => shardOf(U64 + 1n, 16), InvalidIdError);
    assert.equal(shardOf('11637205501278089'), 1341); // docs/api.md: Instagram's shard field
    assert.equal(shardOf(0x1234n, gene8, 'gene'), 0x34);
  });
});
