/**
 * The canonical text of a UUIDv7 from the fields of its state (`v7.ts`). Shared by
 * `UuidV7Generator` and the one-call `uuidv7()`, which keeps its state without a generator so
 * that a bundle of `uuidv7()` carries neither the generator's option checks nor the methods it
 * does not use (issue 20). A pure function of the state: no cache to keep.
 */
import { HEX_DIGIT_CODE } from './constants.js';
import type { UuidV7State } from './v7-state.js';

/** The character code of the lower-case hex digit of bits `shift + 3 .. shift` of `n`. */
function hexAt(n: number, shift: number): number {
  return HEX_DIGIT_CODE[(n >>> shift) & 15]!;
}

/**
 * The lower-case text of the UUIDv7 with the fields of `s`. Trusts its argument.
 *
 * REF: bench/peers (uuidv7 vs crypto.randomUUID): all 36 characters from one
 * String.fromCharCode call make one flat string. Caching the first 24 characters and
 * appending the other 12 made a rope that cost about 40 % more per ID once the text is read,
 * and `Number.prototype.toString(16)` or 2-digit table concatenations were slower still.
 */
export function formatUuidV7(s: UuidV7State): string {
  const t = (s.ms / 2 ** 32) | 0; // the top 16 of unix_ts_ms's 48 bits
  const m = s.ms >>> 0;
  const a = s.randA;
  const b = s.randBHi | 0x80000000; // the variant bits 10 above rand_b's high 30 bits
  const x = s.randBLo;
  // biome-ignore format: deliberately unrolled, one group a line
  return String.fromCharCode(
    hexAt(t, 12), hexAt(t, 8), hexAt(t, 4), hexAt(t, 0),
    hexAt(m, 28), hexAt(m, 24), hexAt(m, 20), hexAt(m, 16), 0x2d,
    hexAt(m, 12), hexAt(m, 8), hexAt(m, 4), hexAt(m, 0), 0x2d,
    0x37, hexAt(a, 8), hexAt(a, 4), hexAt(a, 0), 0x2d,
    hexAt(b, 28), hexAt(b, 24), hexAt(b, 20), hexAt(b, 16), 0x2d,
    hexAt(b, 12), hexAt(b, 8), hexAt(b, 4), hexAt(b, 0),
    hexAt(x, 28), hexAt(x, 24), hexAt(x, 20), hexAt(x, 16),
    hexAt(x, 12), hexAt(x, 8), hexAt(x, 4), hexAt(x, 0),
  );
}
