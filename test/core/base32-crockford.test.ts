import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  CROCKFORD_ALPHABET,
  CROCKFORD_LENIENT,
  CROCKFORD_OVERFLOW,
  CROCKFORD_STRICT,
  decodeBase32Crockford,
  decodeCrockford128Into,
  encodeBase32Crockford,
  unsafeEncodeCrockford128,
} from '../../packages/idforge/src/core/encoding/base32-crockford.js';
import { InvalidIdError } from '../../packages/idforge/src/core/errors.js';

/** Independent reference: the bytes as one big-endian number, written in base 32. */
function reference(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let s = '';
  for (let i = 0; i < Math.ceil((8 * bytes.length) / 5); i++) {
    s = CROCKFORD_ALPHABET[Number(n & 31n)] + s;
    n >>= 5n;
  }
  return s;
}

test('tables: 32 digits each way, case-insensitive; strict rejects I L O U, lenient maps I L O', () => {
  for (let v = 0; v < 32; v++) {
    const ch = CROCKFORD_ALPHABET[v]!;
    assert.equal(CROCKFORD_STRICT[ch.charCodeAt(0)], v);
    assert.equal(CROCKFORD_STRICT[ch.toLowerCase().charCodeAt(0)], v);
  }
  for (const ch of 'ILOUilou') assert.equal(CROCKFORD_STRICT[ch.charCodeAt(0)], 255, ch);
  const lenient = { I: 1, i: 1, L: 1, l: 1, O: 0, o: 0 } as const;
  for (const [ch, v] of Object.entries(lenient)) {
    assert.equal(CROCKFORD_LENIENT[ch.charCodeAt(0)], v, ch);
  }
  assert.equal(CROCKFORD_LENIENT['U'.charCodeAt(0)], 255);
  assert.equal(CROCKFORD_LENIENT['u'.charCodeAt(0)], 255);
  const valid = new Set([...CROCKFORD_ALPHABET, ...CROCKFORD_ALPHABET.toLowerCase()]);
  for (let c = 0; c < 128; c++) {
    if (!valid.has(String.fromCharCode(c))) {
      assert.equal(CROCKFORD_STRICT[c], 255, `code ${c}`);
    }
  }
});

test('encode matches a BigInt reference for any length; decode inverts it', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 0, maxLength: 40 }), (bytes) => {
      const text = encodeBase32Crockford(bytes);
      assert.equal(text, reference(bytes));
      assert.deepEqual(decodeBase32Crockford(text), bytes);
      assert.deepEqual(decodeBase32Crockford(text.toLowerCase()), bytes);
    }),
    { numRuns: 2000 },
  );
});

test('16 bytes: the table-driven ULID path equals the reference, both directions', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (bytes) => {
      const text = unsafeEncodeCrockford128(bytes, 0);
      assert.equal(text, reference(bytes));
      const out = new Uint8Array(20);
      assert.equal(decodeCrockford128Into(text, 0, CROCKFORD_STRICT, out, 2), -1);
      assert.deepEqual(out.subarray(2, 18), bytes);
    }),
    { numRuns: 5000 },
  );
});

test('into and offset forms read and write exactly their window', () => {
  const buf = new Uint8Array(24).fill(0xaa);
  const bytes = Uint8Array.from({ length: 16 }, (_, i) => i * 17);
  buf.set(bytes, 5);
  const text = encodeBase32Crockford(buf, 5, 16);
  assert.equal(text, reference(bytes));
  const out = new Uint8Array(24).fill(0x55);
  decodeBase32Crockford(text, undefined, out, 3);
  assert.deepEqual(out.subarray(3, 19), bytes);
  assert.ok(out.subarray(0, 3).every((b) => b === 0x55));
  assert.ok(out.subarray(19).every((b) => b === 0x55));
});

test('decode rejects a length no byte count encodes to, naming the reason', () => {
  for (const len of [1, 3, 6, 25, 27]) {
    assert.throws(
      () => decodeBase32Crockford('0'.repeat(len)),
      (e: unknown) => e instanceof InvalidIdError && e.reason === 'length',
      `length ${len}`,
    );
  }
});

test('decode rejects set spare bits as overflow at position 0', () => {
  // 2 digits hold 10 bits for 1 byte: the first digit may only be 0..7.
  assert.deepEqual(decodeBase32Crockford('7Z'), Uint8Array.of(255));
  assert.throws(
    () => decodeBase32Crockford('8Z'),
    (e: unknown) => e instanceof InvalidIdError && e.reason === 'overflow' && e.position === 0,
  );
  const out = new Uint8Array(16);
  assert.equal(
    decodeCrockford128Into('80000000000000000000000000', 0, CROCKFORD_STRICT, out, 0),
    CROCKFORD_OVERFLOW,
  );
});

test('decode: strict names the invalid character and its position; lenient reads I L O', () => {
  assert.throws(
    () => decodeBase32Crockford('0L'),
    (e: unknown) =>
      e instanceof InvalidIdError &&
      e.scheme === 'base32-crockford' &&
      e.reason === 'alphabet' &&
      e.position === 1 &&
      /lenient/.test(e.message),
  );
  assert.deepEqual(decodeBase32Crockford('0L', { lenient: true }), Uint8Array.of(1));
  assert.deepEqual(decodeBase32Crockford('oi', { lenient: true }), Uint8Array.of(1));
  assert.throws(
    () => decodeBase32Crockford('0U', { lenient: true }),
    (e: unknown) => e instanceof InvalidIdError && e.position === 1,
  );
});

test('misuse throws TypeError/RangeError, never InvalidIdError', () => {
  assert.throws(() => encodeBase32Crockford('abc' as never), TypeError);
  assert.throws(() => encodeBase32Crockford(new Uint8Array(4), 5), RangeError);
  assert.throws(() => encodeBase32Crockford(new Uint8Array(4), 1, 4), RangeError);
  assert.throws(() => decodeBase32Crockford(42 as never), TypeError);
  assert.throws(() => decodeBase32Crockford('00', { lenient: 'yes' as never }), TypeError);
  assert.throws(() => decodeBase32Crockford('00', null as never), TypeError);
  assert.throws(() => decodeBase32Crockford('00', undefined, new Uint8Array(1), 1), RangeError);
});
