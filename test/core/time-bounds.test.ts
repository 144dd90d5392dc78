// Time bounds and backdated IDs (issue 22 §3): for every time-ordered scheme, the lowest and
// highest ID of a time range enclose exactly the IDs minted in it (by the generators and by
// the backdating functions), each bound is a valid ID of its scheme that decodes to its end,
// and the backdating functions mint at the instant asked, unique by their random bits.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { encodeTime } from 'ulid';
import {
  compose,
  defineLayout,
  fixedRandom,
  isKsuid,
  isUlid,
  KsuidGenerator,
  ksuidTimestamp,
  LAYOUTS,
  ManualClock,
  parseSnowflake,
  SnowflakeGenerator,
  snowflakeTimestamp,
  UlidGenerator,
  UuidV7Generator,
  ulidTimestamp,
  uuidv7Timestamp,
  validateUuid,
} from '../../packages/idforge/src/core/index.js';
import {
  composeKsuid,
  KSUID_EPOCH_SECONDS,
  ksuidAt,
  ksuidBounds,
} from '../../packages/idforge/src/ksuid/index.js';
import {
  isTypeId,
  typeIdAt,
  typeIdBounds,
  typeIdTimestamp,
} from '../../packages/idforge/src/public/index.js';
import { snowflakeBounds } from '../../packages/idforge/src/snowflake/index.js';
import { ulidAt, ulidBounds } from '../../packages/idforge/src/ulid/index.js';
import { uuidVersion, uuidv7At, uuidv7Bounds } from '../../packages/idforge/src/uuid/index.js';

const T = Date.UTC(2026, 11, 3, 12, 0, 0, 0);
/** Milliseconds from 2015 to 2100: inside every scheme's range and every current layout's. */
const instant = fc.integer({ min: Date.UTC(2015, 0, 1), max: Date.UTC(2100, 0, 1) });
const inside = (id: string, b: { lowest: string; highest: string }) =>
  id >= b.lowest && id <= b.highest;

describe('the bounds are valid IDs decoding to the range ends', () => {
  test('UUIDv7: version 7, variant 10, zeros and ones after the time', () => {
    const b = uuidv7Bounds(T, T + 999);
    const hex = (ms: number) =>
      ms
        .toString(16)
        .padStart(12, '0')
        .replace(/^(.{8})/, '$1-');
    assert.deepEqual(b, {
      lowest: `${hex(T)}-7000-8000-000000000000`,
      highest: `${hex(T + 999)}-7fff-bfff-ffffffffffff`,
    });
    for (const id of [b.lowest, b.highest]) {
      assert.equal(validateUuid(id), id);
      assert.equal(uuidVersion(id), 7);
    }
    assert.equal(uuidv7Timestamp(b.lowest), T);
    assert.equal(uuidv7Timestamp(b.highest), T + 999);
  });

  test('ULID, KSUID (whole seconds) and TypeID', () => {
    const u = ulidBounds(new Date(T));
    const time = encodeTime(T, 10); // the ulid package as the oracle
    assert.deepEqual(u, {
      lowest: `${time}${'0'.repeat(16)}`,
      highest: `${time}${'Z'.repeat(16)}`,
    });
    assert.ok(isUlid(u.lowest) && isUlid(u.highest));
    const k = ksuidBounds(T + 250, T + 1250);
    assert.ok(isKsuid(k.lowest) && isKsuid(k.highest));
    assert.equal(ksuidTimestamp(k.lowest), T, 'from rounds down to its second');
    assert.equal(ksuidTimestamp(k.highest), T + 1000, 'to covers its whole second');
    const t = typeIdBounds('inv', T);
    assert.ok(isTypeId(t.lowest) && isTypeId(t.highest));
    assert.equal(typeIdTimestamp(t.lowest), T);
    assert.ok(t.lowest.startsWith('inv_') && t.lowest < t.highest);
  });

  test('Snowflake: every preset whose time is on top, the other fields 0 and all ones', () => {
    for (const layout of Object.values(LAYOUTS)) {
      const at = Math.min(T, layout.horizonMs - 1000);
      const b = snowflakeBounds(layout, at, at + 5);
      assert.equal(
        snowflakeTimestamp(layout, b.lowest),
        at - ((at - layout.epochMs) % layout.unitMs),
      );
      assert.equal(parseSnowflake(b.highest.toString(), layout), b.highest, layout.name);
      assert.equal(b.lowest & ((1n << layout.timeField.shiftBig) - 1n), 0n);
      const low = (1n << layout.timeField.shiftBig) - 1n;
      assert.equal(b.highest & low, low, `${layout.name}: every bit below the time is 1`);
    }
  });
});

describe('the bounds enclose exactly the IDs of the range', () => {
  test('UUIDv7 generators (every method) and uuidv7At', () => {
    fc.assert(
      fc.property(
        instant,
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: -3, max: 5003 }),
        (from, len, off) => {
          const b = uuidv7Bounds(from, from + len);
          const clock = new ManualClock(from + off + 0.5);
          const ids = (['counter', 'fraction', 'random'] as const).map((method) =>
            new UuidV7Generator({ method, clock }).next(),
          );
          ids.push(uuidv7At(from + off), uuidv7At(from + off + 0.999));
          const within = off >= 0 && off <= len;
          for (const id of ids)
            assert.equal(inside(id, b), within, `${id} at +${off} of [0, ${len}]`);
        },
      ),
    );
  });

  test('ULID generators (both modes) and ulidAt; TypeIDs of one prefix', () => {
    fc.assert(
      fc.property(
        instant,
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: -3, max: 5003 }),
        (from, len, off) => {
          const b = ulidBounds(from, from + len);
          const clock = new ManualClock(from + off);
          const ids = [
            new UlidGenerator({ clock }).next(),
            new UlidGenerator({ clock, monotonic: true }).next(),
          ];
          ids.push(ulidAt(from + off), ulidAt(from + off + 0.5));
          const within = off >= 0 && off <= len;
          for (const id of ids) assert.equal(inside(id, b), within);
          assert.equal(
            inside(typeIdAt('user', from + off), typeIdBounds('user', from, from + len)),
            within,
          );
        },
      ),
    );
  });

  test('KSUID: whole seconds', () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: -2500, max: 7500 }), (from, off) => {
        const b = ksuidBounds(from, from + 4000);
        const at = from + off;
        const gen = new KsuidGenerator({ clock: new ManualClock(at) });
        const sec = (ms: number) => Math.floor(ms / 1000);
        const within = sec(at) >= sec(from) && sec(at) <= sec(from + 4000);
        assert.equal(inside(gen.next(), b), within);
        assert.equal(inside(ksuidAt(at), b), within);
      }),
    );
  });

  test('Snowflake: composed IDs with any field values, for every preset and a 10 ms layout', () => {
    const tenMs = defineLayout({
      name: 'ten-ms',
      epoch: '2020-01-01',
      unitMs: 10,
      fields: [
        { name: 'time', bits: 41 },
        { name: 'node', bits: 10 },
        { name: 'sequence', bits: 12 },
      ],
    });
    const layouts = [
      ...Object.values(LAYOUTS).filter(
        (l) => l.epochMs < Date.UTC(2021, 0) && l.horizonMs > Date.UTC(2101, 0),
      ),
      tenMs,
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...layouts),
        fc.integer({ min: Date.UTC(2021, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.integer({ min: -30, max: 530 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (layout, from, off, r) => {
          const b = snowflakeBounds(layout, from, from + 500);
          const fields: Record<string, number> = {};
          for (const f of layout.fields)
            if (f.role !== 'time') fields[f.name] = Math.floor(r * f.mask);
          const at = from + off;
          const id = compose(layout, { unixMs: at, fields });
          const tick = (ms: number) => Math.floor((ms - layout.epochMs) / layout.unitMs);
          const within = tick(at) >= tick(from) && tick(at) <= tick(from + 500);
          assert.equal(id >= b.lowest && id <= b.highest, within, `${layout.name} +${off}`);
        },
      ),
    );
    const clock = new ManualClock(T);
    const gen = new SnowflakeGenerator({ node: 3, clock });
    const ids = Array.from({ length: 50 }, () => gen.next());
    const b = snowflakeBounds(gen.layout, T);
    assert.ok(ids.every((id) => id >= b.lowest && id <= b.highest));
  });
});

describe('backdated IDs', () => {
  test('each decodes to its instant and is unique by its random bits', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      for (const id of [uuidv7At(T), ulidAt(T), ksuidAt(T), typeIdAt('x', T)]) {
        assert.ok(!seen.has(id), id);
        seen.add(id);
      }
    }
    assert.equal(uuidv7Timestamp(uuidv7At(new Date(T))), T);
    assert.equal(ulidTimestamp(ulidAt(T)), T);
    assert.equal(ksuidTimestamp(ksuidAt(T + 999)), T);
    assert.equal(uuidVersion(uuidv7At(T)), 7);
  });

  test('a fractional ms orders IDs within the millisecond: 1/4096 ms steps to 2039, µs to 2100', () => {
    // A double holds unix ms with 12 fraction bits below 2^41 ms (2039-09-07), 11 below 2^42.
    const to2039 = fc.integer({ min: Date.UTC(2015, 0, 1), max: 2 ** 41 - 1 });
    const steps = fc.oneof(
      fc.tuple(to2039, fc.integer({ min: 0, max: 4094 }), fc.constant(4096)),
      fc.tuple(instant, fc.integer({ min: 0, max: 998 }), fc.constant(1000)),
    );
    fc.assert(
      fc.property(steps, ([ms, step, per]) => {
        const a = ms + step / per;
        const b = ms + (step + 1) / per;
        assert.ok(uuidv7At(a) < uuidv7At(b));
        assert.ok(ulidAt(a) < ulidAt(b));
        assert.equal(uuidv7Timestamp(uuidv7At(b)), ms);
        assert.equal(ulidTimestamp(ulidAt(b)), ms);
      }),
    );
  });

  test('vectors with fixed random bytes', () => {
    const random = fixedRandom(Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i));
    const time = T.toString(16)
      .padStart(12, '0')
      .replace(/^(.{8})/, '$1-');
    // rand_a: the fraction (0 here); rand_b: a0 low 6 bits under the variant, then a1..a7.
    assert.equal(uuidv7At(T, random), `${time}-7000-a0a1-a2a3a4a5a6a7`);
    assert.equal(
      uuidv7At(T + 0.5, random),
      `${time}-7800-a0a1-a2a3a4a5a6a7`,
      '0.5 ms is 2048/4096',
    );
    // 12 bits of fraction (0), then the low 68 of the 80 bits a0..a9, in Crockford base32.
    const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    const r = BigInt('0xa0a1a2a3a4a5a6a7a8a9') & ((1n << 68n) - 1n);
    const digits = Array.from(
      { length: 16 },
      (_, i) => crockford[Number((r >> BigInt(75 - 5 * i)) & 31n)],
    );
    assert.equal(ulidAt(T, random), `${encodeTime(T, 10)}${digits.join('')}`);
    assert.equal(
      ksuidAt(T, random),
      composeKsuid(
        T / 1000,
        Uint8Array.from({ length: 16 }, (_, i) => 0xa0 + i),
      ),
    );
  });

  test('the instant and the random source are checked', () => {
    assert.throws(() => uuidv7At('2026' as never), TypeError);
    assert.throws(() => uuidv7At(-1), /expected an integer of unix ms from 0 to 281474976710655/);
    assert.throws(() => uuidv7At(Number.NaN), RangeError);
    assert.throws(() => ulidAt(new Date('nope')), /got an invalid Date/);
    assert.throws(() => ksuidAt((KSUID_EPOCH_SECONDS - 1) * 1000), /KSUID time/);
    assert.throws(() => uuidv7At(T, {} as never), /expected a RandomSource/);
    assert.throws(() => typeIdAt('Bad', T), RangeError);
  });
});

describe('bad ranges and layouts are refused', () => {
  test('from after to, a non-integer, a wrong type', () => {
    assert.throws(() => uuidv7Bounds(T, T - 1), /expected from <= to/);
    assert.throws(() => ulidBounds(T + 0.5), /expected an integer/);
    assert.throws(() => ksuidBounds(null as never), TypeError);
    assert.throws(() => uuidv7Bounds(2 ** 48), RangeError);
  });

  test('a layout whose time is not its top field, an instant outside the layout', () => {
    const nodeFirst = defineLayout({
      name: 'node-first',
      epoch: '2020-01-01',
      fields: [
        { name: 'node', bits: 10 },
        { name: 'time', bits: 41 },
        { name: 'sequence', bits: 12 },
      ],
    });
    assert.throws(
      () => snowflakeBounds(nodeFirst, T),
      /"node" above it: its IDs do not sort by time/,
    );
    assert.throws(
      () => snowflakeBounds(LAYOUTS.default!, Date.UTC(2000, 0)),
      /the time of layout "default"/,
    );
    assert.throws(() => snowflakeBounds({} as never, T), /expected a Layout/);
  });
});
