/** `idforge seq`'s formatted tags: the --format flags, and how a stored format prints. */
import { UsageError } from 'idforge/cli';
import {
  defineNumberFormat,
  formatOfDescription,
  MAX_TAG_LENGTH,
  type NumberFormat,
  type ResetPeriod,
  type SegmentTag,
} from 'idforge/sequences';

/** The flags formatArg reads. */
export interface FormatFlags {
  readonly format?: string | undefined;
  readonly reset?: string | undefined;
  readonly 'time-zone'?: string | undefined;
  readonly prefix?: string | undefined;
}

/** `--format` and its options, validated (a RangeError names what is wrong). */
export function formatArg(
  sub: string,
  tag: string | undefined,
  values: FormatFlags,
): NumberFormat | undefined {
  const { format, reset, prefix } = values;
  const timeZone = values['time-zone'];
  if (format === undefined) {
    if ((reset ?? timeZone ?? prefix) !== undefined) {
      throw new UsageError('--reset, --time-zone and --prefix apply with --format only');
    }
    return undefined;
  }
  if (sub !== 'create') throw new UsageError('--format applies to seq create only');
  const f = defineNumberFormat(format, {
    ...(reset === undefined ? {} : { reset: reset as ResetPeriod }),
    ...(timeZone === undefined ? {} : { timeZone }),
    ...(prefix === undefined ? {} : { prefix }),
  });
  // Its periods are TAG:YYYY-MM-DD at most: 11 characters more than the tag.
  if (f.reset !== 'never' && tag !== undefined && tag.length > MAX_TAG_LENGTH - 11) {
    throw new UsageError(
      `seq create: a tag that resets has at most ${MAX_TAG_LENGTH - 11} characters (its periods are TAG:PERIOD), got ${tag.length}`,
    );
  }
  return f;
}

export function formatNote(format: NumberFormat | undefined): string {
  if (format === undefined) return '';
  const zone = format.reset === 'never' ? '' : ` in ${format.timeZone}`;
  return `, formatted ${format.pattern} (reset ${format.reset}${zone})`;
}

/** A tag's description as `seq show` prints it: a formatted tag's format, readable. */
export function shownDescription(t: SegmentTag): string {
  const format = formatOfDescription(t.description);
  if (format === null) return t.description;
  const inner = (
    JSON.parse(t.description.slice(t.description.indexOf('{'))) as { description?: string }
  ).description;
  return `${formatNote(format).slice(2)}${inner === undefined ? '' : `; ${inner}`}`;
}
