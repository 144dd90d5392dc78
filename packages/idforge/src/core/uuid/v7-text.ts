/**
 * The canonical text of a UUIDv7 from the fields of its state (`v7.ts`), with the first 24
 * characters cached: they change once per millisecond or per 65,536 IDs. Shared by
 * `UuidV7Generator` and the one-call `uuidv7()`, which keeps its state without a generator
 * so that a bundle of `uuidv7()` carries neither the generator's option checks nor the
 * methods it does not use (issue 20).
 */
import { HEX_DIGIT_CODE } from './constants.js';
import type { UuidV7State } from './v7-state.js';

const TWO_32 = 2 ** 32;

/** Holds the cache of one generator's text; trusts its argument. */
export class UuidV7Text {
  /** The text up to the third hyphen, keyed by ms, randA and randBHi >>> 16. */
  #head: string;
  #headMs: number;
  #headA: number;
  #headB: number;
  /** "tttttttt-tttt-" of `#groupsMs`. */
  #groups: string;
  #groupsMs: number;

  constructor() {
    this.#head = '';
    this.#headMs = -1;
    this.#headA = -1;
    this.#headB = -1;
    this.#groups = '';
    this.#groupsMs = -1;
  }

  /** The lower-case text of the UUIDv7 with the fields of `s`. */
  format(s: UuidV7State): string {
    const b = s.randBHi;
    const c = s.randBLo;
    // REF: bench/peers (uuidv7 vs crypto.randomUUID): the first 24 characters change once
    // per ms or per 65536 IDs, so they are cached; the other 12 are built by one
    // String.fromCharCode call (one flat allocation), which measured ~25% faster per ID
    // than six 2-digit table concatenations (each a separate string allocation).
    if (s.ms !== this.#headMs || s.randA !== this.#headA || b >>> 16 !== this.#headB) {
      this.#rebuildHead(s);
    }
    const d = HEX_DIGIT_CODE;
    // biome-ignore format: deliberately unrolled, four digits a line
    return (
      this.#head +
      String.fromCharCode(
        d[(b >>> 12) & 15]!, d[(b >>> 8) & 15]!, d[(b >>> 4) & 15]!, d[b & 15]!,
        d[c >>> 28]!, d[(c >>> 24) & 15]!, d[(c >>> 20) & 15]!, d[(c >>> 16) & 15]!,
        d[(c >>> 12) & 15]!, d[(c >>> 8) & 15]!, d[(c >>> 4) & 15]!, d[c & 15]!,
      )
    );
  }

  #rebuildHead(s: UuidV7State): void {
    if (s.ms !== this.#groupsMs) {
      this.#groups = msGroups(s.ms);
      this.#groupsMs = s.ms;
    }
    const a = s.randA;
    const b = s.randBHi;
    const d = HEX_DIGIT_CODE;
    // biome-ignore format: deliberately unrolled, "7aaa-" then "Nbbb-"
    this.#head =
      this.#groups +
      String.fromCharCode(
        0x37, d[a >>> 8]!, d[(a >>> 4) & 15]!, d[a & 15]!, 0x2d,
        d[8 | (b >>> 28)]!, d[(b >>> 24) & 15]!, d[(b >>> 20) & 15]!, d[(b >>> 16) & 15]!, 0x2d,
      );
    this.#headMs = s.ms;
    this.#headA = a;
    this.#headB = b >>> 16;
  }
}

/** "tttttttt-tttt-": the first two groups of a UUIDv7 with timestamp `ms` (< 2^48). */
function msGroups(ms: number): string {
  const hi = Math.floor(ms / TWO_32);
  const lo = ms >>> 0;
  const d = HEX_DIGIT_CODE;
  // biome-ignore format: deliberately unrolled, the 12 digits of 48 bits
  return String.fromCharCode(
    d[hi >>> 12]!, d[(hi >>> 8) & 15]!, d[(hi >>> 4) & 15]!, d[hi & 15]!,
    d[lo >>> 28]!, d[(lo >>> 24) & 15]!, d[(lo >>> 20) & 15]!, d[(lo >>> 16) & 15]!, 0x2d,
    d[(lo >>> 12) & 15]!, d[(lo >>> 8) & 15]!, d[(lo >>> 4) & 15]!, d[lo & 15]!, 0x2d,
  );
}
