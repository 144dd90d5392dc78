import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ManualClock } from '../../packages/idforge/src/core/clock.js';
import { BASE62_ALPHABET } from '../../packages/idforge/src/core/encoding/base62.js';
import { bytesToHex } from '../../packages/idforge/src/core/encoding/hex.js';
import { HorizonExceededError, InvalidIdError } from '../../packages/idforge/src/core/errors.js';
import {
  composeKsuid,
  decomposeKsuid,
  formatKsuid,
  isKsuid,
  KSUID_EPOCH_SECONDS,
  KSUID_MAX,
  KSUID_MAX_UNIX_SECONDS,
  KSUID_NIL,
  KsuidGenerator,
  ksuid,
  ksuidBytes,
  parseKsuid,
} from '../../packages/idforge/src/core/ksuid.js';
import { fixedRandom, seededRandom } from '../../packages/idforge/src/core/random.js';
import { appendVector, invalidKsuids, ksuidVectors } from '../vectors/ksuid.js';

const hex = (b: Uint8Array) => bytesToHex(b).toUpperCase();
const fromHex = (h: string) => Uint8Array.from(h.match(/../g)!, (x) => Number.parseInt(x, 16));

test('constants: epoch 1,400,000,000 s (2014-05-13T16:53:20Z), Nil and Max', () => {
  assert.equal(KSUID_EPOCH_SECONDS, 1400000000);
  assert.equal(new Date(KSUID_EPOCH_SECONDS * 1000).toISOString(), '2014-05-13T16:53:20.000Z');
  assert.equal(KSUID_NIL, '000000000000000000000000000');
  assert.equal(KSUID_MAX, 'aWgEPTl1tmebfsQzFP4bxwgy80V');
  assert.equal(KSUID_MAX_UNIX_SECONDS - KSUID_EPOCH_SECONDS, 2 ** 32 - 1);
});

test('vectors: parse, format and fromParts agree with segmentio (sources in test/vectors)', () => {
  for (const v of ksuidVectors) {
    const k = decomposeKsuid(v.ksuid);
    assert.equal(hex(k.bytes), v.raw, v.source);
    assert.equal(k.timestamp, v.timestamp, v.source);
    assert.equal(new Date(k.unixMs).toISOString(), v.iso, v.source);
    assert.equal(hex(k.payload), v.payload, v.source);
    assert.equal(formatKsuid(fromHex(v.raw)), v.ksuid, v.source);
    assert.equal(composeKsuid(v.timestamp + KSUID_EPOCH_SECONDS, fromHex(v.payload)), v.ksuid);
    assert.ok(isKsuid(v.ksuid));
  }
  assert.equal(formatKsuid(parseKsuid(appendVector)), appendVector);
});

test('invalid: segmentio TestIssue25/TestParseInvalidBase62 cases and overflow', () => {
  for (const c of invalidKsuids) {
    assert.throws(
      () => parseKsuid(c.input),
      (e: unknown) =>
        e instanceof InvalidIdError &&
        e.scheme === 'ksuid' &&
        e.reason === c.reason &&
        e.position === c.position,
      c.input,
    );
    assert.equal(isKsuid(c.input), false);
  }
});

test('a bad character at every position is rejected with that position', () => {
  const bad = [
    '-',
    '_',
    '+',
    '/',
    '=',
    ' ',
    '!',
    '\u0000',
    '\u007f',
    '\u00e9',
    '\u0130',
    '\uff10',
    '\ud83d',
  ];
  for (let i = 0; i < 27; i++) {
    for (const ch of bad) {
      const text = appendVector.slice(0, i) + ch + appendVector.slice(i + 1);
      assert.throws(
        () => decomposeKsuid(text),
        (e: unknown) => e instanceof InvalidIdError && e.reason === 'alphabet' && e.position === i,
        `${JSON.stringify(ch)}@${i}`,
      );
      assert.equal(isKsuid(text), false);
    }
  }
});

test('lengths other than 27 are rejected', () => {
  for (const s of ['', appendVector.slice(1), `${appendVector}0`, '0'.repeat(40)]) {
    assert.throws(
      () => parseKsuid(s),
      (e: unknown) => e instanceof InvalidIdError && e.reason === 'length',
    );
    assert.equal(isKsuid(s), false);
  }
});

test('base62 is case-sensitive: swapping the case changes or invalidates the value', () => {
  const upper = appendVector.toUpperCase();
  assert.notDeepEqual(parseKsuid(upper), parseKsuid(appendVector));
});

test('round trips: formatKsuid/decomposeKsuid over any 20 bytes; composeKsuid over any time', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (b) => {
      const text = formatKsuid(b);
      assert.equal(text.length, 27);
      const k = decomposeKsuid(text);
      assert.deepEqual(k.bytes, b);
      assert.deepEqual(k.payload, b.subarray(4));
      assert.equal(k.unixMs, (k.timestamp + KSUID_EPOCH_SECONDS) * 1000);
    }),
    { numRuns: 3000 },
  );
  fc.assert(
    fc.property(
      fc.integer({ min: KSUID_EPOCH_SECONDS, max: KSUID_MAX_UNIX_SECONDS }),
      fc.uint8Array({ minLength: 16, maxLength: 16 }),
      (s, payload) => {
        const k = decomposeKsuid(composeKsuid(s, payload));
        assert.equal(k.unixMs, s * 1000);
        assert.deepEqual(k.payload, payload);
      },
    ),
    { numRuns: 3000 },
  );
  // Text order is byte order (sortable), as the fixed width and ASCII alphabet promise.
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 20, maxLength: 20 }),
      fc.uint8Array({ minLength: 20, maxLength: 20 }),
      (a, b) => {
        const byBytes = Math.sign(Buffer.compare(a, b));
        const ta = formatKsuid(a);
        const tb = formatKsuid(b);
        assert.equal(ta < tb ? -1 : ta > tb ? 1 : 0, byBytes);
      },
    ),
  );
  const alphabetText = fc.string({
    unit: fc.constantFrom(...BASE62_ALPHABET),
    minLength: 27,
    maxLength: 27,
  });
  fc.assert(fc.property(alphabetText, (t) => isKsuid(t) === t <= KSUID_MAX));
});

test('generator: timestamp from the clock in whole seconds, payload from the source', () => {
  const clock = new ManualClock(1507608047999); // 2017-10-10T04:00:47.999Z
  const gen = new KsuidGenerator({
    clock,
    random: fixedRandom(fromHex('B5A1CD34B5F99D1154FB6853345C9735')),
  });
  assert.equal(gen.next(), '0ujtsYcgvSTl8PAuAdqWYSMnLOv'); // segmentio README inspect example
  const out = new Uint8Array(24);
  gen.nextBytes(out, 2);
  assert.equal(hex(out.subarray(2, 22)), '0669F7EFB5A1CD34B5F99D1154FB6853345C9735');
  assert.deepEqual([...out.subarray(0, 2)], [0, 0]);
  clock.advance(1);
  assert.equal(decomposeKsuid(gen.next()).timestamp, 107608048);
});

test('generator: next and nextBytes agree; default ksuid()/ksuidBytes() are fresh and current', () => {
  const make = () =>
    new KsuidGenerator({ clock: new ManualClock(1.7e12), random: seededRandom(5) });
  const a = make();
  const b = make();
  for (let i = 0; i < 100; i++) assert.equal(formatKsuid(a.nextBytes()), b.next());
  const seen = new Set<string>();
  const before = Date.now();
  for (let i = 0; i < 10000; i++) seen.add(ksuid());
  assert.equal(seen.size, 10000);
  for (const id of seen) assert.ok(isKsuid(id));
  const ms = decomposeKsuid(formatKsuid(ksuidBytes())).unixMs;
  assert.ok(ms >= before - 2000 && ms <= Date.now() + 1000);
});

test('generator: a time before the KSUID epoch or past 2^32 - 1 s is HorizonExceededError', () => {
  for (const ms of [
    KSUID_EPOCH_SECONDS * 1000 - 1,
    -500,
    0,
    (KSUID_MAX_UNIX_SECONDS + 1) * 1000,
    Number.NaN,
  ]) {
    const clock = { now: () => ms, nowPrecise: () => ms, sleep: () => {} };
    const gen = new KsuidGenerator({ clock });
    const expected = Number.isNaN(ms) ? RangeError : HorizonExceededError;
    assert.throws(() => gen.next(), expected, String(ms));
    assert.throws(() => gen.nextBytes(), expected, String(ms));
  }
  const first = new KsuidGenerator({ clock: new ManualClock(KSUID_EPOCH_SECONDS * 1000) });
  assert.equal(decomposeKsuid(first.next()).timestamp, 0);
  const last = new KsuidGenerator({ clock: new ManualClock(KSUID_MAX_UNIX_SECONDS * 1000 + 999) });
  assert.equal(decomposeKsuid(last.next()).timestamp, 2 ** 32 - 1);
});

test('misuse: wrong arguments throw TypeError/RangeError', () => {
  assert.throws(() => composeKsuid(KSUID_EPOCH_SECONDS - 1, new Uint8Array(16)), RangeError);
  assert.throws(() => composeKsuid(KSUID_MAX_UNIX_SECONDS + 1, new Uint8Array(16)), RangeError);
  assert.throws(() => composeKsuid(1.5e9 + 0.5, new Uint8Array(16)), RangeError);
  assert.throws(() => composeKsuid('1500000000' as never, new Uint8Array(16)), TypeError);
  assert.throws(() => composeKsuid(1.5e9, new Uint8Array(15)), RangeError);
  assert.throws(() => composeKsuid(1.5e9, [1] as never), TypeError);
  assert.throws(() => formatKsuid(new Uint8Array(19)), RangeError);
  assert.throws(() => parseKsuid(null as never), TypeError);
  assert.throws(() => parseKsuid(KSUID_NIL, new Uint8Array(20), 1), RangeError);
  assert.throws(() => new KsuidGenerator('x' as never), TypeError);
  assert.throws(() => new KsuidGenerator({ clock: { now: 5 } as never }), TypeError);
  assert.throws(() => new KsuidGenerator({ random: {} as never }), TypeError);
  assert.equal(isKsuid(undefined), false);
  assert.equal(isKsuid(27), false);
});
