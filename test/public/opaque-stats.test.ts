// What sequential inputs show through public IDs, measured: for IDs 1..N (and UUIDv7-like
// 128-bit IDs one millisecond apart) under a fixed key, every output bit is set about half
// the time, consecutive outputs differ in about half their bits, and the sorted order of the
// public IDs is unrelated to the order of the inputs (Kendall's tau near 0). Deterministic:
// fixed keys, fixed inputs; the bounds are several standard deviations wide, so a real
// leak (a counter showing through, an ECB-like shared block) fails them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../packages/idforge/src/core/index.js';
import { decodeBase64url } from '../../packages/idforge/src/public/base64url.js';
import { generatePublicKey } from '../../packages/idforge/src/public/keys.js';
import { PublicIds } from '../../packages/idforge/src/public/opaque.js';

const N = 20000;
const ids = new PublicIds({ keys: [generatePublicKey(5, seededRandom(2024))] });

/** The cipher bytes of a public ID (after prefix and version character). */
function bytesOf(publicId: string, start: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  assert.equal(decodeBase64url(publicId, start, out, n), -1);
  return out;
}

function popcount(x: number): number {
  let c = 0;
  for (let v = x; v !== 0; v &= v - 1) c++;
  return c;
}

/** Kendall's tau between input order (the index) and the sort order of the outputs. */
function kendallTau(outputs: readonly string[]): number {
  const rank = outputs.map((_, i) => i).sort((a, b) => (outputs[a]! < outputs[b]! ? -1 : 1));
  // inversions of `rank` by merge sort: pairs (i < j) whose outputs sort the other way
  let inversions = 0;
  const sort = (a: number[]): number[] => {
    if (a.length < 2) return a;
    const l = sort(a.slice(0, a.length >> 1));
    const r = sort(a.slice(a.length >> 1));
    const m: number[] = [];
    let i = 0;
    let j = 0;
    while (i < l.length && j < r.length) {
      if (l[i]! <= r[j]!) m.push(l[i++]!);
      else {
        inversions += l.length - i;
        m.push(r[j++]!);
      }
    }
    return m.concat(l.slice(i), r.slice(j));
  };
  sort(rank);
  const pairs = (outputs.length * (outputs.length - 1)) / 2;
  return 1 - (2 * inversions) / pairs;
}

function check(kind: string, publicIds: string[], start: number, n: number): void {
  const bits = n * 8;
  const ones = new Array<number>(bits).fill(0);
  let prev: Uint8Array | undefined;
  let hammingSum = 0;
  let hammingMin = bits;
  for (const p of publicIds) {
    const b = bytesOf(p, start, n);
    for (let i = 0; i < bits; i++) ones[i]! += (b[i >> 3]! >> (7 - (i & 7))) & 1;
    if (prev !== undefined) {
      let d = 0;
      for (let i = 0; i < n; i++) d += popcount(b[i]! ^ prev[i]!);
      hammingSum += d;
      hammingMin = Math.min(hammingMin, d);
    }
    prev = b;
  }
  // Bit balance: each bit ~ Binomial(N, 1/2), sd = sqrt(N)/2 ≈ 71; allow 5 sd.
  const sd = Math.sqrt(N) / 2;
  const worst = Math.max(...ones.map((c) => Math.abs(c - N / 2)));
  assert.ok(worst < 5 * sd, `${kind}: a bit is off balance by ${worst} (5 sd = ${5 * sd})`);
  // Consecutive outputs: mean Hamming distance ≈ bits/2 (sd of the mean ≈ 0.04 bits).
  const mean = hammingSum / (publicIds.length - 1);
  assert.ok(Math.abs(mean - bits / 2) < 0.5, `${kind}: mean Hamming distance ${mean} of ${bits}`);
  assert.ok(hammingMin > bits / 6, `${kind}: two consecutive outputs differ in ${hammingMin} bits`);
  // Order: tau ≈ 0 (sd ≈ 0.0047 for N = 20000); sequential inputs would give 1.
  const tau = kendallTau(publicIds);
  assert.ok(Math.abs(tau) < 0.03, `${kind}: Kendall tau ${tau}`);
  // No two public IDs alike (a permutation).
  assert.equal(new Set(publicIds).size, publicIds.length);
}

test('64-bit IDs 1..N: balanced bits, unrelated neighbours, no order', () => {
  const out = Array.from({ length: N }, (_, i) => ids.encode(BigInt(i + 1), 'inv'));
  check('64-bit', out, 5, 16);
});

test('64-bit Snowflake-like IDs (time in the high bits, one per ms): no order, no time', () => {
  const t0 = 1_700_000_000_000n;
  const out = Array.from({ length: N }, (_, i) => ids.encode(((t0 + BigInt(i)) << 22n) | 7n));
  check('snowflake', out, 1, 16);
});

test('128-bit UUIDv7-like IDs one millisecond apart: balanced bits, no order', () => {
  const t0 = 1_700_000_000_000;
  const out = Array.from({ length: N }, (_, i) => {
    const u = new Uint8Array(16);
    const ms = t0 + i;
    for (let k = 0; k < 6; k++) u[k] = Math.floor(ms / 2 ** (8 * (5 - k))) & 0xff;
    u[6] = 0x70;
    u[8] = 0x80;
    u[15] = i & 0xff; // a counter in the low byte too
    return ids.encode(u, 'ord');
  });
  // the 16 cipher bytes and the 5-byte tag: 21 bytes
  check('128-bit', out, 5, 21);
});

test('the checks catch a leak: the identity "encoding" fails them', () => {
  const plain = Array.from({ length: N }, (_, i) => {
    const b = new Uint8Array(16);
    new DataView(b.buffer).setBigUint64(0, BigInt(i + 1));
    return `0${Buffer.from(b).toString('base64url')}`;
  });
  assert.throws(() => check('identity', plain, 1, 16), /off balance/);
  const tau = kendallTau(plain);
  assert.ok(Math.abs(tau) > 0.3, `identity: tau ${tau}`); // base64url text does not sort as bytes, but far from 0
});
