import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock } from '../../packages/idforge/src/core/clock.js';
import { HorizonExceededError, InvalidIdError } from '../../packages/idforge/src/core/errors.js';
import { fixedRandom, RandomPool, seededRandom } from '../../packages/idforge/src/core/random.js';
import { formatUuid } from '../../packages/idforge/src/core/uuid/format.js';
import { isUuid, parseUuid } from '../../packages/idforge/src/core/uuid/parse.js';
import {
  createUuidV7State,
  stepV7Counter,
  stepV7Fraction,
  stepV7Random,
  UUIDV7_ROLLBACK_ALLOWANCE_MS,
  UuidV7Generator,
  type UuidV7Step,
  unsafeV7Into,
  uuidv7,
  uuidv7Bytes,
  uuidv7Timestamp,
} from '../../packages/idforge/src/core/uuid/v7.js';
import type { UuidV7State } from '../../packages/idforge/src/core/uuid/v7-state.js';
import { RFC_EXAMPLE_UNIX_MS } from '../vectors/uuid.js';

/**
 * The random source of every table row: a 12-byte pool over a fixed pattern, so the steps
 * read the 32-bit words R0, R1, R2, R0, R1, ... in that order.
 */
const R0 = 0x12345678;
const R1 = 0x9abcdef0;
const R2 = 0x11223344;
function pool(): RandomPool {
  const b = new Uint8Array(12);
  new DataView(b.buffer).setUint32(0, R0);
  new DataView(b.buffer).setUint32(4, R1);
  new DataView(b.buffer).setUint32(8, R2);
  return new RandomPool(fixedRandom(b), 12);
}

interface Row {
  title: string;
  state: UuidV7State;
  now: number;
  expected: UuidV7State | (new (...a: never[]) => Error);
}

const S = (ms: number, randA: number, randBHi: number, randBLo: number): UuidV7State => ({
  ms,
  randA,
  randBHi,
  randBLo,
});
const FRESH = createUuidV7State();
const MAX_MS = 2 ** 48 - 1;
const BACK = UUIDV7_ROLLBACK_ALLOWANCE_MS;

function runTable(step: UuidV7Step, rows: Row[]): void {
  for (const row of rows) {
    test(row.title, () => {
      const state = { ...row.state };
      if (typeof row.expected === 'function') {
        assert.throws(() => step(state, row.now, pool()), row.expected);
        assert.deepEqual(state, row.state, 'a step that throws leaves the state unchanged');
        return;
      }
      assert.deepEqual(step(state, row.now, pool()), row.expected);
    });
  }
}

// Seeds: counter/random take randA = R0 >>> 21 (11 bits, top bit 0 as rollover guard),
// randBHi = R1 >>> 2 (30 bits), randBLo = R2; fraction takes randBHi = R0 >>> 3 (29 bits).
const SEED = { a: 0x91, bHi: 0x26af37bc, bLo: R2 };

describe('stepV7Counter (RFC 9562 §6.2 Method 1, 42-bit counter)', () => {
  runTable(stepV7Counter, [
    {
      title: 'first ID seeds from the clock',
      state: FRESH,
      now: 1000,
      expected: S(1000, SEED.a, SEED.bHi, SEED.bLo),
    },
    {
      title: 'tick change: a later ms re-seeds',
      state: S(1000, 5, 7, 9),
      now: 1001,
      expected: S(1001, SEED.a, SEED.bHi, SEED.bLo),
    },
    {
      title: 'same ms: counter + 1, fresh randBLo',
      state: S(1000, 5, 7, 9),
      now: 1000,
      expected: S(1000, 5, 8, R0),
    },
    {
      title: 'fractional reading is floored (same ms)',
      state: S(1000, 5, 7, 9),
      now: 1000.99,
      expected: S(1000, 5, 8, R0),
    },
    {
      title: 'rollback 1 ms: keeps last ms, increments',
      state: S(1000, 5, 7, 9),
      now: 999,
      expected: S(1000, 5, 8, R0),
    },
    {
      title: `rollback exactly ${BACK} ms: still increments`,
      state: S(20_000, 5, 7, 9),
      now: 20_000 - BACK,
      expected: S(20_000, 5, 8, R0),
    },
    {
      title: `rollback ${BACK + 1} ms: re-seeds at the clock's time`,
      state: S(20_000, 5, 7, 9),
      now: 20_000 - BACK - 1,
      expected: S(20_000 - BACK - 1, SEED.a, SEED.bHi, SEED.bLo),
    },
    {
      title: 'counter carries from rand_b into rand_a',
      state: S(1000, 5, 0x3fffffff, 9),
      now: 1000,
      expected: S(1000, 6, 0, R0),
    },
    {
      title: 'overflow: timestamp + 1 ms ahead of the clock, re-seeded',
      state: S(1000, 0xfff, 0x3fffffff, 9),
      now: 1000,
      expected: S(1001, SEED.a, SEED.bHi, SEED.bLo),
    },
    {
      title: 'overflow while the clock is behind: last ms + 1',
      state: S(1000, 0xfff, 0x3fffffff, 9),
      now: 995,
      expected: S(1001, SEED.a, SEED.bHi, SEED.bLo),
    },
    {
      title: 'after an overflow the real ms (now behind) increments',
      state: S(1001, SEED.a, SEED.bHi, SEED.bLo),
      now: 1000,
      expected: S(1001, SEED.a, SEED.bHi + 1, R0),
    },
    {
      title: 'last 48-bit ms is accepted',
      state: FRESH,
      now: MAX_MS,
      expected: S(MAX_MS, SEED.a, SEED.bHi, SEED.bLo),
    },
    {
      title: 'overflow at the last 48-bit ms: HorizonExceededError',
      state: S(MAX_MS, 0xfff, 0x3fffffff, 9),
      now: MAX_MS,
      expected: HorizonExceededError,
    },
    {
      title: 'time past 2^48 - 1: HorizonExceededError',
      state: FRESH,
      now: MAX_MS + 1,
      expected: HorizonExceededError,
    },
    {
      title: 'negative time: HorizonExceededError',
      state: FRESH,
      now: -1,
      expected: HorizonExceededError,
    },
    {
      title: 'NaN reading: RangeError',
      state: S(1000, 5, 7, 9),
      now: Number.NaN,
      expected: RangeError,
    },
    {
      title: 'Infinity reading: RangeError',
      state: FRESH,
      now: Number.POSITIVE_INFINITY,
      expected: RangeError,
    },
  ]);
});

describe('stepV7Fraction (RFC 9562 §6.2 Method 3, then a 30-bit counter)', () => {
  const FB = R0 >>> 3; // 0x02468acf
  runTable(stepV7Fraction, [
    {
      title: 'first ID: rand_a = floor(0.5 × 4096)',
      state: FRESH,
      now: 1000.5,
      expected: S(1000, 2048, FB, R1),
    },
    {
      title: 'tick change: a later fraction re-seeds',
      state: S(1000, 2048, 7, 9),
      now: 1000.75,
      expected: S(1000, 3072, FB, R1),
    },
    {
      title: 'tick change: a later ms re-seeds',
      state: S(1000, 4095, 7, 9),
      now: 1001,
      expected: S(1001, 0, FB, R1),
    },
    {
      title: 'same 1/4096 ms: counter + 1',
      state: S(1000, 2048, 7, 9),
      now: 1000.5001,
      expected: S(1000, 2048, 8, R0),
    },
    {
      title: 'earlier fraction in the same ms: increments',
      state: S(1000, 2048, 7, 9),
      now: 1000.25,
      expected: S(1000, 2048, 8, R0),
    },
    {
      title: `rollback within ${BACK} ms: increments`,
      state: S(20_000, 2048, 7, 9),
      now: 20_000 - BACK + 0.9,
      expected: S(20_000, 2048, 8, R0),
    },
    {
      title: 'rollback beyond the allowance: re-seeds',
      state: S(20_000, 2048, 7, 9),
      now: 20_000 - BACK - 1 + 0.25,
      expected: S(20_000 - BACK - 1, 1024, FB, R1),
    },
    {
      title: 'counter overflow: fraction + 1, re-seeded',
      state: S(1000, 2048, 0x3fffffff, 9),
      now: 1000.5,
      expected: S(1000, 2049, FB, R1),
    },
    {
      title: 'counter overflow at fraction 4095: next ms, fraction 0',
      state: S(1000, 4095, 0x3fffffff, 9),
      now: 1000,
      expected: S(1001, 0, FB, R1),
    },
    {
      title: 'overflow at the last 48-bit ms: HorizonExceededError',
      state: S(MAX_MS, 4095, 0x3fffffff, 9),
      now: MAX_MS,
      expected: HorizonExceededError,
    },
    {
      title: 'negative time: HorizonExceededError',
      state: FRESH,
      now: -0.5,
      expected: HorizonExceededError,
    },
    {
      title: 'NaN reading: RangeError',
      state: S(1000, 5, 7, 9),
      now: Number.NaN,
      expected: RangeError,
    },
  ]);
});

describe('stepV7Random (RFC 9562 §6.2 Method 2, 74-bit random increments)', () => {
  const INC = 1 + R0;
  runTable(stepV7Random, [
    {
      title: 'first ID seeds 73 random bits',
      state: FRESH,
      now: 1000,
      expected: S(1000, SEED.a, SEED.bHi, SEED.bLo),
    },
    {
      title: 'tick change: a later ms re-seeds',
      state: S(1000, 5, 7, 9),
      now: 1001,
      expected: S(1001, SEED.a, SEED.bHi, SEED.bLo),
    },
    {
      title: 'same ms: adds 1 + a random 32-bit word',
      state: S(1000, 5, 7, 100),
      now: 1000,
      expected: S(1000, 5, 7, 100 + INC),
    },
    {
      title: 'rollback 1 ms: increments',
      state: S(1000, 5, 7, 100),
      now: 999,
      expected: S(1000, 5, 7, 100 + INC),
    },
    {
      title: 'rollback beyond the allowance: re-seeds',
      state: S(20_000, 5, 7, 9),
      now: 20_000 - BACK - 1,
      expected: S(20_000 - BACK - 1, SEED.a, SEED.bHi, SEED.bLo),
    },
    {
      title: 'carry from the low 32 bits',
      state: S(1000, 5, 7, 0xffffffff),
      now: 1000,
      expected: S(1000, 5, 8, R0),
    },
    {
      title: 'carry into rand_a',
      state: S(1000, 5, 0x3fffffff, 0xffffffff),
      now: 1000,
      expected: S(1000, 6, 0, R0),
    },
    // The increment consumed R0; the re-seed then reads R1, R2, R0.
    {
      title: 'overflow: timestamp + 1 ms, re-seeded',
      state: S(1000, 0xfff, 0x3fffffff, 0xffffffff),
      now: 1000,
      expected: S(1001, R1 >>> 21, R2 >>> 2, R0),
    },
    {
      title: 'overflow at the last 48-bit ms: HorizonExceededError',
      state: S(MAX_MS, 0xfff, 0x3fffffff, 0xffffffff),
      now: MAX_MS,
      expected: HorizonExceededError,
    },
  ]);
});

describe('UuidV7Generator', () => {
  test('layout: timestamp, version 7, variant 10, fields from the state (§5.7)', () => {
    const out = unsafeV7Into(
      S(RFC_EXAMPLE_UNIX_MS, 0xcc3, 0x18c4dc0c, 0x0c07398f),
      new Uint8Array(16),
      0,
    );
    // RFC 9562 §A.6 example 017F22E2-79B0-7CC3-98C4-DC0C0C07398F, rebuilt from its fields.
    assert.equal(formatUuid(out), '017f22e2-79b0-7cc3-98c4-dc0c0c07398f');
  });

  for (const method of ['counter', 'fraction', 'random'] as const) {
    test(`${method}: text and bytes match, timestamps decode to the clock, deterministic`, () => {
      const make = () =>
        new UuidV7Generator({
          method,
          clock: new ManualClock(1_700_000_000_123.25),
          random: seededRandom(3),
        });
      const a = make();
      const b = make();
      for (let i = 0; i < 100; i++) {
        const s = a.next();
        assert.equal(s, formatUuid(b.nextBytes()));
        assert.ok(isUuid(s, 7), s);
        assert.equal(uuidv7Timestamp(s), 1_700_000_000_123);
        assert.equal(uuidv7Timestamp(parseUuid(s)), 1_700_000_000_123);
      }
    });
  }

  test('counter: the first ID of each ms has rand_a below 0x800 (rollover guard)', () => {
    const clock = new ManualClock(1_700_000_000_000);
    const g = new UuidV7Generator({ clock, random: seededRandom(11) });
    for (let i = 0; i < 2000; i++) {
      clock.advance(1);
      assert.match(g.next(), /^.{14}7[0-7]/);
    }
  });

  test('rollback of 5 s keeps order; of 20 s re-seeds at the earlier time', () => {
    const clock = new ManualClock(1_700_000_100_000);
    const g = new UuidV7Generator({ clock });
    const first = g.next();
    clock.advance(-5000);
    const second = g.next();
    assert.ok(second > first);
    assert.equal(uuidv7Timestamp(second), 1_700_000_100_000);
    clock.advance(-15_000);
    const third = g.next();
    assert.equal(uuidv7Timestamp(third), 1_700_000_080_000);
    assert.ok(third < second, 'order is given up beyond the allowance; uniqueness is kept');
  });

  test('a clock beyond 48 bits throws HorizonExceededError and the generator recovers', () => {
    const clock = new ManualClock(1_700_000_000_000);
    const g = new UuidV7Generator({ clock });
    const before = g.next();
    clock.set(2 ** 48);
    assert.throws(() => g.next(), HorizonExceededError);
    assert.throws(() => g.nextBytes(), HorizonExceededError);
    clock.set(1_700_000_000_000);
    assert.ok(g.next() > before);
  });

  test('nextBytes writes into a caller buffer at an offset', () => {
    const out = new Uint8Array(48).fill(0xee);
    const g = new UuidV7Generator({ clock: new ManualClock(1000), random: seededRandom(1) });
    assert.equal(g.nextBytes(out, 16), out);
    assert.ok(
      out.subarray(0, 16).every((x) => x === 0xee) && out.subarray(32).every((x) => x === 0xee),
    );
    assert.equal(uuidv7Timestamp(out.slice(16, 32)), 1000);
    assert.throws(() => g.nextBytes(out, 33), RangeError);
    assert.throws(() => g.nextBytes(new Uint8Array(15)), RangeError);
    assert.throws(() => g.nextBytes([] as never), TypeError);
  });

  test('options are validated at construction', () => {
    assert.throws(() => new UuidV7Generator({ method: 'monotonic' as never }), RangeError);
    assert.throws(() => new UuidV7Generator({ method: 7 as never }), TypeError);
    assert.throws(() => new UuidV7Generator({ clock: {} as never }), TypeError);
    assert.throws(() => new UuidV7Generator({ clock: null as never }), TypeError);
    assert.throws(() => new UuidV7Generator({ random: { fill: 1 } as never }), TypeError);
    assert.throws(() => new UuidV7Generator(null as never), TypeError);
    assert.equal(new UuidV7Generator().method, 'counter');
  });

  test('uuidv7() and uuidv7Bytes(): one process-wide increasing sequence', () => {
    let last = uuidv7();
    for (let i = 0; i < 1000; i++) {
      const s = i % 2 ? uuidv7() : formatUuid(uuidv7Bytes());
      assert.ok(s > last, `${s} > ${last}`);
      assert.ok(isUuid(s, 7));
      last = s;
    }
    assert.ok(Math.abs(uuidv7Timestamp(last) - Date.now()) < 60_000, 'near the wall clock');
  });
});

describe('uuidv7Timestamp', () => {
  test('RFC 9562 §A.6: 017F22E2-79B0-7CC3-98C4-DC0C0C07398F → 1645557742000', () => {
    assert.equal(uuidv7Timestamp('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'), RFC_EXAMPLE_UNIX_MS);
  });

  test('extremes of the 48-bit field', () => {
    assert.equal(uuidv7Timestamp('00000000-0000-7000-8000-000000000000'), 0);
    assert.equal(uuidv7Timestamp('ffffffff-ffff-7fff-bfff-ffffffffffff'), MAX_MS);
  });

  test('rejects other versions, variants and malformed input', () => {
    const reason = (r: string) => (e: unknown) => e instanceof InvalidIdError && e.reason === r;
    assert.throws(() => uuidv7Timestamp('919108f7-52d1-4320-9bac-f847db4148a8'), reason('version'));
    assert.throws(() => uuidv7Timestamp('017f22e2-79b0-7cc3-c8c4-dc0c0c07398f'), reason('variant'));
    assert.throws(() => uuidv7Timestamp('00000000-0000-0000-0000-000000000000'), reason('version'));
    assert.throws(() => uuidv7Timestamp('017f22e2-79b0-7cc3-98c4'), reason('length'));
    assert.throws(() => uuidv7Timestamp(new Uint8Array(8)), reason('length'));
    assert.throws(() => uuidv7Timestamp(17 as never), TypeError);
  });
});
