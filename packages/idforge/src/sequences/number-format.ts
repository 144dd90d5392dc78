/**
 * Business numbers: how a sequence's number prints (`INV-2026-12-000042`) and when it starts
 * again at 1 (never, daily, monthly, yearly, in a named time zone). A validated value, pure and
 * browser-safe (time zones through `Intl.DateTimeFormat`), shared by the formatted segment
 * sequence, the gap-free sequence, the CLI and the service.
 *
 * Pattern tokens: `{yyyy}` `{mm}` `{dd}` (the period's calendar date in the time zone, at the
 * instant the number is taken), `{prefix}` (the `prefix` option), `{n}` the number, `{n:6}`
 * padded with zeros to 6 digits, `{n36}` / `{n36:6}` in base 36 (0-9A-Z). Any other text is
 * printed as it is; a brace outside a token is refused.
 *
 * The period a number belongs to is decided by the clock of the process that takes it, at the
 * moment it takes it: each period is its own range (a segment tag `TAG:PERIOD`, or a row of the
 * gap-free table), so two nodes whose clocks disagree around midnight each number in the period
 * their clock says, from that period's range, and no formatted number repeats: the text holds
 * the period (a resetting pattern without its period's date parts is refused). Near a boundary,
 * a node running behind may still hand out `…-2026-12-000913` after another handed out
 * `…-2027-01-000001`: order across periods is the clocks' order, not a global one.
 */
import { rangeError, typeError } from '../core/internal.js';

/** When the number starts again at 1. */
export type ResetPeriod = 'never' | 'daily' | 'monthly' | 'yearly';

const RESETS: readonly ResetPeriod[] = ['never', 'daily', 'monthly', 'yearly'];

/** Options of {@link defineNumberFormat}. */
export interface NumberFormatOptions {
  /** When the number restarts at 1. Default `'never'`. */
  readonly reset?: ResetPeriod;
  /** The IANA time zone of the date parts and of the period boundary. Default `'UTC'`. */
  readonly timeZone?: string;
  /** The text of `{prefix}` (required when the pattern holds it, refused otherwise). */
  readonly prefix?: string;
}

/** The calendar period an instant falls in, in the format's time zone. */
export interface NumberPeriod {
  /** `''` (never), `'2026'`, `'2026-12'` or `'2026-12-31'`: part of the period's tag. */
  readonly key: string;
  readonly yyyy: string;
  readonly mm: string;
  readonly dd: string;
}

/** A number taken from a formatted sequence. */
export interface FormattedNumber {
  /** The number within its period (1, 2, ...). */
  readonly value: bigint;
  /** The period's key ({@link NumberPeriod.key}). */
  readonly period: string;
  /** The number as the pattern prints it. */
  readonly text: string;
}

type Part =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'yyyy' | 'mm' | 'dd' }
  | { readonly kind: 'n'; readonly width: number; readonly radix: 10 | 36 };

/** The longest pattern accepted (it is stored with the tag). */
export const MAX_PATTERN_LENGTH = 100;

/** A validated pattern and reset period: pure, immutable, safe to share. */
export interface NumberFormat {
  readonly pattern: string;
  readonly reset: ResetPeriod;
  readonly timeZone: string;
  readonly prefix: string | undefined;
  /** The period `ms` (unix milliseconds) falls in. */
  periodAt(ms: number): NumberPeriod;
  /** `value` printed in `period`. */
  format(value: bigint, period: NumberPeriod): string;
  /** The tag of the period's own range: `tag` itself when the format never resets. */
  periodTag(tag: string, period: NumberPeriod): string;
}

const TOKEN = /\{([^{}]*)\}/g;
const NUMBER_TOKEN = /^n(36)?(?::(\d{1,2}))?$/;

/** The parts of `pattern`, or a RangeError naming what is wrong. */
function parsePattern(pattern: string, prefix: string | undefined): Part[] {
  const parts: Part[] = [];
  let at = 0;
  for (const m of pattern.matchAll(TOKEN)) {
    if (m.index > at) parts.push(literal(pattern.slice(at, m.index)));
    parts.push(tokenPart(m[1]!, prefix));
    at = m.index + m[0].length;
  }
  if (at < pattern.length) parts.push(literal(pattern.slice(at)));
  if (parts.filter((p) => p.kind === 'n').length !== 1) {
    throw rangeError('pattern', 'exactly one number token ({n}, {n:6}, {n36:6})', pattern);
  }
  if (prefix !== undefined && !pattern.includes('{prefix}')) {
    throw rangeError('prefix', 'a pattern holding {prefix} when a prefix is given', pattern);
  }
  return parts;
}

function literal(text: string): Part {
  if (/[{}]/.test(text)) {
    throw rangeError(
      'pattern',
      'braces only around a token ({yyyy}, {mm}, {dd}, {prefix}, {n:6})',
      text,
    );
  }
  return { kind: 'text', text };
}

function tokenPart(token: string, prefix: string | undefined): Part {
  if (token === 'yyyy' || token === 'mm' || token === 'dd') return { kind: token };
  if (token === 'prefix') {
    if (prefix === undefined) throw rangeError('prefix', 'a prefix for {prefix}', prefix);
    return { kind: 'text', text: prefix };
  }
  const m = NUMBER_TOKEN.exec(token);
  const width = m?.[2] === undefined ? 1 : Number(m[2]);
  if (m === null || width < 1 || width > 19) {
    throw rangeError(
      'pattern token',
      'yyyy, mm, dd, prefix, n, n:W or n36:W (W in 1..19)',
      `{${token}}`,
    );
  }
  return { kind: 'n', width, radix: m[1] === undefined ? 10 : 36 };
}

/** The date parts a pattern must print for its reset, so that two periods never print alike. */
const NEEDED: Record<ResetPeriod, readonly ('yyyy' | 'mm' | 'dd')[]> = {
  never: [],
  yearly: ['yyyy'],
  monthly: ['yyyy', 'mm'],
  daily: ['yyyy', 'mm', 'dd'],
};

function checkResetParts(pattern: string, parts: Part[], reset: ResetPeriod): void {
  const missing = NEEDED[reset].filter((k) => !parts.some((p) => p.kind === k));
  if (missing.length > 0) {
    throw rangeError(
      'pattern',
      `${missing.map((k) => `{${k}}`).join(', ')} in a pattern that resets ${reset} ` +
        '(without them two periods print the same numbers: duplicates)',
      pattern,
    );
  }
}

/** A formatter of calendar dates in `timeZone`; RangeError for an unknown zone. */
function dateFormatter(timeZone: string): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
  } catch {
    throw rangeError('timeZone', 'an IANA time zone (Europe/Istanbul, UTC)', timeZone);
  }
}

/**
 * A validated business-number format. Throws `TypeError` for a non-string pattern or option,
 * `RangeError` for a malformed pattern, an unknown reset or time zone, a `{prefix}` without a
 * prefix (or the reverse), or a resetting pattern that lacks its period's date parts
 * (`monthly` needs `{yyyy}` and `{mm}`, `daily` also `{dd}`, `yearly` `{yyyy}`).
 */
export function defineNumberFormat(
  pattern: string,
  options: NumberFormatOptions = {},
): NumberFormat {
  if (typeof pattern !== 'string') throw typeError('pattern', 'a string', pattern);
  if (pattern.length === 0 || pattern.length > MAX_PATTERN_LENGTH || /[\p{Cc}]/u.test(pattern)) {
    throw rangeError('pattern', `1 to ${MAX_PATTERN_LENGTH} printable characters`, pattern);
  }
  const { reset = 'never', timeZone = 'UTC', prefix } = options;
  if (!RESETS.includes(reset)) throw rangeError('reset', RESETS.join(', '), reset);
  if (typeof timeZone !== 'string') throw typeError('timeZone', 'a string', timeZone);
  if (prefix !== undefined && (typeof prefix !== 'string' || /[{}\p{Cc}]/u.test(prefix))) {
    throw rangeError('prefix', 'printable text without braces', prefix);
  }
  const parts = parsePattern(pattern, prefix);
  checkResetParts(pattern, parts, reset);
  const dates = dateFormatter(timeZone);
  return Object.freeze({
    pattern,
    reset,
    timeZone: dates.resolvedOptions().timeZone,
    prefix,
    periodAt: (ms: number) => periodOf(dates, reset, ms),
    format: (value: bigint, period: NumberPeriod) => render(parts, value, period),
    periodTag: (tag: string, period: NumberPeriod) =>
      period.key === '' ? tag : `${tag}:${period.key}`,
  });
}

function periodOf(dates: Intl.DateTimeFormat, reset: ResetPeriod, ms: number): NumberPeriod {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) throw rangeError('time', 'unix ms', ms);
  let yyyy = '';
  let mm = '';
  let dd = '';
  for (const p of dates.formatToParts(ms)) {
    if (p.type === 'year') yyyy = p.value.padStart(4, '0');
    else if (p.type === 'month') mm = p.value;
    else if (p.type === 'day') dd = p.value;
  }
  const key =
    reset === 'never'
      ? ''
      : reset === 'yearly'
        ? yyyy
        : reset === 'monthly'
          ? `${yyyy}-${mm}`
          : `${yyyy}-${mm}-${dd}`;
  return { key, yyyy, mm, dd };
}

function render(parts: readonly Part[], value: bigint, period: NumberPeriod): string {
  let out = '';
  for (const p of parts) {
    if (p.kind === 'text') out += p.text;
    else if (p.kind === 'n') {
      const digits = p.radix === 10 ? value.toString() : value.toString(36).toUpperCase();
      out += digits.padStart(p.width, '0');
    } else out += period[p.kind];
  }
  return out;
}

/** How a segment tag's description marks the tag as formatted (see {@link describeFormat}). */
const STORED = 'idforge-format:';

/**
 * The description a segment tag is stored with to be formatted: every node, the CLI and the
 * service read the format from the tag itself. `description` (free text) is kept inside.
 * Throws `RangeError` when the record passes the column's 256 characters.
 */
export function describeFormat(format: NumberFormat, description = ''): string {
  const record = {
    pattern: format.pattern,
    reset: format.reset,
    timeZone: format.timeZone,
    ...(format.prefix === undefined ? {} : { prefix: format.prefix }),
    ...(description === '' ? {} : { description }),
  };
  const text = STORED + JSON.stringify(record);
  if (text.length > 256)
    throw rangeError('format and description', 'at most 256 characters stored', text);
  return text;
}

/**
 * The format a tag's description holds ({@link describeFormat}), or null for a plain tag.
 * A description that starts like one but does not parse is `RangeError`.
 */
export function formatOfDescription(description: string): NumberFormat | null {
  if (!description.startsWith(STORED)) return null;
  let record: { pattern?: unknown; reset?: unknown; timeZone?: unknown; prefix?: unknown };
  try {
    record = JSON.parse(description.slice(STORED.length));
  } catch {
    throw rangeError('stored format', 'a JSON record', description);
  }
  return defineNumberFormat(record.pattern as string, {
    reset: record.reset as ResetPeriod,
    timeZone: record.timeZone as string,
    ...(record.prefix === undefined ? {} : { prefix: record.prefix as string }),
  });
}
