// 64-bit public IDs across the fast paths' edges (found by the mutation run, issue 34): an ID
// with a high word below 2^21 decodes by one Number (hi × 2^32 + lo), one above by BigInt
// shifts; both give the ID back, on each side of 2^32 and 2^53.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../packages/idforge/src/core/index.js';
import { generatePublicKey } from '../../packages/idforge/src/public/keys.js';
import { PublicIds } from '../../packages/idforge/src/public/opaque.js';

const ids = new PublicIds({ keys: [generatePublicKey(1, seededRandom(7))] });

test('IDs on each side of 2^32, 2^53 and the fast path bound round trip', () => {
  for (const id of [
    0n,
    2n ** 32n - 1n,
    2n ** 32n,
    2n ** 32n + 5n,
    2n ** 40n + 123n,
    (0x1fffffn << 32n) | 0xffffffffn,
    0x200000n << 32n,
    2n ** 53n - 1n,
    2n ** 53n,
    2n ** 64n - 1n,
  ]) {
    assert.equal(ids.decode(ids.encode(id)), id, String(id));
  }
});

test('keys that are not an array: a TypeError naming options.keys', () => {
  assert.throws(
    () => new PublicIds({ keys: 'k' } as never),
    (e: unknown) => e instanceof TypeError && /^options\.keys: expected an array/.test(e.message),
  );
});
