/**
 * The canonical text of a UUIDv7 from the fields of its state (`v7.ts`). Shared by
 * `UuidV7Generator` and the one-call `uuidv7()`, which keeps its state without a generator so
 * that a bundle of `uuidv7()` carries neither the generator's option checks nor the methods it
 * does not use (issue 20). A pure function of the state: no cache to keep.
 */
import { HEX_DIGIT_CODE } from './constants.js';
import type { UuidV7State } from './v7-state.js';

/**
 * The lower-case text of the UUIDv7 with the fields of `s`. Trusts its argument.
 *
 * REF: bench/peers (uuidv7 vs crypto.randomUUID): all 36 characters from one
 * String.fromCharCode call make one flat string. Caching the first 24 characters and
 * appending the other 12 made a rope that cost about 40 % more per ID once the text is read,
 * and `Number.prototype.toString(16)` or 2-digit table concatenations were slower still
 * (about 14× and 3× this function's 60 ns, issue 20).
 * The table reads are written out: through a helper function (32 calls) it was about 15 %
 * slower per ID, for the same gzip size. Each 32-bit word goes through the one variable `w`,
 * assigned where its first digit is read, so that every group of digits is the same text as
 * the others and gzip stores it once (47 B less in `uuidv7()`'s bundle than one variable per
 * word, at the same speed).
 */
export function formatUuidV7(s: UuidV7State): string {
  const d = HEX_DIGIT_CODE;
  let w = (s.ms / 2 ** 32) | 0; // the top 16 of unix_ts_ms's 48 bits, then each word in turn
  // biome-ignore format: deliberately unrolled, one group a line
  return String.fromCharCode(
    d[(w >>> 12) & 15]!, d[(w >>> 8) & 15]!, d[(w >>> 4) & 15]!, d[w & 15]!,
    // biome-ignore lint/suspicious/noAssignInExpressions: one variable for every word (above)
    d[(w = s.ms >>> 0) >>> 28]!, d[(w >>> 24) & 15]!, d[(w >>> 20) & 15]!, d[(w >>> 16) & 15]!, 0x2d,
    d[(w >>> 12) & 15]!, d[(w >>> 8) & 15]!, d[(w >>> 4) & 15]!, d[w & 15]!, 0x2d,
    // biome-ignore lint/suspicious/noAssignInExpressions: one variable for every word (above)
    0x37, d[((w = s.randA) >>> 8) & 15]!, d[(w >>> 4) & 15]!, d[w & 15]!, 0x2d,
    // the variant bits 10 above rand_b's high 30 bits
    // biome-ignore lint/suspicious/noAssignInExpressions: one variable for every word (above)
    d[(w = s.randBHi | 0x80000000) >>> 28]!, d[(w >>> 24) & 15]!, d[(w >>> 20) & 15]!, d[(w >>> 16) & 15]!, 0x2d,
    d[(w >>> 12) & 15]!, d[(w >>> 8) & 15]!, d[(w >>> 4) & 15]!, d[w & 15]!,
    // biome-ignore lint/suspicious/noAssignInExpressions: one variable for every word (above)
    d[(w = s.randBLo) >>> 28]!, d[(w >>> 24) & 15]!, d[(w >>> 20) & 15]!, d[(w >>> 16) & 15]!,
    d[(w >>> 12) & 15]!, d[(w >>> 8) & 15]!, d[(w >>> 4) & 15]!, d[w & 15]!,
  );
}
