/**
 * Argument guards for API misuse. They throw `TypeError` (wrong type) or `RangeError`
 * (right type, wrong value) with the message "<name>: expected X, got Y". Operational
 * failures never come from here; see `errors.ts`.
 */

/** Short, safe rendering of any value for an error message. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return `string "${truncate(value, 40)}"`;
  if (typeof value === 'bigint') return `bigint ${value}n`;
  if (value === null) return 'null';
  if (value instanceof Uint8Array) return `Uint8Array(${value.length})`;
  if (Array.isArray(value)) return `array(${value.length})`;
  if (typeof value === 'object') return 'object';
  return `${typeof value} ${String(value)}`;
}

/**
 * The text itself when at most `max` code points long, else its first `max - 3` code points
 * and "...": cut between code points, never inside a surrogate pair (an emoji's halves are
 * not valid UTF-8, and a message holding one cannot be printed or stored as text).
 */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  return points.length <= max ? text : `${points.slice(0, max - 3).join('')}...`;
}

export function typeError(name: string, expected: string, got: unknown): TypeError {
  return new TypeError(`${name}: expected ${expected}, got ${describe(got)}`);
}

export function rangeError(name: string, expected: string, got: unknown): RangeError {
  return new RangeError(`${name}: expected ${expected}, got ${describe(got)}`);
}

/** An integer number in [min, max]. */
export function assertInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number') throw typeError(name, `an integer in [${min}, ${max}]`, value);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw rangeError(name, `an integer in [${min}, ${max}]`, value);
  }
  return value;
}

/** A finite number >= min. */
export function assertNumber(name: string, value: unknown, min: number): number {
  if (typeof value !== 'number') throw typeError(name, `a number >= ${min}`, value);
  if (!Number.isFinite(value) || value < min) throw rangeError(name, `a number >= ${min}`, value);
  return value;
}

export function assertString(name: string, value: unknown): string {
  if (typeof value !== 'string') throw typeError(name, 'a string', value);
  return value;
}

export function assertBoolean(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw typeError(name, 'a boolean', value);
  return value;
}

/** A Uint8Array of exactly `length` bytes. */
export function assertBytes(name: string, value: unknown, length: number): Uint8Array {
  if (!(value instanceof Uint8Array)) throw typeError(name, `a Uint8Array(${length})`, value);
  if (value.length !== length) throw rangeError(name, `a Uint8Array(${length})`, value);
  return value;
}

/** A buffer with room for `length` bytes at `offset`. */
export function assertOutput(
  name: string,
  buf: unknown,
  offset: unknown,
  length: number,
): Uint8Array {
  if (!(buf instanceof Uint8Array)) throw typeError(name, 'a Uint8Array', buf);
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) {
    throw rangeError(`${name} offset`, 'a non-negative integer', offset);
  }
  if (offset + length > buf.length) {
    throw rangeError(
      `${name} offset`,
      `at most ${buf.length - length} (room for ${length} bytes)`,
      offset,
    );
  }
  return buf;
}

/** One of the given string values. */
export function assertOneOf<T extends string>(
  name: string,
  value: unknown,
  allowed: readonly T[],
): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw (typeof value === 'string' ? rangeError : typeError)(
      name,
      `one of ${allowed.map((a) => `"${a}"`).join(', ')}`,
      value,
    );
  }
  return value as T;
}
