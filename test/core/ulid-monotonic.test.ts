// Monotonic ULID: the state transition (same ms, later ms, clock behind, overflow) as a table,
// then strict increase over a million IDs under a real, a still and a stepping-back clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Clock, defaultClock, ManualClock } from '../../packages/idforge/src/core/clock.js';
import { MonotonicOverflowError } from '../../packages/idforge/src/core/errors.js';
import { fixedRandom, seededRandom } from '../../packages/idforge/src/core/random.js';
import {
  formatUlid,
  monotonicUlid,
  parseUlid,
  UlidGenerator,
  ulidTimestamp,
} from '../../packages/idforge/src/core/ulid.js';
import { monotonicCarryVectors, monotonicVector } from '../vectors/ulid.js';

/** A generator whose first randomness is the 10 random bytes of `id`, at `id`'s time. */
function startingAt(id: string, clock = new ManualClock(ulidTimestamp(id))) {
  const random = fixedRandom(parseUlid(id).subarray(6));
  return { gen: new UlidGenerator({ monotonic: true, clock, random }), clock };
}

const T = 1508808576371; // the time of the spec's example
const R = fixedRandom(Uint8Array.of(0x11));

/** `steps`: clock readings in order; `expect`: the IDs (or 'overflow') they produce. */
const transitions: readonly {
  title: string;
  start?: string;
  steps: readonly number[];
  expect: readonly string[];
}[] = [
  {
    title: 'ulid/spec Monotonicity: same millisecond increments the randomness by 1 with carry',
    start: monotonicVector.first,
    steps: [T, T],
    expect: [monotonicVector.first, monotonicVector.second],
  },
  {
    title: 'the carry crosses from the low 40 bits into the high 40 bits',
    start: '01BX5ZZKBK00000000ZZZZZZZZ',
    steps: [T, T, T],
    expect: [
      '01BX5ZZKBK00000000ZZZZZZZZ',
      '01BX5ZZKBK0000000100000000',
      '01BX5ZZKBK0000000100000001',
    ],
  },
  {
    title: 'a later millisecond draws fresh randomness',
    steps: [T, T, T + 1],
    expect: [
      '01BX5ZZKBK248H248H248H248H',
      '01BX5ZZKBK248H248H248H248J',
      '01BX5ZZKBM248H248H248H248H',
    ],
  },
  {
    title: 'a clock behind the last ID reuses the last millisecond and increments',
    steps: [T + 5, T, T - 1000, T + 5],
    expect: [
      '01BX5ZZKBR248H248H248H248H',
      '01BX5ZZKBR248H248H248H248J',
      '01BX5ZZKBR248H248H248H248K',
      '01BX5ZZKBR248H248H248H248M',
    ],
  },
  {
    title: 'ulid/spec: the randomness 2^80 - 1 cannot be incremented: overflow',
    start: monotonicVector.last,
    steps: [T, T, T - 1],
    expect: [monotonicVector.last, 'overflow', 'overflow'],
  },
  {
    title: 'after an overflow the next millisecond works again, from fresh randomness',
    start: monotonicVector.last,
    steps: [T, T, T + 1],
    expect: [monotonicVector.last, 'overflow', '01BX5ZZKBMZZZZZZZZZZZZZZZZ'],
  },
];

for (const t of transitions) {
  test(`transition: ${t.title}`, () => {
    const clock = new ManualClock(t.steps[0]);
    const gen = t.start
      ? startingAt(t.start, clock).gen
      : new UlidGenerator({ monotonic: true, clock, random: R });
    t.steps.forEach((ms, i) => {
      clock.set(ms);
      if (t.expect[i] === 'overflow') {
        assert.throws(
          () => gen.next(),
          (e: unknown) =>
            e instanceof MonotonicOverflowError &&
            e.code === 'IDF_MONOTONIC_OVERFLOW' &&
            e.scheme === 'ulid' &&
            e.unixMs === T,
        );
      } else assert.equal(gen.next(), t.expect[i], `step ${i}`);
    });
  });
}

/** The 128 bits of a ULID as one integer (independent of the generator's limbs). */
function bits(id: string): bigint {
  return parseUlid(id).reduce((v, b) => (v << 8n) | BigInt(b), 0n);
}

for (const v of monotonicCarryVectors) {
  test(`carry vector: ${v.title}`, () => {
    if (v.next !== 'overflow') {
      assert.equal(bits(v.next) - bits(v.from), 1n, 'the vector itself: next = from + 1');
    }
    // Through next(), and through nextBytes(), which joins the limbs into 40-bit halves; the
    // clock stands still, then steps back (the same rule applies to an earlier reading).
    for (const [how, draw] of [
      ['next', (g: UlidGenerator) => g.next()],
      ['nextBytes', (g: UlidGenerator) => formatUlid(g.nextBytes())],
    ] as const) {
      for (const step of [0, -1]) {
        const { gen, clock } = startingAt(v.from);
        assert.equal(gen.next(), v.from);
        clock.advance(step);
        if (v.next === 'overflow') {
          assert.throws(() => draw(gen), MonotonicOverflowError, `${how}, clock ${step}`);
          clock.set(ulidTimestamp(v.from));
          assert.throws(() => draw(gen), MonotonicOverflowError, 'the state is unchanged');
        } else {
          assert.equal(draw(gen), v.next, `${how}, clock ${step}`);
          if (v.next.endsWith('Z'.repeat(16)))
            assert.throws(() => gen.next(), MonotonicOverflowError);
          else assert.equal(bits(gen.next()) - bits(v.next), 1n, `${how}: and on by one after it`);
        }
      }
    }
  });
}

test('overflow from 0xFF randomness on a still clock throws and never changes the timestamp', () => {
  const clock = new ManualClock(T);
  const gen = new UlidGenerator({
    monotonic: true,
    clock,
    random: fixedRandom(Uint8Array.of(0xff)),
  });
  const first = gen.next();
  assert.equal(first, '01BX5ZZKBKZZZZZZZZZZZZZZZZ');
  for (let i = 0; i < 3; i++) {
    assert.throws(() => gen.next(), MonotonicOverflowError);
    assert.throws(() => gen.nextBytes(), MonotonicOverflowError);
  }
  clock.advance(-1);
  assert.throws(() => gen.next(), MonotonicOverflowError, 'no borrowing from an earlier ms either');
  clock.set(T + 1);
  const after = gen.next();
  assert.equal(ulidTimestamp(after), T + 1);
  assert.ok(after > first);
});

function assertIncreasing(gen: UlidGenerator, clock: Clock & { tick?: (i: number) => void }) {
  let prev = gen.next();
  for (let i = 1; i < 1_000_000; i++) {
    clock.tick?.(i);
    const id = gen.next();
    if (!(id > prev)) assert.fail(`not increasing at ${i}: ${prev} then ${id}`);
    prev = id;
  }
}

test('strictly increasing over 1,000,000 IDs on the default (real) clock', () => {
  const clock = defaultClock();
  assertIncreasing(new UlidGenerator({ monotonic: true, clock }), clock);
});

test('strictly increasing over 1,000,000 IDs on a clock that stands still, same timestamp', () => {
  const clock = new ManualClock(T);
  const gen = new UlidGenerator({ monotonic: true, clock, random: seededRandom(3) });
  assertIncreasing(gen, clock);
  assert.equal(ulidTimestamp(gen.next()), T);
});

test('strictly increasing over 1,000,000 IDs on a clock stepping back and forth', () => {
  const manual = new ManualClock(T);
  const clock = Object.assign(manual, {
    tick(i: number) {
      if (i % 1000 === 0)
        manual.advance(-3); // NTP-like step back
      else if (i % 7 === 0) manual.advance(1);
    },
  });
  assertIncreasing(new UlidGenerator({ monotonic: true, clock, random: seededRandom(9) }), clock);
});

test('nextBytes shares the monotonic state with next', () => {
  const clock = new ManualClock(T);
  const gen = new UlidGenerator({ monotonic: true, clock, random: R });
  const a = gen.next();
  const b = formatUlid(gen.nextBytes());
  const c = gen.next();
  assert.ok(a < b && b < c, `${a} ${b} ${c}`);
});

test('monotonicUlid() is one module-level sequence: strictly increasing across calls', () => {
  let prev = monotonicUlid();
  for (let i = 0; i < 10000; i++) {
    const id = monotonicUlid();
    assert.ok(id > prev);
    prev = id;
  }
});
