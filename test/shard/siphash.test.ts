// SipHash-2-4 against the 64 vectors of the reference implementation (test/vectors/siphash.ts),
// and the 32-bit implementation against a plain BigInt one on random keys and messages of every
// length around the 8-byte block boundaries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { siphash24 } from '../../packages/idforge/src/shard/index.js';
import { SIPHASH_KEY_HEX, SIPHASH_SOURCE, SIPHASH_VECTORS } from '../vectors/siphash.js';

const hex = (s: string) => Uint8Array.from(s.match(/../g)!.map((h) => Number.parseInt(h, 16)));
/** The 8 output bytes of the reference (little-endian) as the 64-bit integer. */
const le64 = (s: string) => BigInt(`0x${s.match(/../g)!.reverse().join('')}`);

test(`the 64 reference vectors (${SIPHASH_SOURCE})`, () => {
  assert.equal(SIPHASH_VECTORS.length, 64);
  const key = hex(SIPHASH_KEY_HEX);
  for (let i = 0; i < 64; i++) {
    const msg = Uint8Array.from({ length: i }, (_, j) => j);
    assert.equal(siphash24(key, msg), le64(SIPHASH_VECTORS[i]!), `message of ${i} bytes`);
  }
  // The paper's worked example (Appendix A): 15 bytes, a129ca6149be45e5.
  assert.equal(
    siphash24(
      key,
      Uint8Array.from({ length: 15 }, (_, j) => j),
    ),
    0xa129ca6149be45e5n,
  );
});

/** SipHash-2-4 with BigInt words, straight from the paper: the oracle. */
function reference(key: Uint8Array, msg: Uint8Array): bigint {
  const M = (1n << 64n) - 1n;
  const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & M;
  const word = (b: Uint8Array, i: number, n = 8) => {
    let w = 0n;
    for (let j = n - 1; j >= 0; j--) w = (w << 8n) | BigInt(b[i + j]!);
    return w;
  };
  const k0 = word(key, 0);
  const k1 = word(key, 8);
  let v0 = k0 ^ 0x736f6d6570736575n;
  let v1 = k1 ^ 0x646f72616e646f6dn;
  let v2 = k0 ^ 0x6c7967656e657261n;
  let v3 = k1 ^ 0x7465646279746573n;
  const round = () => {
    v0 = (v0 + v1) & M;
    v1 = rotl(v1, 13n) ^ v0;
    v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & M;
    v3 = rotl(v3, 16n) ^ v2;
    v0 = (v0 + v3) & M;
    v3 = rotl(v3, 21n) ^ v0;
    v2 = (v2 + v1) & M;
    v1 = rotl(v1, 17n) ^ v2;
    v2 = rotl(v2, 32n);
  };
  const end = msg.length - (msg.length % 8);
  const absorb = (m: bigint) => {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  };
  for (let i = 0; i < end; i += 8) absorb(word(msg, i));
  absorb((BigInt(msg.length & 0xff) << 56n) | word(msg, end, msg.length - end));
  v2 ^= 0xffn;
  for (let i = 0; i < 4; i++) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

test('the 32-bit implementation equals a BigInt one on random keys and messages', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 16, maxLength: 16 }),
      fc.uint8Array({ maxLength: 80 }),
      (key, msg) => siphash24(key, msg) === reference(key, msg),
    ),
    { numRuns: 200, seed: 1313 },
  );
  // Negative control: the oracle is sensitive to a one-bit change of the key.
  const key = hex(SIPHASH_KEY_HEX);
  const other = key.slice();
  other[15]! ^= 1;
  assert.notEqual(reference(other, new Uint8Array(8)), siphash24(key, new Uint8Array(8)));
});

test('siphash24 refuses a key that is not 16 bytes and a message that is not bytes', () => {
  assert.throws(() => siphash24(new Uint8Array(15), new Uint8Array(0)), RangeError);
  assert.throws(() => siphash24('00' as never, new Uint8Array(0)), TypeError);
  assert.throws(() => siphash24(new Uint8Array(16), 'abc' as never), TypeError);
});
