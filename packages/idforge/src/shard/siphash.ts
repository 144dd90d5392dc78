/**
 * SipHash-2-4 (Aumasson and Bernstein, 2012) with a 64-bit output: a keyed hash, fast on short
 * inputs, whose output an attacker who does not know the 16-byte key cannot steer. Written
 * with 32-bit arithmetic: each 64-bit state word is a pair of unsigned 32-bit halves (hi, lo),
 * so the inner loop never allocates a BigInt. Checked against the 64 vectors of the reference
 * implementation (test/vectors/siphash.ts).
 *
 * Byte order, as in the paper: the key is k0 = bytes 0..7 and k1 = bytes 8..15, each read
 * little-endian; the message is read in 8-byte little-endian words; the last word carries the
 * message length (mod 256) in its top byte. The 64-bit result is the integer whose
 * little-endian bytes are the reference implementation's output.
 */
import { assertBytes, typeError } from '../core/internal.js';

/** A key made ready for {@link sipHashWords}: k0 hi, k0 lo, k1 hi, k1 lo. */
export type SipKey = Uint32Array;

function le32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

/** Writes the four 32-bit words of a 16-byte key into `out` (trusted: length checked). */
function sipKeyInto(key: Uint8Array, out: SipKey): SipKey {
  out[0] = le32(key, 4);
  out[1] = le32(key, 0);
  out[2] = le32(key, 12);
  out[3] = le32(key, 8);
  return out;
}

/** The four 32-bit words of a 16-byte key (trusted: the caller checked the length). */
export function unsafeSipKey(key: Uint8Array): SipKey {
  return sipKeyInto(key, new Uint32Array(4));
}

// The state: v0..v3 as (hi, lo) pairs. One module-level array, reused: the hash is
// synchronous, so no two calls interleave.
const v = new Uint32Array(8);

/**
 * `n` SipRounds on the state. Per 64-bit word: add is lo + lo with the carry into hi;
 * rotations by r < 32 move bits between the halves; a rotation by 32 swaps them.
 */
function rounds(n: number): void {
  let v0h = v[0]!;
  let v0l = v[1]!;
  let v1h = v[2]!;
  let v1l = v[3]!;
  let v2h = v[4]!;
  let v2l = v[5]!;
  let v3h = v[6]!;
  let v3l = v[7]!;
  let t: number;
  for (let i = 0; i < n; i++) {
    // v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32)
    t = (v0l + v1l) >>> 0;
    v0h = (v0h + v1h + (t < v0l ? 1 : 0)) >>> 0;
    v0l = t;
    t = ((v1h << 13) | (v1l >>> 19)) >>> 0;
    v1l = ((v1l << 13) | (v1h >>> 19)) >>> 0;
    v1h = (t ^ v0h) >>> 0;
    v1l = (v1l ^ v0l) >>> 0;
    t = v0h;
    v0h = v0l;
    v0l = t;
    // v2 += v3; v3 = rotl(v3, 16); v3 ^= v2
    t = (v2l + v3l) >>> 0;
    v2h = (v2h + v3h + (t < v2l ? 1 : 0)) >>> 0;
    v2l = t;
    t = ((v3h << 16) | (v3l >>> 16)) >>> 0;
    v3l = ((v3l << 16) | (v3h >>> 16)) >>> 0;
    v3h = (t ^ v2h) >>> 0;
    v3l = (v3l ^ v2l) >>> 0;
    // v0 += v3; v3 = rotl(v3, 21); v3 ^= v0
    t = (v0l + v3l) >>> 0;
    v0h = (v0h + v3h + (t < v0l ? 1 : 0)) >>> 0;
    v0l = t;
    t = ((v3h << 21) | (v3l >>> 11)) >>> 0;
    v3l = ((v3l << 21) | (v3h >>> 11)) >>> 0;
    v3h = (t ^ v0h) >>> 0;
    v3l = (v3l ^ v0l) >>> 0;
    // v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32)
    t = (v2l + v1l) >>> 0;
    v2h = (v2h + v1h + (t < v2l ? 1 : 0)) >>> 0;
    v2l = t;
    t = ((v1h << 17) | (v1l >>> 15)) >>> 0;
    v1l = ((v1l << 17) | (v1h >>> 15)) >>> 0;
    v1h = (t ^ v2h) >>> 0;
    v1l = (v1l ^ v2l) >>> 0;
    t = v2h;
    v2h = v2l;
    v2l = t;
  }
  v[0] = v0h;
  v[1] = v0l;
  v[2] = v1h;
  v[3] = v1l;
  v[4] = v2h;
  v[5] = v2l;
  v[6] = v3h;
  v[7] = v3l;
}

/** Absorbs one message word (hi, lo): v3 ^= m; two rounds; v0 ^= m. */
function compress(mh: number, ml: number): void {
  v[6]! ^= mh;
  v[7]! ^= ml;
  rounds(2);
  v[0]! ^= mh;
  v[1]! ^= ml;
}

/** Sets the state from the key. */
function init(key: SipKey): void {
  const k0h = key[0]!;
  const k0l = key[1]!;
  const k1h = key[2]!;
  const k1l = key[3]!;
  // The constants of the paper: "somepseudorandomlygeneratedbytes".
  v[0] = k0h ^ 0x736f6d65;
  v[1] = k0l ^ 0x70736575;
  v[2] = k1h ^ 0x646f7261;
  v[3] = k1l ^ 0x6e646f6d;
  v[4] = k0h ^ 0x6c796765;
  v[5] = k0l ^ 0x6e657261;
  v[6] = k1h ^ 0x74656462;
  v[7] = k1l ^ 0x79746573;
}

/** Finalization: v2 ^= 0xff; four rounds; the XOR of the state into `out` (hi, lo). */
function finish(out: Uint32Array): void {
  v[5]! ^= 0xff;
  rounds(4);
  out[0] = (v[0]! ^ v[2]! ^ v[4]! ^ v[6]!) >>> 0;
  out[1] = (v[1]! ^ v[3]! ^ v[5]! ^ v[7]!) >>> 0;
}

function bswap32(x: number): number {
  return ((x >>> 24) | ((x >>> 8) & 0xff00) | ((x & 0xff00) << 8) | (x << 24)) >>> 0;
}

/**
 * {@link sipHashWords} of the 8 big-endian bytes of the 64-bit integer `hi`·2^32 + `lo` (each
 * an unsigned 32-bit half), without making the bytes: the hash of a 64-bit ID.
 */
export function sipHash64Words(key: SipKey, hi: number, lo: number, out: Uint32Array): void {
  init(key);
  // Bytes hi3 hi2 hi1 hi0 lo3 lo2 lo1 lo0 read little-endian: the word bswap(lo):bswap(hi).
  compress(bswap32(lo), bswap32(hi));
  compress(0x08000000, 0);
  finish(out);
}

/**
 * SipHash-2-4 of `msg` under `key`, written to `out[0]` (high 32 bits) and `out[1]` (low 32
 * bits). Trusted inner path: no checks.
 */
export function sipHashWords(key: SipKey, msg: Uint8Array, out: Uint32Array): void {
  init(key);
  const len = msg.length;
  const end = len - (len % 8);
  for (let i = 0; i < end; i += 8) compress(le32(msg, i + 4), le32(msg, i));
  // The last word: the 0..7 remaining bytes, little-endian, and the length in the top byte.
  let lo = 0;
  let hi = (len & 0xff) << 24;
  for (let j = len - 1; j >= end; j--) {
    const shift = (j - end) * 8;
    if (shift < 32) lo |= msg[j]! << shift;
    else hi |= msg[j]! << (shift - 32);
  }
  compress(hi >>> 0, lo >>> 0);
  finish(out);
}

const word = new Uint32Array(2);
// The result's 8 bytes, read as one big-endian bigint: one allocation, not five.
const result = new DataView(new ArrayBuffer(8));
// The key's words, filled on each call (no allocation).
const keyWords: SipKey = new Uint32Array(4);

/**
 * SipHash-2-4 of `message` under a 16-byte `key`, as an unsigned 64-bit `bigint` (the
 * reference implementation's 8 output bytes read little-endian). Throws `TypeError` when the
 * key is not a `Uint8Array(16)` or the message not a `Uint8Array`, `RangeError` on a key of
 * another length. Stateless and synchronous.
 */
export function siphash24(key: Uint8Array, message: Uint8Array): bigint {
  assertBytes('siphash24 key', key, 16);
  if (!(message instanceof Uint8Array))
    throw typeError('siphash24 message', 'a Uint8Array', message);
  sipHashWords(sipKeyInto(key, keyWords), message, word);
  result.setUint32(0, word[0]!);
  result.setUint32(4, word[1]!);
  return result.getBigUint64(0);
}
