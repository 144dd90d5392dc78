/**
 * Hybrid logical clock timestamps (Kulkarni, Demirbas, Madappa, Avva, Leone, "Logical
 * Physical Clocks", OPODIS 2014): a pair `(l, c)` where `l` is the largest physical time
 * (unix ms) the node has heard of and `c` counts events within that `l`. Timestamps compare
 * by `l`, then `c`.
 *
 * Packed in 64 bits as `l << 16 | c` (48 bits of ms last until the year 10889), and written
 * in a fixed-width lower-case text form whose string order equals the numeric order:
 * ```
 *  "0193e0c1a2b4-0000"
 *   ^^^^^^^^^^^^ ^^^^
 *   l: 12 hex    c: 4 hex
 * ```
 * Every function here is pure.
 */
import { InvalidIdError } from '../core/index.js';
import { HEX_VALUE, rangeError, typeError, UINT64_MAX } from '../core/internal.js';

/** A hybrid logical clock timestamp. */
export interface HlcTimestamp {
  /** The physical part, unix ms: an integer in [0, 2^48 - 1]. */
  readonly l: number;
  /** The logical counter: an integer in [0, 2^16 - 1]. */
  readonly c: number;
}

/** Largest `l`, 2^48 - 1 (unix ms in the year 10889). */
export const HLC_MAX_L = 2 ** 48 - 1;
/** Largest `c`, 2^16 - 1. */
export const HLC_MAX_C = 2 ** 16 - 1;
/** Length of the text form: 12 hex digits, '-', 4 hex digits. */
export const HLC_TEXT_LENGTH = 17;

/**
 * `ts` itself when it is an HLC timestamp (an object whose `l` and `c` are integers in
 * range); throws `TypeError` (not an object, not numbers) or `RangeError` (out of range).
 */
export function assertHlc(name: string, ts: unknown): HlcTimestamp {
  if (typeof ts !== 'object' || ts === null) throw typeError(name, 'an HLC timestamp {l, c}', ts);
  const { l, c } = ts as HlcTimestamp;
  if (typeof l !== 'number') throw typeError(`${name}.l`, `an integer in [0, ${HLC_MAX_L}]`, l);
  if (typeof c !== 'number') throw typeError(`${name}.c`, `an integer in [0, ${HLC_MAX_C}]`, c);
  if (!Number.isInteger(l) || l < 0 || l > HLC_MAX_L) {
    throw rangeError(`${name}.l`, `an integer in [0, ${HLC_MAX_L}]`, l);
  }
  if (!Number.isInteger(c) || c < 0 || c > HLC_MAX_C) {
    throw rangeError(`${name}.c`, `an integer in [0, ${HLC_MAX_C}]`, c);
  }
  return ts as HlcTimestamp;
}

/**
 * `ts` packed in 64 bits: `l << 16 | c`, so packed order equals timestamp order. Throws as
 * {@link assertHlc}.
 */
export function packHlc(ts: HlcTimestamp): bigint {
  assertHlc('packHlc ts', ts);
  return (BigInt(ts.l) << 16n) | BigInt(ts.c);
}

/**
 * The timestamp packed in `packed` (every value in [0, 2^64 - 1] is one). Throws `TypeError`
 * unless a bigint, `RangeError` outside that range.
 */
export function unpackHlc(packed: bigint): HlcTimestamp {
  if (typeof packed !== 'bigint') throw typeError('unpackHlc packed', 'a bigint', packed);
  if (packed < 0n || packed > UINT64_MAX) {
    throw rangeError('unpackHlc packed', 'a bigint in [0, 2^64 - 1]', packed);
  }
  return { l: Number(packed >> 16n), c: Number(packed & 0xffffn) };
}

/**
 * The text form: 12 lower-case hex digits of `l`, '-', 4 of `c` (e.g. "0193e0c1a2b4-0000").
 * Fixed width, so string order equals timestamp order. Throws as {@link assertHlc}.
 */
export function formatHlc(ts: HlcTimestamp): string {
  assertHlc('formatHlc ts', ts);
  return `${ts.l.toString(16).padStart(12, '0')}-${ts.c.toString(16).padStart(4, '0')}`;
}

/**
 * The timestamp written by {@link formatHlc}; only that spelling is accepted (lower-case,
 * fixed width), so one timestamp has one text. Throws `TypeError` unless a string, and
 * {@link InvalidIdError} (scheme 'hlc', code `IDF_INVALID_ID`: the text comes from outside)
 * with reason `length` (not 17 characters), `format` (no '-' at position 12) or `alphabet`
 * (a character that is not 0-9 or a-f; upper case included), with its `position`.
 */
export function parseHlc(text: string): HlcTimestamp {
  if (typeof text !== 'string') throw typeError('parseHlc text', 'a string', text);
  if (text.length !== HLC_TEXT_LENGTH) {
    throw new InvalidIdError(
      'hlc',
      'length',
      `expected ${HLC_TEXT_LENGTH} characters (12 hex digits, '-', 4 hex digits), got ${text.length}`,
      text,
    );
  }
  let l = 0;
  let c = 0;
  for (let i = 0; i < HLC_TEXT_LENGTH; i++) {
    const code = text.charCodeAt(i);
    if (i === 12) {
      if (code !== 45) {
        throw new InvalidIdError('hlc', 'format', "expected '-' at position 12", text, i);
      }
      continue;
    }
    // Lower case only: HEX_VALUE also reads A-F, which would give one timestamp two texts.
    const v = code < 128 && !(code >= 65 && code <= 70) ? HEX_VALUE[code]! : 255;
    if (v === 255) {
      throw new InvalidIdError(
        'hlc',
        'alphabet',
        `expected a lower-case hex digit (0-9, a-f) at position ${i}, got "${text[i]}"`,
        text,
        i,
      );
    }
    if (i < 12) l = l * 16 + v;
    else c = c * 16 + v;
  }
  return { l, c };
}

/** -1, 0 or 1 as `a` is before, equal to or after `b` (by `l`, then `c`). Throws as {@link assertHlc}. */
export function compareHlc(a: HlcTimestamp, b: HlcTimestamp): -1 | 0 | 1 {
  assertHlc('compareHlc a', a);
  assertHlc('compareHlc b', b);
  if (a.l !== b.l) return a.l < b.l ? -1 : 1;
  if (a.c !== b.c) return a.c < b.c ? -1 : 1;
  return 0;
}
