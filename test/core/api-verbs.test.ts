// One verb pair per scheme (issue 9 §1): parseX(text) → bytes (Snowflake: bigint),
// formatX(bytes) → text, xTimestamp(id) → unix ms, isX, validateX; generators are built with
// `new XGenerator(options)`. Also: MonotonicClock and ManualClock validate their options.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import * as root from '../../packages/idforge/src/core/index.js';
import {
  formatKsuid,
  formatSnowflake,
  formatUlid,
  formatUuid,
  getLayout,
  InvalidIdError,
  isKsuid,
  isSnowflake,
  isUlid,
  isUuid,
  ksuidTimestamp,
  ManualClock,
  MonotonicClock,
  parseKsuid,
  parseSnowflake,
  parseUlid,
  parseUuid,
  seededRandom,
  snowflakeTimestamp,
  UuidV4Generator,
  ulidTimestamp,
  uuidv7Timestamp,
  validateKsuid,
  validateSnowflake,
  validateUlid,
  validateUuid,
} from '../../packages/idforge/src/core/index.js';
import * as ksuidEntry from '../../packages/idforge/src/ksuid/index.js';
import { composeKsuid, KSUID_MAX } from '../../packages/idforge/src/ksuid/index.js';
import * as snowflakeEntry from '../../packages/idforge/src/snowflake/index.js';
import * as ulidEntry from '../../packages/idforge/src/ulid/index.js';
import * as uuidEntry from '../../packages/idforge/src/uuid/index.js';
import {
  uuidGregorianTime,
  uuidv1Timestamp,
  uuidv6Timestamp,
} from '../../packages/idforge/src/uuid/index.js';

const reason = (r: string) => (e: unknown) => e instanceof InvalidIdError && e.reason === r;

test('every scheme has parse, format, timestamp, is and validate, in the root and its own entry point', () => {
  const entries: Record<string, Record<string, unknown>> = {
    Uuid: uuidEntry,
    Ulid: ulidEntry,
    Ksuid: ksuidEntry,
    Snowflake: snowflakeEntry,
  };
  for (const [scheme, entry] of Object.entries(entries)) {
    for (const verb of ['parse', 'format', 'is', 'validate']) {
      const name = `${verb}${scheme}`;
      assert.equal(typeof (root as Record<string, unknown>)[name], 'function', name);
      assert.equal(entry[name], (root as Record<string, unknown>)[name], `${name} is one function`);
    }
  }
  const timestamps: [string, Record<string, unknown>][] = [
    ['uuidv7Timestamp', root],
    ['uuidv1Timestamp', uuidEntry],
    ['uuidv6Timestamp', uuidEntry],
    ['ulidTimestamp', root],
    ['ksuidTimestamp', root],
    ['snowflakeTimestamp', root],
  ];
  for (const [name, entry] of timestamps) {
    assert.equal(typeof entry[name], 'function', name);
  }
  for (const old of [
    'decodeUlid',
    'encodeUlid',
    'decodeKsuid',
    'ksuidFromParts',
    'createUuidV4',
    'uuidV1Timestamp',
    'uuidV6Timestamp',
  ]) {
    assert.equal(old in root, false, `${old} is gone from the root`);
  }
});

test('parse and format are inverses for every scheme', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (b) => {
      assert.deepEqual(parseUuid(formatUuid(b.slice(0, 16))), b.slice(0, 16));
      assert.deepEqual(parseUlid(formatUlid(b)), b.slice(0, 16));
      assert.deepEqual(parseKsuid(formatKsuid(b)), b);
    }),
  );
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (id) => {
      assert.equal(parseSnowflake(formatSnowflake(id)), id);
      assert.equal(isSnowflake(formatSnowflake(id)), true);
      assert.equal(validateSnowflake(formatSnowflake(id)), formatSnowflake(id));
    }),
  );
});

test('timestamps are unix ms for every scheme', () => {
  assert.equal(uuidv7Timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'), 1645557742000);
  assert.equal(uuidv1Timestamp('c232ab00-9414-11ec-b3c8-9f6bdeced846'), 1645557742000);
  assert.equal(uuidv6Timestamp('1ec9414c-232a-6b00-b3c8-9f6bdeced846'), 1645557742000);
  assert.deepEqual(uuidGregorianTime('1ec9414c-232a-6b00-b3c8-9f6bdeced846'), {
    unixMs: 1645557742000,
    ticks: 138648505420000000n,
  });
  assert.equal(ulidTimestamp('01ARZ3NDEKTSV4RRFFQ69G5FAV'), 1469922850259);
  assert.equal(ksuidTimestamp('0ujtsYcgvSTl8PAuAdqWYSMnLOv'), 1507608047000);
  assert.equal(ksuidTimestamp(parseKsuid('0ujtsYcgvSTl8PAuAdqWYSMnLOv')), 1507608047000);
  assert.equal(ksuidTimestamp(composeKsuid(1.5e9, new Uint8Array(16))), 1.5e12);
  assert.equal(snowflakeTimestamp(getLayout('discord'), 175928847299117063n), 1462015105796);
  assert.throws(() => ksuidTimestamp('x'), reason('length'));
  assert.throws(() => ksuidTimestamp(new Uint8Array(16)), RangeError);
  assert.throws(() => ksuidTimestamp(1 as never), TypeError);
});

describe('validateX returns the canonical form or throws what parseX throws', () => {
  test('ULID: upper case; lenient letters folded', () => {
    assert.equal(validateUlid('01arz3ndektsv4rrffq69g5fav'), '01ARZ3NDEKTSV4RRFFQ69G5FAV');
    assert.equal(
      validateUlid('01ARZ3NDEKTSV4RRFFQ69G5FAO', { lenient: true }),
      '01ARZ3NDEKTSV4RRFFQ69G5FA0',
    );
    assert.throws(() => validateUlid('01ARZ3NDEKTSV4RRFFQ69G5FAO'), reason('alphabet'));
    assert.equal(isUlid('01ARZ3NDEKTSV4RRFFQ69G5FAV'), true);
  });

  test('KSUID: the text (base62 is case-sensitive)', () => {
    assert.equal(validateKsuid(KSUID_MAX), KSUID_MAX);
    assert.throws(() => validateKsuid('bWgEPTl1tmebfsQzFP4bxwgy80V'), reason('overflow'));
    assert.equal(isKsuid(KSUID_MAX), true);
  });

  test('Snowflake: one decimal form; range per layout', () => {
    const discord = getLayout('discord');
    assert.equal(validateSnowflake('175928847299117063', discord), '175928847299117063');
    assert.throws(() => validateSnowflake('0123'), reason('format'));
    assert.equal(isSnowflake('0123'), false);
    assert.equal(isSnowflake(' 1'), false);
    assert.equal(isSnowflake('18446744073709551616'), false);
    assert.equal(isSnowflake('18446744073709551615'), true);
    assert.equal(isSnowflake(42), false);
    assert.throws(() => isSnowflake('1', {} as never), TypeError);
  });

  test('formatSnowflake range-checks the bigint', () => {
    assert.equal(formatSnowflake(0n), '0');
    assert.throws(() => formatSnowflake(-1n), reason('range'));
    assert.throws(() => formatSnowflake(1n << 64n), reason('range'));
    assert.throws(() => formatSnowflake(1n << 63n, getLayout('default')), reason('range'));
    assert.throws(() => formatSnowflake(1 as never), TypeError);
  });

  test('UUID: lower case', () => {
    assert.equal(
      validateUuid('017F22E2-79B0-7CC3-98C4-DC0C0C07398F'),
      '017f22e2-79b0-7cc3-98c4-dc0c0c07398f',
    );
    assert.equal(isUuid(' 017f22e2-79b0-7cc3-98c4-dc0c0c07398f'), false);
  });
});

test('every parser rejects surrounding whitespace (one policy, no trimming)', () => {
  for (const pad of [' ', '\t', '\n']) {
    assert.throws(() => parseUuid(`${pad}017f22e2-79b0-7cc3-98c4-dc0c0c07398f`), InvalidIdError);
    assert.throws(() => parseUlid(`01ARZ3NDEKTSV4RRFFQ69G5FAV${pad}`), InvalidIdError);
    assert.throws(() => parseKsuid(`${pad}${KSUID_MAX}`), InvalidIdError);
    assert.throws(() => parseSnowflake(`${pad}42`), InvalidIdError);
    assert.throws(() => parseSnowflake(`42${pad}`), InvalidIdError);
  }
});

test('a parse error never echoes a huge input whole', () => {
  assert.throws(
    () => parseSnowflake('1'.repeat(1_000_000)),
    (e: unknown) => e instanceof InvalidIdError && e.message.length < 200,
  );
});

test('new UuidV4Generator(options) is the one way to build a UUIDv4 generator', () => {
  const a = new UuidV4Generator({ random: seededRandom(7) });
  const b = new UuidV4Generator({ random: seededRandom(7) });
  assert.equal(a.next(), b.next());
  assert.ok(isUuid(new UuidV4Generator().next(), 4));
  assert.throws(
    () => new UuidV4Generator(null as never),
    /UuidV4Generator options: expected an object/,
  );
});

describe('clock options are validated: "expected X, got Y"', () => {
  test('MonotonicClock', () => {
    assert.throws(
      () => new MonotonicClock(null as never),
      /MonotonicClock options: expected an object, got null/,
    );
    assert.throws(
      () => new MonotonicClock({ wall: 5 as never }),
      /options.wall: expected a function/,
    );
    assert.throws(() => new MonotonicClock({ monotonic: 'x' as never }), TypeError);
    assert.throws(
      () => new MonotonicClock({ checkEveryMs: -1 }),
      /options.checkEveryMs: expected a number >= 0, got number -1/,
    );
    assert.throws(() => new MonotonicClock({ checkEveryMs: Number.NaN }), RangeError);
    assert.throws(() => new MonotonicClock({ checkEveryMs: '250' as never }), TypeError);
    assert.throws(() => new MonotonicClock({ resyncMs: 0 }), RangeError);
    assert.throws(() => new MonotonicClock({ resyncMs: Number.POSITIVE_INFINITY }), RangeError);
    const c = new MonotonicClock({
      wall: () => 1000,
      monotonic: () => 0,
      checkEveryMs: 0,
      resyncMs: 1,
    });
    assert.equal(c.now(), 1000);
  });

  test('ManualClock', () => {
    assert.throws(() => new ManualClock('0' as never), TypeError);
    assert.throws(() => new ManualClock(Number.NaN), RangeError);
    assert.equal(new ManualClock(-5).now(), -5);
  });
});
