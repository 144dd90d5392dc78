// TypeID (jetify's spec 0.3): the spec's own valid and invalid examples (test/vectors/typeid-
// *.json, with their provenance), every malformed input at every position, round trips
// against an independent oracle (the core's ULID codec: the same 130-bit base32, upper case).
// Generation: typeid-generator.test.ts; typeid-js: typeid-interop.test.ts; the layer's import
// rule: test/core/architecture.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatUlid, InvalidIdError, parseUlid } from '../../packages/idforge/src/core/index.js';
import {
  formatTypeId,
  isTypeId,
  isTypeIdPrefix,
  parseTypeId,
  TypeIdGenerator,
  typeIdTimestamp,
  typeIdToUuid,
  typeid,
  uuidToTypeId,
  validateTypeId,
} from '../../packages/idforge/src/public/index.js';

interface Valid {
  name: string;
  typeid: string;
  prefix: string;
  uuid: string;
}
interface Invalid {
  name: string;
  typeid: string;
  description: string;
}
const load = (f: string) =>
  JSON.parse(readFileSync(new URL(`../vectors/${f}`, import.meta.url), 'utf8'));
const valid: { cases: Valid[] } = load('typeid-valid.json');
const invalid: { cases: Invalid[] } = load('typeid-invalid.json');

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const uuidHex = (u: string) => u.replaceAll('-', '');

function isInvalid(reason: string, position?: number) {
  return (e: unknown) =>
    e instanceof InvalidIdError &&
    e.scheme === 'typeid' &&
    e.code === 'IDF_INVALID_ID' &&
    e.reason === reason &&
    (position === undefined || e.position === position);
}

test('the spec vectors: every valid TypeID decodes to its prefix and UUID, and back', () => {
  assert.equal(valid.cases.length, 9);
  for (const v of valid.cases) {
    const parts = parseTypeId(v.typeid);
    assert.equal(parts.prefix, v.prefix, v.name);
    assert.equal(hex(parts.bytes), uuidHex(v.uuid), v.name);
    assert.equal(typeIdToUuid(v.typeid), v.uuid, v.name);
    assert.equal(formatTypeId(v.prefix, v.uuid), v.typeid, v.name);
    assert.equal(formatTypeId(v.prefix, parts.bytes), v.typeid, v.name);
    assert.equal(uuidToTypeId(v.uuid.toUpperCase(), v.prefix), v.typeid, v.name);
    assert.equal(isTypeId(v.typeid), true, v.name);
    assert.equal(isTypeId(v.typeid, { prefix: v.prefix }), true, v.name);
    assert.equal(validateTypeId(v.typeid), v.typeid, v.name);
  }
});

/** Why each of the spec's invalid examples is rejected, in our reasons. */
const REASONS: Record<string, [reason: string, position: number | undefined]> = {
  'prefix-uppercase': ['alphabet', 0],
  'prefix-numeric': ['alphabet', 0],
  'prefix-period': ['alphabet', 3],
  'prefix-non-ascii': ['alphabet', 2],
  'prefix-spaces': ['alphabet', 0],
  'prefix-64-chars': ['length', undefined],
  'separator-empty-prefix': ['format', 0],
  'separator-empty': ['length', undefined],
  'suffix-short': ['length', 7],
  'suffix-long': ['length', 7],
  'suffix-spaces': ['alphabet', 32],
  'suffix-uppercase': ['alphabet', 17],
  'suffix-hyphens': ['alphabet', 16],
  'suffix-wrong-alphabet': ['alphabet', 7],
  'suffix-ambiguous-crockford': ['alphabet', 7],
  'suffix-hyphens-crockford': ['length', 7],
  'suffix-overflow': ['overflow', 7],
  'prefix-underscore-start': ['format', 0],
  'prefix-underscore-end': ['format', 6],
  empty: ['length', undefined],
  'prefix-empty': ['length', undefined],
};

test('the spec vectors: every invalid TypeID is rejected, each for its own reason', () => {
  assert.equal(invalid.cases.length, 21);
  assert.deepEqual(invalid.cases.map((c) => c.name).sort(), Object.keys(REASONS).sort());
  for (const c of invalid.cases) {
    const [reason, position] = REASONS[c.name]!;
    assert.throws(() => parseTypeId(c.typeid), isInvalid(reason, position), c.name);
    assert.throws(() => validateTypeId(c.typeid), isInvalid(reason, position), c.name);
    assert.throws(() => typeIdToUuid(c.typeid), isInvalid(reason, position), c.name);
    assert.equal(isTypeId(c.typeid), false, c.name);
  }
});

const SAMPLE = 'user_01h455vb4pex5vsknk084sn02q';

test('every character out of place, at every position, is reported there', () => {
  const badSuffix = ['I', 'L', 'O', 'U', 'i', 'l', 'o', 'u', 'A', '-', ' ', 'é', '_', '\u0000'];
  for (let i = 5; i < SAMPLE.length; i++) {
    for (const ch of badSuffix) {
      const text = SAMPLE.slice(0, i) + ch + SAMPLE.slice(i + 1);
      // "_" in the suffix moves the separator: the prefix then ends with "_" or holds a digit.
      const check =
        ch !== '_'
          ? isInvalid('alphabet', i)
          : i === 5
            ? isInvalid('format', 4)
            : isInvalid('alphabet', 5);
      assert.throws(() => parseTypeId(text), check, JSON.stringify(text));
      assert.equal(isTypeId(text), false);
    }
  }
  for (let i = 0; i < 4; i++) {
    for (const ch of ['U', '0', '9', '-', '.', ' ', 'é', '\u{1F600}'.charAt(0)]) {
      const text = SAMPLE.slice(0, i) + ch + SAMPLE.slice(i + 1);
      assert.throws(() => parseTypeId(text), isInvalid('alphabet', i), JSON.stringify(text));
    }
  }
  for (const i of [0, 3]) {
    const text = `${SAMPLE.slice(0, i)}_${SAMPLE.slice(i + 1)}`;
    assert.throws(() => parseTypeId(text), isInvalid('format', i), text);
  }
  for (const first of '89abcdefghjkmnpqrstvwxyz') {
    assert.throws(() => parseTypeId(`user_${first}${'0'.repeat(25)}`), isInvalid('overflow', 5));
  }
  for (let n = 0; n < 40; n++) {
    if (n === 26) continue;
    assert.throws(() => parseTypeId(`user_${'0'.repeat(n)}`), isInvalid('length'), `suffix ${n}`);
  }
});

test('prefixes: the spec rules, the 63-character limit, consecutive underscores allowed', () => {
  const ok = ['', 'a', 'ab', 'a_b', 'my__type', 'a_b_c', 'z'.repeat(63), `a${'_'.repeat(61)}b`];
  for (const p of ok) {
    assert.equal(isTypeIdPrefix(p), true, p);
    const id = formatTypeId(p, new Uint8Array(16));
    assert.equal(parseTypeId(id).prefix, p);
  }
  for (const p of ['_', '_a', 'a_', 'A', 'a1', 'a-b', ' a', 'z'.repeat(64), 'é']) {
    assert.equal(isTypeIdPrefix(p), false, p);
    assert.throws(() => formatTypeId(p, new Uint8Array(16)), RangeError, p);
    assert.throws(() => uuidToTypeId('00000000-0000-0000-0000-000000000000', p), RangeError);
    assert.throws(() => new TypeIdGenerator({ prefix: p }), RangeError);
    assert.throws(() => typeid(p), /typeid|TypeIdGenerator/);
  }
  assert.throws(() => formatTypeId(1 as unknown as string, new Uint8Array(16)), TypeError);
  assert.equal(isTypeIdPrefix(undefined), false);
});

test('an expected prefix: another type is rejected (format), a malformed option throws', () => {
  assert.deepEqual(parseTypeId(SAMPLE, { prefix: 'user' }).prefix, 'user');
  assert.throws(() => parseTypeId(SAMPLE, { prefix: 'org' }), isInvalid('format', 0));
  assert.equal(isTypeId(SAMPLE, { prefix: 'org' }), false);
  assert.throws(() => typeIdToUuid(SAMPLE, { prefix: '' }), isInvalid('format', 0));
  assert.throws(() => parseTypeId(SAMPLE, { prefix: 'Org' }), RangeError);
  assert.throws(() => parseTypeId(SAMPLE, null as unknown as object), TypeError);
  assert.throws(() => parseTypeId(42 as unknown as string), TypeError);
  assert.equal(isTypeId(42), false);
});

test("parseTypeId into a caller's buffer at an offset, written only on success", () => {
  const out = new Uint8Array(20);
  const parts = parseTypeId('prefix_7zzzzzzzzzzzzzzzzzzzzzzzzz', undefined, out, 2);
  assert.equal(parts.bytes, out);
  assert.equal(hex(out), `0000${'ff'.repeat(16)}0000`);
  out.fill(0);
  assert.throws(
    () => parseTypeId('prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz', {}, out, 2),
    isInvalid('overflow', 7),
  );
  assert.equal(hex(out), '00'.repeat(20));
  assert.throws(() => parseTypeId(SAMPLE, {}, out, 5), RangeError);
});

test('formatTypeId: bytes at an offset, UUID text checked, wrong arguments named', () => {
  const buf = new Uint8Array(20).fill(0xff);
  assert.equal(formatTypeId('x', buf, 4), 'x_7zzzzzzzzzzzzzzzzzzzzzzzzz');
  assert.throws(() => formatTypeId('x', buf, 5), RangeError);
  assert.throws(() => formatTypeId('x', new Uint8Array(15)), RangeError);
  assert.throws(
    () => formatTypeId('x', 'not-a-uuid'),
    (e) => e instanceof InvalidIdError,
  );
  assert.throws(() => formatTypeId('x', 7 as unknown as string), TypeError);
});

const prefixArb = fc.stringMatching(/^([a-z]([a-z_]{0,61}[a-z])?)?$/).filter((p) => p.length <= 63);

test('round trips: any 16 bytes and prefix; the suffix is the ULID text in lower case', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), prefixArb, (bytes, prefix) => {
      const id = formatTypeId(prefix, bytes);
      const suffix = id.slice(id.length - 26);
      assert.equal(suffix, formatUlid(bytes).toLowerCase());
      assert.equal(id, prefix === '' ? suffix : `${prefix}_${suffix}`);
      const parts = parseTypeId(id);
      assert.equal(parts.prefix, prefix);
      assert.deepEqual(parts.bytes, bytes);
      assert.deepEqual(parseUlid(suffix), bytes);
      assert.equal(validateTypeId(id), id);
    }),
    { numRuns: 2000 },
  );
});

test('typeIdTimestamp: the UUIDv7 time; another version or variant is refused', () => {
  assert.equal(typeIdTimestamp('prefix_01h455vb4pex5vsknk084sn02q'), 0x01890a5dac96);
  assert.equal(typeIdTimestamp(SAMPLE, { prefix: 'user' }), 0x01890a5dac96);
  const v4 = uuidToTypeId('f81d4fae-7dec-4d0e-a765-00a0c91e6bf6', 'doc');
  assert.throws(() => typeIdTimestamp(v4), isInvalid('version', 14));
  const badVariant = uuidToTypeId('01890a5d-ac96-774b-ccce-b302099a8057', 'doc');
  assert.throws(() => typeIdTimestamp(badVariant), isInvalid('variant', 17));
  assert.throws(() => typeIdTimestamp('nope'), isInvalid('length'));
});
