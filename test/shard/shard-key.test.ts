// shardKey, saltedKey and bucketRanges: the bucket is SipHash-2-4 of the whole ID's bytes
// reduced by multiply-high (checked against BigInt arithmetic), every text form of an ID hashes
// as its bytes, the composite key sorts as (bucket, id), each range read covers exactly the IDs
// of its bucket, and every misuse is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  formatUuid,
  InvalidIdError,
  parseKsuid,
  parseUlid,
} from '../../packages/idforge/src/core/index.js';
import {
  bucketRanges,
  DEFAULT_SHARD_KEY,
  MAX_SHARD_BUCKETS,
  saltedKey,
  shardKey,
  siphash24,
} from '../../packages/idforge/src/shard/index.js';
import { ulidToUuid } from '../../packages/idforge/src/ulid/index.js';

const hex = (s: string) => Uint8Array.from(s.match(/../g)!.map((h) => Number.parseInt(h, 16)));
const be64 = (n: bigint) => hex(n.toString(16).padStart(16, '0'));
const u64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
const bucketCount = fc.integer({ min: 1, max: MAX_SHARD_BUCKETS });

/** The documented recipe, in BigInt: floor(SipHash-2-4(key, bytes) × B / 2^64). */
function oracle(bytes: Uint8Array, buckets: number, key = DEFAULT_SHARD_KEY): number {
  return Number((siphash24(hex(key), bytes) * BigInt(buckets)) >> 64n);
}

test('the default key is the 16 bytes of "idforge.shard.v1"', () => {
  assert.equal(new TextDecoder().decode(hex(DEFAULT_SHARD_KEY)), 'idforge.shard.v1');
});

test('pinned buckets: a bucket never changes between releases (part of the schema)', () => {
  // Computed once with this recipe; if one changes, every salted table moves its rows.
  const pins: [bigint, number, number][] = [
    [0n, 16, 11],
    [1n, 16, 6],
    [123456789012345678n, 16, 5],
    [(1n << 64n) - 1n, 65536, 61382],
    [0n, 1000, 692],
  ];
  for (const [id, buckets, bucket] of pins) {
    assert.equal(shardKey(id, { buckets }), bucket, `${id} over ${buckets}`);
    assert.equal(oracle(be64(id), buckets), bucket);
  }
});

test('the bucket is the multiply-high of the keyed hash of the 8 big-endian bytes', () => {
  fc.assert(
    fc.property(u64, bucketCount, fc.uint8Array({ minLength: 16, maxLength: 16 }), (id, b, k) => {
      const bucket = shardKey(id, { buckets: b, key: k });
      const keyHex = Buffer.from(k).toString('hex');
      return (
        bucket >= 0 &&
        bucket < b &&
        bucket === oracle(be64(id), b, keyHex) &&
        bucket === shardKey(id.toString(), { buckets: b, key: keyHex }) &&
        bucket === shardKey(be64(id), { buckets: b, key: keyHex.toUpperCase() })
      );
    }),
    { numRuns: 200, seed: 7 },
  );
});

test('UUID, ULID and KSUID text hash as their bytes; a ULID like the UUID of its 128 bits', () => {
  const uuid = '0190a2b4-c5d6-7e8f-9a0b-1c2d3e4f5061';
  const bytes = hex(uuid.replaceAll('-', ''));
  const b = oracle(bytes, 4096);
  for (const form of [
    uuid,
    uuid.toUpperCase(),
    uuid.replaceAll('-', ''),
    `{${uuid}}`,
    `urn:uuid:${uuid}`,
  ]) {
    assert.equal(shardKey(form, { buckets: 4096 }), b, form);
  }
  assert.equal(shardKey(bytes, { buckets: 4096 }), b);
  const ulid = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
  assert.equal(shardKey(ulid, { buckets: 4096 }), oracle(parseUlid(ulid), 4096));
  assert.equal(shardKey(ulid, { buckets: 4096 }), shardKey(ulidToUuid(ulid), { buckets: 4096 }));
  const ksuid = '0ujtsYcgvSTl8PAuAdqWYSMnLOv';
  assert.equal(shardKey(ksuid, { buckets: 4096 }), oracle(parseKsuid(ksuid), 4096));
  const s = saltedKey(uuid, { buckets: 4096 });
  assert.equal(formatUuid(s.id as Uint8Array), uuid);
  assert.equal(s.hex, `${b.toString(16).padStart(4, '0')}${uuid.replaceAll('-', '')}`);
});

test('the key changes the buckets; the same key as bytes or hex gives the same ones', () => {
  const other = '000102030405060708090a0b0c0d0e0f';
  let moved = 0;
  for (let i = 0n; i < 200n; i++) {
    if (shardKey(i, { buckets: 64 }) !== shardKey(i, { buckets: 64, key: other })) moved++;
    assert.equal(
      shardKey(i, { buckets: 64, key: other }),
      shardKey(i, { buckets: 64, key: hex(other) }),
    );
    assert.equal(
      shardKey(i, { buckets: 64 }),
      shardKey(i, { buckets: 64, key: DEFAULT_SHARD_KEY }),
    );
  }
  assert.ok(moved > 150, `${moved} of 200 IDs moved bucket with another key`);
});

test('one bucket: always 0; 65536 buckets: the top 16 bits of the hash', () => {
  fc.assert(
    fc.property(u64, (id) => {
      const h = siphash24(hex(DEFAULT_SHARD_KEY), be64(id));
      return (
        shardKey(id, { buckets: 1 }) === 0 && shardKey(id, { buckets: 65536 }) === Number(h >> 48n)
      );
    }),
    { numRuns: 200, seed: 3 },
  );
});

test('the bucket depends on the low bits: IDs one bit apart in the sequence field spread', () => {
  // Flip one of the 12 low bits: a hash of the whole ID moves the bucket with probability
  // 1 - 1/B; a bucket from the time prefix (id >> 22) never would.
  let moved = 0;
  let runs = 0;
  fc.assert(
    fc.property(u64, fc.integer({ min: 0, max: 11 }), (id, bit) => {
      const twin = id ^ (1n << BigInt(bit));
      runs++;
      if (shardKey(id, { buckets: 16 }) !== shardKey(twin, { buckets: 16 })) moved++;
      return id >> 22n === twin >> 22n; // the control: same time prefix, same range bucket
    }),
    { numRuns: 400, seed: 11 },
  );
  assert.ok(moved / runs > 0.85, `${moved} of ${runs} pairs moved (expected about 15/16)`);
});

function compare(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return Math.sign(a[i]! - b[i]!);
  return 0;
}

test('the composite key sorts by (bucket, id), as bytes and as hex text', () => {
  fc.assert(
    fc.property(u64, u64, fc.integer({ min: 1, max: 300 }), (x, y, buckets) => {
      const a = saltedKey(x, { buckets });
      const b = saltedKey(y, { buckets });
      const tuple =
        a.bucket !== b.bucket ? Math.sign(a.bucket - b.bucket) : x === y ? 0 : x < y ? -1 : 1;
      const text = a.hex === b.hex ? 0 : a.hex < b.hex ? -1 : 1;
      return (
        compare(a.bytes, b.bytes) === tuple && text === tuple && a.id === x && a.bytes.length === 10
      );
    }),
    { numRuns: 300, seed: 5 },
  );
  // 16-byte IDs: bytes compare as (bucket, then the UUID's bytes).
  const lo = saltedKey(new Uint8Array(16), { buckets: 2 });
  assert.equal(lo.bytes.length, 18);
  assert.deepEqual(lo.bytes.subarray(2), new Uint8Array(16));
});

test("bucketRanges: one range per bucket; an ID in [from, to] lies in its bucket's range only", () => {
  fc.assert(
    fc.property(u64, u64, u64, fc.integer({ min: 1, max: 40 }), (p, q, x, buckets) => {
      const [from, to] = p <= q ? [p, q] : [q, p];
      const ranges = bucketRanges(from, to, { buckets });
      if (ranges.length !== buckets || ranges.some((r, i) => r.bucket !== i)) return false;
      const k = saltedKey(x, { buckets });
      const inside = ranges.map(
        (r) => compare(r.low, k.bytes) <= 0 && compare(k.bytes, r.high) <= 0,
      );
      const expected = x >= from && x <= to;
      return (
        inside.every((hit, i) => hit === (expected && i === k.bucket)) &&
        ranges.every((r) => r.lowHex <= r.highHex)
      );
    }),
    { numRuns: 300, seed: 9 },
  );
  const [r] = bucketRanges(5n, '7', { buckets: 1 });
  assert.equal(r!.lowHex, '00000000000000000005');
  assert.equal(r!.highHex, '00000000000000000007');
});

test('misuse is refused with TypeError or RangeError; text that is no ID with InvalidIdError', () => {
  for (const buckets of [0, 65537, 1.5, -1, Number.NaN]) {
    assert.throws(() => shardKey(1n, { buckets }), RangeError, String(buckets));
  }
  assert.throws(() => shardKey(1n, { buckets: '16' as never }), TypeError);
  assert.throws(() => shardKey(1n, undefined as never), TypeError);
  assert.throws(() => shardKey(1n, { buckets: 4, key: 'abcd' }), RangeError);
  assert.throws(() => shardKey(1n, { buckets: 4, key: 'zz'.repeat(16) }), RangeError);
  assert.throws(() => shardKey(1n, { buckets: 4, key: new Uint8Array(15) }), RangeError);
  assert.throws(() => shardKey(1n, { buckets: 4, key: 7 as never }), TypeError);
  assert.throws(() => shardKey(-1n, { buckets: 4 }), RangeError);
  assert.throws(() => shardKey(1n << 64n, { buckets: 4 }), RangeError);
  assert.throws(() => shardKey(new Uint8Array(7), { buckets: 4 }), RangeError);
  assert.throws(() => shardKey(42 as never, { buckets: 4 }), TypeError);
  const bad = (text: string, reason: string) =>
    assert.throws(
      () => shardKey(text, { buckets: 4 }),
      (e: unknown) => {
        assert.ok(e instanceof InvalidIdError, text);
        assert.equal(e.reason, reason, text);
        return true;
      },
    );
  bad('18446744073709551616', 'range');
  bad(' 42', 'format');
  bad('not-an-id', 'scheme');
  bad('0190a2b4-c5d6-7e8f-9a0b-1c2d3e4f506g', 'alphabet');
  assert.throws(() => bucketRanges(2n, 1n, { buckets: 4 }), RangeError);
  assert.throws(() => bucketRanges(1n, new Uint8Array(16), { buckets: 4 }), RangeError);
  assert.throws(() => saltedKey(1n, { buckets: 0 }), /saltedKey buckets/);
});
