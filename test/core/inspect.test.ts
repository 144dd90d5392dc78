// inspect (issue 9 §6 and §9): Nil and Max UUIDs are the named special values of RFC 9562
// (§5.9, §5.10), not version 0 or 15; one whitespace policy (rejected, never trimmed; the
// input echoed exactly); `value` is the canonical form; a UUID may be written as 32 hex
// digits, {…} or urn:uuid:; a bigint is a Snowflake; `lenient` and the options are validated.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  getLayout,
  InvalidIdError,
  inspect,
  ManualClock,
  SnowflakeGenerator,
} from '../../packages/idforge/src/core/index.js';
import { KSUID_MAX } from '../../packages/idforge/src/ksuid/index.js';

const reason = (r: string) => (e: unknown) => e instanceof InvalidIdError && e.reason === r;
const V7 = '017f22e2-79b0-7cc3-98c4-dc0c0c07398f';

describe('Nil and Max UUIDs (RFC 9562 §5.9, §5.10)', () => {
  test('Nil is special "nil", with no version or variant', () => {
    const r = inspect('00000000-0000-0000-0000-000000000000');
    assert.deepEqual(r, {
      input: '00000000-0000-0000-0000-000000000000',
      scheme: 'uuid',
      value: '00000000-0000-0000-0000-000000000000',
      hex: '0'.repeat(32),
      special: 'nil',
    });
  });

  test('Max is special "max" in any case and form', () => {
    for (const text of [
      'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
      'ffffffffffffffffffffffffffffffff',
      '{ffffffff-ffff-ffff-ffff-ffffffffffff}',
      'urn:uuid:ffffffff-ffff-ffff-ffff-ffffffffffff',
    ]) {
      const r = inspect(text);
      assert.equal(r.special, 'max', text);
      assert.equal(r.version, undefined);
      assert.equal(r.variant, undefined);
      assert.equal(r.value, 'ffffffff-ffff-ffff-ffff-ffffffffffff');
      assert.equal(r.input, text);
    }
  });

  test('a version hint still checks the version: Nil is not a UUIDv4', () => {
    assert.throws(
      () => inspect('00000000-0000-0000-0000-000000000000', { scheme: 'uuidv4' }),
      reason('version'),
    );
  });

  test('one bit off Nil or Max is an ordinary UUID', () => {
    const r = inspect('00000000-0000-0000-0000-000000000001');
    assert.equal(r.special, undefined);
    assert.equal(r.version, 0);
  });
});

describe('UUID forms', () => {
  for (const text of [
    V7,
    V7.toUpperCase(),
    V7.replace(/-/g, ''),
    `{${V7}}`,
    `urn:uuid:${V7}`,
    `URN:UUID:${V7.toUpperCase()}`,
    `{${V7.replace(/-/g, '')}}`,
  ]) {
    test(`${text} is the UUIDv7 ${V7}`, () => {
      const r = inspect(text);
      assert.equal(r.scheme, 'uuid');
      assert.equal(r.input, text);
      assert.equal(r.value, V7);
      assert.equal(r.version, 7);
      assert.equal(r.unixMs, 1645557742000);
    });
  }

  test('malformed variants of the forms are rejected, never guessed', () => {
    assert.throws(() => inspect(`{${V7}`), InvalidIdError);
    assert.throws(() => inspect(`urn:uuid:${V7}x`), InvalidIdError);
    assert.throws(() => inspect('g'.repeat(32)), InvalidIdError);
  });
});

describe('whitespace policy: rejected, never trimmed', () => {
  const valid = [V7, '01ARZ3NDEKTSV4RRFFQ69G5FAV', KSUID_MAX, '175928847299117063'];
  for (const text of valid) {
    for (const padded of [` ${text}`, `${text} `, `\t${text}`, `${text}\n`]) {
      test(`${JSON.stringify(padded)} is a format error`, () => {
        assert.throws(
          () => inspect(padded),
          (e: unknown) => {
            assert.ok(e instanceof InvalidIdError);
            assert.equal(e.reason, 'format');
            assert.equal(e.input, padded);
            assert.match(e.message, /surrounding whitespace/);
            return true;
          },
        );
      });
    }
  }

  test('with a scheme hint too, and for Snowflake decimals (trimmed before issue 9)', () => {
    assert.throws(() => inspect(' 42', { scheme: 'snowflake' }), reason('format'));
    assert.throws(() => inspect('42 ', { scheme: 'snowflake' }), reason('format'));
  });
});

describe('value is the canonical form; hex the bytes', () => {
  test('ULID (lenient input) → upper case canonical', () => {
    const r = inspect('01arz3ndektsv4rrffq69g5fao', { lenient: true });
    assert.equal(r.input, '01arz3ndektsv4rrffq69g5fao');
    assert.equal(r.value, '01ARZ3NDEKTSV4RRFFQ69G5FA0');
    assert.equal(r.hex.length, 32);
  });

  test('KSUID → its text; hex of its 20 bytes', () => {
    const r = inspect(KSUID_MAX);
    assert.equal(r.value, KSUID_MAX);
    assert.equal(r.hex, 'f'.repeat(40));
  });

  test('Snowflake → decimal; hex of its 64 bits', () => {
    const r = inspect('175928847299117063', { layout: 'discord' });
    assert.equal(r.value, '175928847299117063');
    assert.equal(r.hex, '0271065ac1020007');
  });
});

describe('bigint input', () => {
  test('a SnowflakeGenerator ID inspects directly (threw a TypeError before)', () => {
    const layout = getLayout('discord');
    const sf = new SnowflakeGenerator({
      layout,
      fields: { worker: 1, process: 2 },
      clock: new ManualClock(1_700_000_000_000),
    });
    const id = sf.next();
    const r = inspect(id, { layout });
    assert.equal(r.scheme, 'snowflake');
    assert.equal(r.input, id.toString());
    assert.equal(r.unixMs, 1_700_000_000_000);
    assert.deepEqual(r.fields, { worker: 1, process: 2, increment: 0 });
    assert.deepEqual(inspect(id, { layout, scheme: 'snowflake' }), r);
  });

  test('a bigint out of the layout is a range error; with another scheme hint a TypeError', () => {
    assert.throws(() => inspect(-1n), reason('range'));
    assert.throws(() => inspect(1n << 64n), reason('range'));
    assert.throws(() => inspect(1n, { scheme: 'ulid' }), TypeError);
  });
});

describe('options are validated: "expected X, got Y"', () => {
  test('lenient must be a boolean', () => {
    assert.throws(
      () => inspect('01ARZ3NDEKTSV4RRFFQ69G5FAV', { lenient: 'yes' as never }),
      /inspect lenient: expected a boolean, got string "yes"/,
    );
    assert.throws(() => inspect('01ARZ3NDEKTSV4RRFFQ69G5FAV', { lenient: 1 as never }), TypeError);
  });

  test('options must be an object, input a string or bigint', () => {
    assert.throws(() => inspect(V7, null as never), TypeError);
    assert.throws(() => inspect(42 as never), /expected a string or a bigint, got number 42/);
  });
});
