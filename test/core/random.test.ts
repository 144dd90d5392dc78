import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  cryptoRandom,
  defaultPool,
  fixedRandom,
  RandomPool,
  seededRandom,
} from '../../packages/idforge/src/core/random.js';

test('RandomPool hands out consecutive fresh ranges and refills when used up', () => {
  let fills = 0;
  const source = {
    fill(b: Uint8Array) {
      fills++;
      b.fill(fills);
    },
  };
  const pool = new RandomPool(source, 16);
  assert.equal(pool.take(10), 0);
  assert.equal(fills, 1);
  assert.equal(pool.take(6), 10);
  assert.equal(pool.bytes[15], 1);
  assert.equal(pool.take(1), 0, 'refilled: 16 bytes were used');
  assert.equal(fills, 2);
  assert.equal(pool.bytes[0], 2);
});

test('cryptoRandom fills more than Web Crypto allows per call (65536 bytes)', () => {
  const b = new Uint8Array(200_000);
  cryptoRandom.fill(b);
  const tail = b.subarray(150_000);
  assert.ok(
    tail.some((x) => x !== 0),
    'the tail beyond one chunk is filled',
  );
});

test('seededRandom is deterministic per seed and differs across seeds', () => {
  const a = new Uint8Array(32);
  const b = new Uint8Array(32);
  const c = new Uint8Array(32);
  seededRandom(42).fill(a);
  seededRandom(42).fill(b);
  seededRandom(43).fill(c);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
});

test('fixedRandom repeats its pattern', () => {
  const b = new Uint8Array(5);
  fixedRandom(Uint8Array.of(1, 2)).fill(b);
  assert.deepEqual([...b], [1, 2, 1, 2, 1]);
});

test('defaultPool is one shared pool', () => {
  assert.equal(defaultPool(), defaultPool());
});
