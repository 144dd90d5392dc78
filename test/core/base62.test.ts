import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  BASE62_ALPHABET,
  BASE62_OVERFLOW,
  BASE62_VALUE,
  decodeBase62,
  decodeBase62Into,
  encodeBase62,
} from '../../packages/idforge/src/core/encoding/base62.js';
import { InvalidIdError } from '../../packages/idforge/src/core/errors.js';

const MAX = (1n << 160n) - 1n;

/** Independent reference: the 20 bytes as a BigInt, 27 base62 digits. */
function reference(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let s = '';
  for (let i = 0; i < 27; i++) {
    s = BASE62_ALPHABET[Number(n % 62n)] + s;
    n /= 62n;
  }
  return s;
}

function numeric(text: string): bigint {
  let n = 0n;
  for (const ch of text) n = n * 62n + BigInt(BASE62_ALPHABET.indexOf(ch));
  return n;
}

test('alphabet is 0-9A-Za-z in ASCII order, so text order is numeric order', () => {
  assert.equal(BASE62_ALPHABET.length, 62);
  assert.equal([...BASE62_ALPHABET].sort().join(''), BASE62_ALPHABET);
  for (let c = 0; c < 128; c++) {
    const i = BASE62_ALPHABET.indexOf(String.fromCharCode(c));
    assert.equal(BASE62_VALUE[c], i < 0 ? 255 : i);
  }
});

test('segmentio/ksuid ksuid_test.go TestEncoding/TestParse: zero and max encode to Nil and Max', () => {
  assert.equal(encodeBase62(new Uint8Array(20)), '000000000000000000000000000');
  assert.equal(encodeBase62(new Uint8Array(20).fill(255)), 'aWgEPTl1tmebfsQzFP4bxwgy80V');
  assert.deepEqual(decodeBase62('aWgEPTl1tmebfsQzFP4bxwgy80V'), new Uint8Array(20).fill(255));
});

test('encode matches a BigInt reference and decode inverts it (fixed width 27)', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (bytes) => {
      const text = encodeBase62(bytes);
      assert.equal(text, reference(bytes));
      assert.deepEqual(decodeBase62(text), bytes);
    }),
    { numRuns: 5000 },
  );
  // Small values exercise the left padding.
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 1n << 40n }), (n) => {
      const bytes = new Uint8Array(20);
      for (let i = 19, v = n; i >= 0; i--, v >>= 8n) bytes[i] = Number(v & 255n);
      assert.equal(encodeBase62(bytes), reference(bytes));
      assert.ok(encodeBase62(bytes).startsWith('0000000000000000'));
    }),
  );
});

test('decode accepts every 27-digit text up to 2^160 - 1 and rejects every one above', () => {
  const digits = fc.string({
    unit: fc.constantFrom(...BASE62_ALPHABET),
    minLength: 27,
    maxLength: 27,
  });
  fc.assert(
    fc.property(digits, (text) => {
      const out = new Uint8Array(20);
      const r = decodeBase62Into(text, 0, out, 0);
      if (numeric(text) > MAX) assert.equal(r, BASE62_OVERFLOW);
      else {
        assert.equal(r, -1);
        assert.equal(encodeBase62(out), text);
      }
    }),
    { numRuns: 5000 },
  );
});

test('decode errors: length, alphabet with position (every position), overflow', () => {
  for (const len of [0, 26, 28]) {
    assert.throws(
      () => decodeBase62('0'.repeat(len)),
      (e: unknown) => e instanceof InvalidIdError && e.reason === 'length',
    );
  }
  for (let i = 0; i < 27; i++) {
    for (const bad of ['-', '_', ' ', '\u00e9', '\u0000', '\ud83d']) {
      const text = `${'1'.repeat(i)}${bad}${'1'.repeat(26 - i)}`;
      assert.throws(
        () => decodeBase62(text),
        (e: unknown) =>
          e instanceof InvalidIdError &&
          e.scheme === 'base62' &&
          e.reason === 'alphabet' &&
          e.position === i,
        `${JSON.stringify(bad)} at ${i}`,
      );
    }
  }
  assert.throws(
    () => decodeBase62('aWgEPTl1tmebfsQzFP4bxwgy80W'),
    (e: unknown) => e instanceof InvalidIdError && e.reason === 'overflow',
  );
});

test('offset forms read and write exactly their window; misuse is a TypeError/RangeError', () => {
  const buf = new Uint8Array(26).fill(7);
  buf.set(new Uint8Array(20).fill(255), 3);
  assert.equal(encodeBase62(buf, 3), 'aWgEPTl1tmebfsQzFP4bxwgy80V');
  const out = new Uint8Array(24).fill(9);
  decodeBase62('000000000000000000000000000', out, 2);
  assert.deepEqual([...out.subarray(0, 2)], [9, 9]);
  assert.ok(out.subarray(2, 22).every((b) => b === 0));
  assert.deepEqual([...out.subarray(22)], [9, 9]);
  assert.throws(() => encodeBase62(new Uint8Array(19)), RangeError);
  assert.throws(() => encodeBase62('x' as never), TypeError);
  assert.throws(() => decodeBase62(5 as never), TypeError);
  assert.throws(() => decodeBase62('0'.repeat(27), new Uint8Array(20), 1), RangeError);
});
