/**
 * The checking half of PublicIds (opaque.ts): given a public ID's cipher bytes and the key
 * its version character names, check it and only then invert the cipher. Order matters: the
 * check comes first, so a forgery never yields an ID, and the retired test comes after it,
 * so only a genuine ID is told its key is retired (a made-up one is just invalid).
 */
import { loadWord, storeWord, swapWord } from './aes.js';
import { PublicIdInvalidError, PublicKeyRetiredError } from './errors.js';
import type { VersionKey } from './version-key.js';

/** 64-bit: AES⁻¹ under k64, then the last 8 bytes must equal the prefix's redundancy. */
export function open64(
  vk: VersionKey,
  b: Uint8Array,
  publicId: string,
  prefix: string | undefined,
): bigint {
  const t = vk.tweak(prefix ?? '');
  const o = vk.k64.decrypt(loadWord(b, 0), loadWord(b, 4), loadWord(b, 8), loadWord(b, 12));
  if (((o.s2 ^ t.r2) | (o.s3 ^ t.r3)) !== 0) throw forged(publicId, prefix);
  if (vk.retired) throw new PublicKeyRetiredError(vk.version);
  const hi = swapWord(o.s0);
  const lo = swapWord(o.s1);
  // REF: bench/peers/public-group.ts (one Number→BigInt below 2^53 beats shift-and-or).
  if (hi < 0x200000) return BigInt(hi * 0x100000000 + lo);
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** 128-bit: the 5-byte tag must equal AES_kTag(C ⊕ t2); then u = AES⁻¹_k128(C) ⊕ t1. */
export function open128(
  vk: VersionKey,
  b: Uint8Array,
  publicId: string,
  prefix: string | undefined,
): Uint8Array {
  const t = vk.tweak(prefix ?? '');
  const c0 = loadWord(b, 0);
  const c1 = loadWord(b, 4);
  const c2 = loadWord(b, 8);
  const c3 = loadWord(b, 12);
  const g = vk.kTag.encrypt(c0 ^ t.b0, c1 ^ t.b1, c2 ^ t.b2, c3 ^ t.b3);
  if (((g.s0 ^ loadWord(b, 16)) | ((g.s1 ^ b[20]!) & 0xff)) !== 0) throw forged(publicId, prefix);
  if (vk.retired) throw new PublicKeyRetiredError(vk.version);
  const o = vk.k128.decrypt(c0, c1, c2, c3);
  const out = new Uint8Array(16);
  storeWord(out, 0, o.s0 ^ t.a0);
  storeWord(out, 4, o.s1 ^ t.a1);
  storeWord(out, 8, o.s2 ^ t.a2);
  storeWord(out, 12, o.s3 ^ t.a3);
  return out;
}

function forged(publicId: string, prefix: string | undefined): PublicIdInvalidError {
  return new PublicIdInvalidError(
    'forged',
    'its check failed (altered, made up, or issued for another prefix or by other keys)',
    publicId,
    prefix,
  );
}

/**
 * The error for a public ID of the wrong length after its prefix: `prefix` when no prefix
 * was expected but the text looks prefixed (an `_` where a prefixed ID's separator would be),
 * else `length`. `want` is the accepted lengths in words ("23 characters (a 64-bit public ID)").
 */
export function lengthError(
  publicId: string,
  prefix: string | undefined,
  start: number,
  want: string,
): PublicIdInvalidError {
  const len = publicId.length - start;
  const prefixed =
    prefix === undefined &&
    ((len > 24 && publicId[len - 24] === '_') || (len > 30 && publicId[len - 30] === '_'));
  if (prefixed) return new PublicIdInvalidError('prefix', 'it has a prefix', publicId, prefix);
  return new PublicIdInvalidError(
    'length',
    // `want` names the lengths; the count is of what follows the prefix, so the prefix is said.
    `expected ${want}${prefix === undefined ? '' : ` after "${prefix}_"`}, got ${len}`,
    publicId,
    prefix,
  );
}
