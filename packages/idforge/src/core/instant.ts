/**
 * The instants that time bounds (bounds.ts) and backdated IDs (minted-at.ts) take: a unix
 * millisecond count or a `Date`, checked once at the edge.
 */
import { typeError } from './assert.js';

/** A point in time: unix milliseconds (an integer) or a `Date`. */
export type Instant = number | Date;

/**
 * `value` as integer unix ms in [min, max]. Throws `TypeError` when it is neither a number
 * nor a `Date`, `RangeError` when it is not an integer (an invalid `Date` is NaN) or out of
 * [min, max], naming `what` (the scheme and its range) in the message.
 */
export function instantMs(name: string, value: unknown, min: number, max: number, what: string) {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number') throw typeError(name, 'unix ms (a number) or a Date', value);
  if (Number.isInteger(ms) && ms >= min && ms <= max) return ms;
  const shown =
    value instanceof Date
      ? Number.isNaN(ms)
        ? 'an invalid Date'
        : value.toISOString()
      : String(ms);
  throw new RangeError(
    `${name}: expected an integer of unix ms from ${min} to ${max} (${what}), got ${shown}`,
  );
}

/**
 * `[from, to]` checked as by {@link instantMs}, and `from <= to`: the range a bounds function
 * covers, both ends inclusive. `to` defaults to `from` (the bounds of one instant).
 */
export function instantRange(
  fn: string,
  from: unknown,
  to: unknown,
  min: number,
  max: number,
  what: string,
): [number, number] {
  const a = instantMs(`${fn} from`, from, min, max, what);
  const b = to === undefined ? a : instantMs(`${fn} to`, to, min, max, what);
  if (b < a) {
    throw new RangeError(`${fn}: expected from <= to, got from ${a} after to ${b}`);
  }
  return [a, b];
}
