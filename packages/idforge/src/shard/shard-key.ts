/**
 * Salted shard keys for range-partitioned stores. A time-ordered ID (a Snowflake, a UUIDv7, any
 * text ID that sorts by time) used as the partition key sends every write to the partition
 * that holds "now"; a bucket taken from a keyed hash of the WHOLE ID, put in front of the ID,
 * spreads the writes over every partition while the ID stays the row key inside its bucket.
 * See docs/sharding.md.
 *
 * What is hashed (so other languages can reproduce a bucket):
 *   - a 64-bit ID (a `bigint` in [0, 2^64 − 1], or its decimal text of 1 to 20 digits):
 *     its 8 bytes, big-endian, as an unsigned integer;
 *   - a UUID (any text form the core parses: hyphens, 32 hex digits, {…}, urn:uuid:…) or any
 *     other text ID that inspect reads: the bytes it decodes to (16 for a 128-bit ID, so two
 *     texts of the same 128 bits hash alike; 20 for a 160-bit one);
 *   - a `Uint8Array` of 8, 16 or 20 bytes: those bytes as given.
 * h = SipHash-2-4(key, bytes) as an unsigned 64-bit integer (the reference output read
 * little-endian); bucket = floor(h × buckets / 2^64), the high word of the 128-bit product.
 *
 * Why the multiply-high: it maps the 2^64 hash values onto the buckets in runs of
 * floor(2^64 / B) or ceil(2^64 / B) values, so no bucket is more likely than another by more
 * than B / 2^64 ≤ 2^−48 (modulo has the same bound here; neither bias is measurable). It
 * needs no division, is exact in doubles when computed from the two 32-bit halves
 * (each product is below 2^48), and keeps bucket order equal to hash order.
 *
 * The key and the bucket count are part of the table's schema: changing either moves rows
 * to other buckets. The default key is fixed and documented ({@link DEFAULT_SHARD_KEY}), so
 * buckets are the same in every process, language and release.
 */
import { InvalidIdError, inspect } from '../core/index.js';
import {
  assertInteger,
  bytesToHex,
  HEX_VALUE,
  rangeError,
  typeError,
  UINT64_MAX,
} from '../core/internal.js';
import { type SipKey, sipHash64Words, sipHashWords, unsafeSipKey } from './siphash.js';

/** The most buckets a shard key may have (they fit the 2-byte prefix of a salted key). */
export const MAX_SHARD_BUCKETS = 65536;

/**
 * The key used when none is given: the 16 ASCII bytes of "idforge.shard.v1", as hex. Fixed
 * forever (a new default would be a new name), so a bucket never depends on the process or
 * the idforge version. Pass your own secret key when clients choose the IDs (a known key lets
 * an attacker pick IDs that all land in one bucket).
 */
export const DEFAULT_SHARD_KEY = '6964666f7267652e73686172642e7631';

/** An ID {@link shardKey} accepts (see the module comment for the bytes hashed). */
export type ShardId = bigint | string | Uint8Array;

/** Options of {@link shardKey}, {@link saltedKey} and {@link bucketRanges}. */
export interface ShardKeyOptions {
  /** The number of buckets, an integer from 1 to 65536. Part of the table's schema. */
  readonly buckets: number;
  /**
   * The 16-byte SipHash key: a `Uint8Array(16)` or 32 hex digits. Default
   * {@link DEFAULT_SHARD_KEY}. Part of the table's schema.
   */
  readonly key?: Uint8Array | string;
}

/** A composite key: the bucket, the ID, and one byte string that sorts by (bucket, ID). */
export interface SaltedKey {
  /** The bucket, in [0, buckets). */
  readonly bucket: number;
  /** The ID: a `bigint` for a 64-bit ID, else its 16 or 20 bytes. */
  readonly id: bigint | Uint8Array;
  /** The bucket as 2 bytes big-endian, then the ID's bytes (8, 16 or 20). */
  readonly bytes: Uint8Array;
  /** `bytes` as lower-case hex: the same order as `bytes` when compared as strings. */
  readonly hex: string;
}

/** One bucket's share of a range read: the salted keys from `low` to `high`, both inclusive. */
export interface BucketRange {
  readonly bucket: number;
  readonly low: Uint8Array;
  readonly high: Uint8Array;
  readonly lowHex: string;
  readonly highHex: string;
}

const TWO32 = 2 ** 32;
const DECIMAL = /^[0-9]{1,20}$/;
const HEX32 = /^[0-9a-fA-F]{32}$/;

function hexKey(hex: string): SipKey {
  const b = new Uint8Array(16);
  for (let i = 0; i < 16; i++)
    b[i] = (HEX_VALUE[hex.charCodeAt(2 * i)]! << 4) | HEX_VALUE[hex.charCodeAt(2 * i + 1)]!;
  return unsafeSipKey(b);
}

const DEFAULT_WORDS = hexKey(DEFAULT_SHARD_KEY);
// The last hex key read, so a caller passing the same string each time parses it once.
let lastHex = DEFAULT_SHARD_KEY;
let lastHexWords = DEFAULT_WORDS;

function keyOf(where: string, key: unknown): SipKey {
  if (key === undefined) return DEFAULT_WORDS;
  if (typeof key === 'string') {
    if (key === lastHex) return lastHexWords;
    if (!HEX32.test(key)) throw rangeError(`${where} key`, '32 hex digits (16 bytes)', key);
    lastHexWords = hexKey(key);
    lastHex = key;
    return lastHexWords;
  }
  if (key instanceof Uint8Array) {
    if (key.length !== 16) throw rangeError(`${where} key`, 'a Uint8Array(16)', key);
    return unsafeSipKey(key);
  }
  throw typeError(`${where} key`, 'a Uint8Array(16) or 32 hex digits', key);
}

function bucketsOf(where: string, options: unknown): number {
  if (typeof options !== 'object' || options === null) {
    throw typeError(`${where} options`, 'an object with buckets', options);
  }
  return assertInteger(
    `${where} buckets`,
    (options as ShardKeyOptions).buckets,
    1,
    MAX_SHARD_BUCKETS,
  );
}

/** The 8 big-endian bytes of a 64-bit unsigned integer. */
function bytes64(n: bigint): Uint8Array {
  const b = new Uint8Array(8);
  const hi = Number(n >> 32n);
  const lo = Number(n & 0xffffffffn);
  b[0] = hi >>> 24;
  b[1] = hi >>> 16;
  b[2] = hi >>> 8;
  b[3] = hi;
  b[4] = lo >>> 24;
  b[5] = lo >>> 16;
  b[6] = lo >>> 8;
  b[7] = lo;
  return b;
}

function hexBytes(hex: string): Uint8Array {
  const b = new Uint8Array(hex.length / 2);
  for (let i = 0; i < b.length; i++) {
    b[i] = (HEX_VALUE[hex.charCodeAt(2 * i)]! << 4) | HEX_VALUE[hex.charCodeAt(2 * i + 1)]!;
  }
  return b;
}

/**
 * The ID as the value a salted key holds (`bigint` for 64 bits, else bytes) and the bytes
 * hashed. Misuse (a wrong type, a negative bigint, bytes of another length) throws
 * TypeError/RangeError; text that is no ID throws InvalidIdError.
 */
function idOf(where: string, id: unknown): { value: bigint | Uint8Array; bytes: Uint8Array } {
  if (typeof id === 'bigint') {
    if (id < 0n || id > UINT64_MAX)
      throw rangeError(`${where} id`, 'a bigint in [0, 2^64 - 1]', id);
    return { value: id, bytes: bytes64(id) };
  }
  if (id instanceof Uint8Array) {
    if (id.length !== 8 && id.length !== 16 && id.length !== 20) {
      throw rangeError(`${where} id`, 'a Uint8Array of 8, 16 or 20 bytes', id);
    }
    return { value: id.length === 8 ? BigInt(`0x${bytesToHex(id)}`) : id, bytes: id };
  }
  if (typeof id !== 'string') {
    throw typeError(`${where} id`, 'a bigint, a Uint8Array or an ID as text', id);
  }
  if (DECIMAL.test(id)) {
    const n = BigInt(id);
    if (n > UINT64_MAX) {
      throw new InvalidIdError('64-bit id', 'range', 'expected at most 2^64 - 1', id);
    }
    return { value: n, bytes: bytes64(n) };
  }
  const found = inspect(id); // a text ID of any registered scheme (decimal was taken above)
  const bytes = hexBytes(found.hex);
  return { value: bytes, bytes };
}

const hash = new Uint32Array(2);

/** The bucket of `bytes` (trusted inner path). */
function bucketOf(key: SipKey, bytes: Uint8Array, buckets: number): number {
  sipHashWords(key, bytes, hash);
  return reduce(buckets);
}

/** The bucket of the hash just computed into `hash`. */
function reduce(buckets: number): number {
  // floor(h × B / 2^64) from h = hi·2^32 + lo: both products are below 2^48, exact in doubles.
  return Math.floor((hash[0]! * buckets + Math.floor((hash[1]! * buckets) / TWO32)) / TWO32);
}

/**
 * The bucket of `id`, in [0, buckets): from SipHash-2-4 of the whole ID's bytes under
 * `options.key`, reduced by multiply-high (see the module comment for the exact bytes).
 * Stable: the same ID, key and bucket count give the same bucket in every process and
 * release. Throws `TypeError`/`RangeError` on a wrong argument (buckets not an integer in
 * 1..65536, a key that is not 16 bytes or 32 hex digits, a negative or too-large bigint,
 * bytes that are not 8, 16 or 20 long); {@link InvalidIdError} on text that is not an ID.
 * Stateless (it caches the last hex key it parsed).
 */
export function shardKey(id: ShardId, options: ShardKeyOptions): number {
  const buckets = bucketsOf('shardKey', options);
  const key = keyOf('shardKey', options.key);
  if (typeof id === 'bigint' && id >= 0n && id <= UINT64_MAX) {
    // The common case, a 64-bit ID, hashed from its two halves without making its bytes.
    sipHash64Words(key, Number(id >> 32n), Number(id & 0xffffffffn), hash);
    return reduce(buckets);
  }
  return bucketOf(key, idOf('shardKey', id).bytes, buckets);
}

function salted(bucket: number, idBytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(2 + idBytes.length);
  out[0] = bucket >>> 8;
  out[1] = bucket & 0xff;
  out.set(idBytes, 2);
  return out;
}

/**
 * The composite key of `id`: its bucket ({@link shardKey}), the ID, and the byte string
 * `bucket (2 bytes, big-endian) ‖ ID bytes` (and its hex) whose byte order is the order of
 * (bucket, ID). Store the bucket and the ID as the leading key columns (or the bytes as a
 * row key) and partition by range on them. Throws as {@link shardKey}.
 */
export function saltedKey(id: ShardId, options: ShardKeyOptions): SaltedKey {
  const buckets = bucketsOf('saltedKey', options);
  const key = keyOf('saltedKey', options.key);
  const { value, bytes: idBytes } = idOf('saltedKey', id);
  const bucket = bucketOf(key, idBytes, buckets);
  const bytes = salted(bucket, idBytes);
  return { bucket, id: value, bytes, hex: bytesToHex(bytes) };
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * The key ranges that read every row whose ID lies in [from, to] (both inclusive): one per
 * bucket, in bucket order, each from `bucket ‖ from` to `bucket ‖ to`. For time-ordered IDs,
 * `from` and `to` are the smallest and largest IDs of a time range, so a range read becomes
 * `buckets` index range scans (one per bucket) instead of one. In a table keyed by
 * (bucket, id): `WHERE bucket = r.bucket AND id BETWEEN from AND to` for each range. `from`
 * and `to` must be IDs of the same size (both 64-bit, or both 16 or 20 bytes) with from ≤ to.
 * The key does not change the ranges, only `buckets` does. Throws `TypeError`/`RangeError`
 * on a wrong argument (including from > to or a size mismatch), {@link InvalidIdError} on
 * text that is not an ID.
 */
export function bucketRanges(from: ShardId, to: ShardId, options: ShardKeyOptions): BucketRange[] {
  const buckets = bucketsOf('bucketRanges', options);
  const lo = idOf('bucketRanges', from).bytes;
  const hi = idOf('bucketRanges', to).bytes;
  if (lo.length !== hi.length) {
    throw rangeError('bucketRanges to', `an ID of ${lo.length} bytes like from`, to);
  }
  if (compareBytes(lo, hi) > 0) throw rangeError('bucketRanges to', 'an ID not below from', to);
  const out: BucketRange[] = [];
  for (let b = 0; b < buckets; b++) {
    const low = salted(b, lo);
    const high = salted(b, hi);
    out.push({ bucket: b, low, high, lowHex: bytesToHex(low), highHex: bytesToHex(high) });
  }
  return out;
}
