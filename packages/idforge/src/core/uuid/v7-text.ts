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
 * and `Number.prototype.toString(16)` or 2-digit table concatenations were slower still.
 * The table reads are written out: through a helper function (32 calls) it was about 15 %
 * slower per ID, for the same gzip size.
 */
export function formatUuidV7(s: UuidV7State): string {
  const t = (s.ms / 2 ** 32) | 0; // the top 16 of unix_ts_ms's 48 bits
  const m = s.ms >>> 0;
  const a = s.randA;
  const b = s.randBHi | 0x80000000; // the variant bits 10 above rand_b's high 30 bits
  const x = s.randBLo;
  const d = HEX_DIGIT_CODE;
  // biome-ignore format: deliberately unrolled, one group a line
  return String.fromCharCode(
    d[t >>> 12]!, d[(t >>> 8) & 15]!, d[(t >>> 4) & 15]!, d[t & 15]!,
    d[m >>> 28]!, d[(m >>> 24) & 15]!, d[(m >>> 20) & 15]!, d[(m >>> 16) & 15]!, 0x2d,
    d[(m >>> 12) & 15]!, d[(m >>> 8) & 15]!, d[(m >>> 4) & 15]!, d[m & 15]!, 0x2d,
    0x37, d[a >>> 8]!, d[(a >>> 4) & 15]!, d[a & 15]!, 0x2d,
    d[b >>> 28]!, d[(b >>> 24) & 15]!, d[(b >>> 20) & 15]!, d[(b >>> 16) & 15]!, 0x2d,
    d[(b >>> 12) & 15]!, d[(b >>> 8) & 15]!, d[(b >>> 4) & 15]!, d[b & 15]!,
    d[x >>> 28]!, d[(x >>> 24) & 15]!, d[(x >>> 20) & 15]!, d[(x >>> 16) & 15]!,
    d[(x >>> 12) & 15]!, d[(x >>> 8) & 15]!, d[(x >>> 4) & 15]!, d[x & 15]!,
  );
}
