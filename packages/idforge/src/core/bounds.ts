/**
 * Time bounds: the lowest and the highest ID any generator can mint in a time range, for range
 * scans and pagination (`WHERE id BETWEEN lowest AND highest`, Discord's "messages before this
 * Snowflake"). Every bound is itself a valid ID of its scheme (it parses, validates and
 * decodes to the range's end), and each scheme's IDs sort as their text or number does, so
 * the two bounds enclose exactly the IDs whose time field falls in the range:
 *
 *   lowest(from)  = time field of `from`, every other bit as low as the scheme allows
 *   highest(to)   = time field of `to`,   every other bit as high as the scheme allows
 *
 * Both ends are inclusive and in the scheme's own resolution: a millisecond for UUIDv7 and
 * ULID, one tick of the layout for Snowflakes (a scheme of whole seconds widens the range to
 * whole seconds, beside its module). Version and variant bits of a
 * UUIDv7 keep their fixed values, so the bounds are UUIDv7s too.
 */
import { typeError } from './assert.js';
import { unsafeUlidText } from './encoding/base32-crockford.js';
import { type Instant, instantRange } from './instant.js';
import type { Layout } from './snowflake/layout-types.js';
import { ULID_MAX_TIME } from './ulid.js';
import { MAX_UNIX_TS_MS } from './uuid/constants.js';
import { formatUuidV7 } from './uuid/v7-text.js';

/** The two ends of a time range in one scheme: both inclusive, both valid IDs. */
export interface IdBounds<T> {
  /** The lowest ID of the range's first instant. */
  readonly lowest: T;
  /** The highest ID of the range's last instant. */
  readonly highest: T;
}

const MAX20 = 0xfffff;

/** The UUIDv7 bound at `ms`: the 74 bits after the time all 0, or all 1. */
const v7Bound = (ms: number, high: boolean): string =>
  formatUuidV7(
    high
      ? { ms, randA: 0xfff, randBHi: 0x3fffffff, randBLo: 0xffffffff }
      : { ms, randA: 0, randBHi: 0, randBLo: 0 },
  );

/**
 * The lowest UUIDv7 of `from` and the highest of `to` (default `from`), both inclusive, as
 * canonical lower-case text: `WHERE id BETWEEN lowest AND highest` on a `uuid` column, or on
 * its text, finds every UUIDv7 minted from the start of `from`'s millisecond to the end of
 * `to`'s. Throws `TypeError` when an end is neither a number nor a `Date`, `RangeError` when it
 * is not an integer ms in [0, 2^48 - 1] or `to` is before `from`.
 */
export function uuidv7Bounds(from: Instant, to?: Instant): IdBounds<string> {
  const [a, b] = instantRange('uuidv7Bounds', from, to, 0, MAX_UNIX_TS_MS, 'a UUIDv7 time');
  return { lowest: v7Bound(a, false), highest: v7Bound(b, true) };
}

/**
 * The lowest ULID of `from` and the highest of `to` (default `from`), both inclusive, in
 * canonical (upper-case) text: the time digits of the end, then sixteen `0` or sixteen `Z`.
 * Throws as {@link uuidv7Bounds} (ULID times are also [0, 2^48 - 1] ms).
 */
export function ulidBounds(from: Instant, to?: Instant): IdBounds<string> {
  const [a, b] = instantRange('ulidBounds', from, to, 0, ULID_MAX_TIME, 'a ULID time');
  return {
    lowest: unsafeUlidText(a, 0, 0, 0, 0),
    highest: unsafeUlidText(b, MAX20, MAX20, MAX20, MAX20),
  };
}

/** `layout` when it is a layout whose IDs sort by time; throws otherwise. */
function timeSortedLayout(layout: unknown): Layout {
  const l = layout as Layout;
  if (typeof l !== 'object' || l === null || typeof l.timeField?.shiftBig !== 'bigint') {
    throw typeError('snowflakeBounds layout', 'a Layout (from defineLayout or LAYOUTS)', layout);
  }
  const top = l.fields[0];
  if (top !== l.timeField) {
    throw new RangeError(
      `snowflakeBounds layout: expected a layout whose most significant field is its time, ` +
        `got "${l.name}" with "${top?.name}" above it: its IDs do not sort by time, so no ` +
        'range of IDs holds a time range',
    );
  }
  return l;
}

/**
 * The lowest Snowflake of `layout` in the tick of `from` and the highest in the tick of `to`
 * (default `from`), both inclusive, as bigints: every field below the time 0, or at its
 * maximum. Pass them as decimal strings to SQL (`WHERE id BETWEEN $1 AND $2` on a BIGINT; a
 * layout that uses all 64 bits reads as negative signed int64 after its `negativeMs`).
 * Throws `TypeError` when `layout` is not a layout or an end neither a number nor a `Date`,
 * `RangeError` when the layout's time is not its most significant field (its IDs do not sort
 * by time), an end is not an integer ms from the layout's epoch to before its horizon, or
 * `to` is before `from`.
 */
export function snowflakeBounds(layout: Layout, from: Instant, to?: Instant): IdBounds<bigint> {
  const l = timeSortedLayout(layout);
  const [a, b] = instantRange(
    'snowflakeBounds',
    from,
    to,
    l.epochMs,
    l.horizonMs - 1,
    `the time of layout "${l.name}"`,
  );
  const shift = l.timeField.shiftBig;
  const tick = (ms: number) => BigInt(Math.floor((ms - l.epochMs) / l.unitMs));
  return {
    lowest: tick(a) << shift,
    highest: (tick(b) << shift) | ((1n << shift) - 1n),
  };
}
