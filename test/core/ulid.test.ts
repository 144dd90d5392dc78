import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ManualClock } from '../../packages/idforge/src/core/clock.js';
import { bytesToHex } from '../../packages/idforge/src/core/encoding/hex.js';
import { HorizonExceededError, InvalidIdError } from '../../packages/idforge/src/core/errors.js';
import { fixedRandom, seededRandom } from '../../packages/idforge/src/core/random.js';
import {
  formatUlid,
  isUlid,
  parseUlid,
  UlidGenerator,
  ulid,
  ulidBytes,
  ulidTimestamp,
  ulidToUuid,
  uuidToUlid,
} from '../../packages/idforge/src/core/ulid.js';
import {
  encodeTimeVector,
  lenientVector,
  overflowing,
  strictBase,
  ulidVectors,
  uuidPairs,
} from '../vectors/ulid.js';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_TEXT = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

function isInvalid(reason: string, position?: number) {
  return (e: unknown) =>
    e instanceof InvalidIdError &&
    e.scheme === 'ulid' &&
    e.code === 'IDF_INVALID_ID' &&
    e.reason === reason &&
    e.position === position;
}

test('vectors: text, bytes and time agree both ways (sources in test/vectors/ulid.ts)', () => {
  for (const v of ulidVectors) {
    assert.equal(bytesToHex(parseUlid(v.ulid)), v.hex, v.source);
    assert.equal(formatUlid(parseUlid(v.ulid)), v.ulid, v.source);
    assert.equal(ulidTimestamp(v.ulid), v.time, v.source);
    assert.equal(ulidTimestamp(parseUlid(v.ulid)), v.time, v.source);
    assert.ok(isUlid(v.ulid), v.source);
  }
});

test('ulid/javascript encodeTime vector: 1469918176385 gives the prefix 01ARYZ6S41', () => {
  const gen = new UlidGenerator({
    clock: new ManualClock(encodeTimeVector.time),
    random: fixedRandom(Uint8Array.of(0)),
  });
  const id = gen.next();
  assert.equal(id.slice(0, 10), encodeTimeVector.prefix);
  // oklog/ulid TestAlizainCompatibility: with zero entropy the whole ULID is published.
  assert.equal(id, '01ARYZ6S410000000000000000');
});

test('oklog/ulid TestOverflowHandling: a first character above 7 is an overflow at 0', () => {
  for (const s of overflowing) {
    assert.throws(() => parseUlid(s), isInvalid('overflow', 0), s);
    assert.throws(() => parseUlid(s, { lenient: true }), isInvalid('overflow', 0), s);
    assert.equal(isUlid(s), false);
  }
  for (const first of '89ABCDEFGHJKMNPQRSTVWXYZ') {
    assert.throws(() => parseUlid(`${first}${'0'.repeat(25)}`), isInvalid('overflow', 0));
  }
});

test('lengths other than 26 are rejected (25, 27, 0, 36)', () => {
  for (const s of [
    strictBase.slice(1),
    `${strictBase}0`,
    '',
    '01563df3-6481-d676-4c61-efb99302bd5b',
  ]) {
    assert.throws(() => parseUlid(s), isInvalid('length'), JSON.stringify(s));
    assert.equal(isUlid(s), false);
  }
});

/** Every character that is not a Crockford digit in either case, plus some beyond ASCII. */
const NON_DIGITS = [
  ...Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)).filter(
    (ch) => !ALPHABET.includes(ch.toUpperCase()),
  ),
  '\u00ff', // oklog/ulid TestParseStrictInvalidCharacters uses 0xFF and 0x00
  '\u00e9',
  '\u0131', // dotless i: upper-cases to I, must not be read as one
  '\u212a', // Kelvin sign: lower-cases to k
  '\uff10', // full-width 0
  '\ud83d', // lone surrogate
];

test('strict: every invalid character at every position is rejected with its position', () => {
  assert.ok(NON_DIGITS.includes('I') && NON_DIGITS.includes('u') && NON_DIGITS.includes('\u0000'));
  for (let i = 0; i < 26; i++) {
    for (const ch of NON_DIGITS) {
      const text = strictBase.slice(0, i) + ch + strictBase.slice(i + 1);
      assert.throws(() => parseUlid(text), isInvalid('alphabet', i), `${JSON.stringify(ch)}@${i}`);
      assert.equal(isUlid(text), false);
    }
  }
});

test('lenient: I, L read as 1 and O as 0 (either case) at every position; U and the rest stay invalid', () => {
  const as = { I: '1', i: '1', L: '1', l: '1', O: '0', o: '0' } as const;
  for (let i = 0; i < 26; i++) {
    for (const [ch, digit] of Object.entries(as)) {
      const text = strictBase.slice(0, i) + ch + strictBase.slice(i + 1);
      const same = strictBase.slice(0, i) + digit + strictBase.slice(i + 1);
      assert.deepEqual(parseUlid(text, { lenient: true }), parseUlid(same), `${ch}@${i}`);
      assert.ok(isUlid(text, { lenient: true }));
      assert.equal(ulidTimestamp(text, { lenient: true }), ulidTimestamp(same));
      assert.throws(() => parseUlid(text), isInvalid('alphabet', i));
    }
    for (const ch of NON_DIGITS.filter((c) => !(c in as))) {
      const text = strictBase.slice(0, i) + ch + strictBase.slice(i + 1);
      assert.throws(() => parseUlid(text, { lenient: true }), isInvalid('alphabet', i));
    }
  }
  // ulid/javascript crockford.spec.ts fixULIDBase32, without the hyphens.
  assert.equal(
    formatUlid(parseUlid(lenientVector.input, { lenient: true })),
    lenientVector.canonical,
  );
});

test('decoding is case-insensitive; encoding is upper case', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.boolean(), (bytes, flip) => {
      const text = formatUlid(bytes);
      assert.match(text, ULID_TEXT);
      const mixed = [...text]
        .map((c, i) => (flip === (i % 2 === 0) ? c.toLowerCase() : c))
        .join('');
      assert.deepEqual(parseUlid(text.toLowerCase()), bytes);
      assert.deepEqual(parseUlid(mixed), bytes);
    }),
    { numRuns: 2000 },
  );
});

test('round trips: parseUlid(formatUlid(b)) and UUID <-> ULID keep the 128 bits', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
      const text = formatUlid(bytes);
      assert.deepEqual(parseUlid(text), bytes);
      const uuid = ulidToUuid(text);
      assert.equal(uuid.replaceAll('-', ''), bytesToHex(bytes));
      assert.equal(uuidToUlid(uuid), text);
      assert.equal(uuidToUlid(uuid.toUpperCase()), text);
    }),
    { numRuns: 3000 },
  );
  // Any 16 bytes are a ULID; any 26-digit text up to 7ZZ...Z decodes and re-encodes.
  const digit = fc.constantFrom(...ALPHABET);
  const text = fc
    .tuple(fc.constantFrom(...'01234567'), fc.string({ unit: digit, minLength: 25, maxLength: 25 }))
    .map(([a, b]) => a + b);
  fc.assert(fc.property(text, (t) => formatUlid(parseUlid(t)) === t));
});

test('ulid/javascript uuid.spec.ts: ulidToUUID and uuidToULID vectors', () => {
  for (const p of uuidPairs) {
    assert.equal(ulidToUuid(p.ulid), p.uuid.toLowerCase(), p.source);
    assert.equal(uuidToUlid(p.uuid), p.ulid, p.source);
  }
  assert.throws(() => uuidToUlid('01563df3-6481-d676-4c61-efb99302bd5'), InvalidIdError);
});

test('into forms: parseUlid and nextBytes write exactly their 16 bytes at the offset', () => {
  const out = new Uint8Array(20).fill(0xee);
  parseUlid('7ZZZZZZZZZZZZZZZZZZZZZZZZZ', undefined, out, 2);
  assert.deepEqual([...out.subarray(0, 2)], [0xee, 0xee]);
  assert.ok(out.subarray(2, 18).every((b) => b === 0xff));
  assert.deepEqual([...out.subarray(18)], [0xee, 0xee]);
  const gen = new UlidGenerator({
    clock: new ManualClock(100000),
    random: fixedRandom(Uint8Array.of(0xff)),
  });
  const buf = new Uint8Array(20);
  gen.nextBytes(buf, 3);
  assert.equal(bytesToHex(buf), `000000${'0000000186a0'}${'ff'.repeat(10)}00`);
  const padded = new Uint8Array(18);
  padded.set(parseUlid(strictBase), 1);
  assert.equal(formatUlid(padded, 1), strictBase);
});

test('generator: nextBytes and next agree; default ulid()/ulidBytes() give valid fresh IDs', () => {
  const make = () =>
    new UlidGenerator({ clock: new ManualClock(1700000000000), random: seededRandom(7) });
  const a = make();
  const b = make();
  for (let i = 0; i < 100; i++) assert.equal(formatUlid(a.nextBytes()), b.next());
  const seen = new Set<string>();
  const before = Date.now();
  for (let i = 0; i < 10000; i++) seen.add(ulid());
  assert.equal(seen.size, 10000);
  for (const id of seen) assert.match(id, ULID_TEXT);
  const t = ulidTimestamp(ulidBytes());
  assert.ok(t >= before - 1000 && t <= Date.now() + 1000, 'time comes from the default clock');
});

test('generator: a clock outside [0, 2^48 - 1] ms is HorizonExceededError, a non-integer a RangeError', () => {
  const cases: [number, ErrorConstructor | typeof HorizonExceededError][] = [
    [-1, HorizonExceededError],
    [-1000, HorizonExceededError],
    [2 ** 48, HorizonExceededError],
    [1.5, RangeError],
    [Number.NaN, RangeError],
    [Number.POSITIVE_INFINITY, RangeError],
  ];
  for (const [ms, expected] of cases) {
    for (const monotonic of [false, true]) {
      // A raw clock, so fractions reach the generator (ManualClock.now() floors).
      const clock = { now: () => ms, nowPrecise: () => ms, sleep: () => {} };
      const gen = new UlidGenerator({ monotonic, clock });
      assert.throws(() => gen.next(), expected, `${ms} ${monotonic}`);
      assert.throws(() => gen.nextBytes(), expected);
    }
  }
  const top = new UlidGenerator({ clock: new ManualClock(2 ** 48 - 1) });
  assert.equal(top.next().slice(0, 10), '7ZZZZZZZZZ');
});

test('misuse: wrong argument types and options throw TypeError/RangeError', () => {
  assert.throws(() => parseUlid(1 as never), TypeError);
  assert.throws(() => parseUlid(strictBase, { lenient: 1 as never }), TypeError);
  assert.throws(() => parseUlid(strictBase, undefined, new Uint8Array(16), 1), RangeError);
  assert.throws(() => formatUlid(new Uint8Array(15)), RangeError);
  assert.throws(() => formatUlid([1, 2] as never), TypeError);
  assert.throws(() => ulidTimestamp(new Uint8Array(10)), RangeError);
  assert.throws(() => ulidTimestamp(5 as never), TypeError);
  for (const text of [strictBase.slice(0, 25), `${strictBase}0`, strictBase.slice(0, 10)]) {
    assert.throws(
      () => ulidTimestamp(text),
      (e: unknown) => e instanceof InvalidIdError && e.reason === 'length',
      `${text.length} characters`,
    );
  }
  assert.equal(isUlid(42), false);
  assert.equal(isUlid(null), false);
  assert.throws(() => isUlid(strictBase, 'lenient' as never), TypeError);
  for (const options of [null, 5, 'monotonic']) {
    assert.throws(
      () => new UlidGenerator(options as never),
      (e: unknown) =>
        e instanceof TypeError && e.message.startsWith('UlidGenerator options: expected an object'),
      String(options),
    );
  }
  assert.throws(() => new UlidGenerator({ monotonic: 'yes' as never }), TypeError);
  assert.throws(() => new UlidGenerator({ clock: {} as never }), TypeError);
  assert.throws(() => new UlidGenerator({ random: Math.random as never }), TypeError);
  assert.throws(() => new UlidGenerator().nextBytes(new Uint8Array(16), 1), RangeError);
});
