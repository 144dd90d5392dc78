/**
 * What the segment stores (sqlite/, postgres/, mysql/segment-store.ts) share: the
 * checks of their arguments, done once at the edge before any I/O (misuse is a `TypeError` or
 * `RangeError`, "expected X, got Y"), and the mapping of a stored row to the port's records.
 * Nothing here does I/O.
 */
import { assertInteger, rangeError, typeError } from 'idforge/internal';
import type { CreateTagOptions, Segment, SegmentTag } from 'idforge/sequences';
import { assertTag, MAX_SEQUENCE_VALUE } from 'idforge/sequences';

/** The largest stored step: a signed INT column's maximum. */
export const MAX_STORED_STEP = 2 ** 31 - 1;

/** The longest description, in characters (the column is VARCHAR(256)). */
export const MAX_DESCRIPTION_LENGTH = 256;

/** The default namespace: tables are `idforge_segments` (SQLite, MySQL) or `idforge.segments`. */
export const DEFAULT_SEGMENT_NAMESPACE = 'idforge';

/**
 * A namespace used as a table-name prefix (`<namespace>_segments`): `[a-z_][a-z0-9_]*`, at
 * most 31 characters, so every idforge table name fits MySQL's 64-character identifiers and
 * means the same whatever `lower_case_table_names` says.
 */
export function assertTablePrefix(namespace: string): string {
  if (typeof namespace !== 'string' || !/^[a-z_][a-z0-9_]{0,30}$/.test(namespace)) {
    throw new RangeError(
      `namespace: expected a table-name prefix matching [a-z_][a-z0-9_]* of at most 31 ` +
        `characters, got ${JSON.stringify(namespace)}`,
    );
  }
  return namespace;
}

/** Halves of surrogate pairs (not valid UTF-8). */
const LONE_SURROGATE = /\p{Cs}/u;

/** The checked options of createTag: the stored max_id is `start - 1`. */
export interface CheckedCreate {
  readonly step: number;
  readonly maxId: bigint;
  readonly description: string;
}

/** Checks createTag's arguments; `start` defaults to 1, `description` to ''. */
export function checkCreate(tag: string, options: CreateTagOptions): CheckedCreate {
  assertTag(tag);
  if (typeof options !== 'object' || options === null) {
    throw typeError('options', 'an object with a step', options);
  }
  const step = assertInteger('step', options.step, 1, MAX_STORED_STEP);
  const start = options.start ?? 1n;
  if (typeof start !== 'bigint') throw typeError('start', 'a bigint', start);
  if (start < 1n || start > MAX_SEQUENCE_VALUE)
    throw rangeError('start', 'a bigint in [1, 2^63 - 1]', start);
  const description = options.description ?? '';
  if (typeof description !== 'string') throw typeError('description', 'a string', description);
  if (description.length > MAX_DESCRIPTION_LENGTH || LONE_SURROGATE.test(description)) {
    throw rangeError('description', `at most ${MAX_DESCRIPTION_LENGTH} characters`, description);
  }
  return { step, maxId: start - 1n, description };
}

/**
 * Checks setStep's arguments: the tag, and a step to store, an integer in [1, 2^31 - 1]
 * (`RangeError`/`TypeError` "step: expected ..., got ...", as createTag's).
 */
export function checkStoredStep(tag: string, step: number): number {
  assertTag(tag);
  return assertInteger('step', step, 1, MAX_STORED_STEP);
}

/**
 * The step a take asks for: an integer in [1, 2^53 - 1] or undefined. Undefined asks for 1,
 * which the store raises to the stored step (a take moves max_id by max(requested, stored)).
 */
export function requestedStep(step: number | undefined): number {
  if (step === undefined) return 1;
  return assertInteger('step', step, 1, Number.MAX_SAFE_INTEGER);
}

/** The block a take returns, from the new max_id and the step it used. */
export function segmentOf(tag: string, maxId: bigint, used: bigint): Segment {
  return { tag, first: maxId - used + 1n, last: maxId };
}

/** A stored row as the drivers return it (64-bit columns as bigint or decimal strings). */
export interface SegmentRow {
  readonly tag: string;
  readonly max_id: bigint | string;
  readonly step: number | bigint | string;
  readonly description: string;
  readonly updated_at_ms: bigint | string | number;
}

/** The port's record of a row. */
export function tagOf(row: SegmentRow): SegmentTag {
  return {
    tag: row.tag,
    maxId: BigInt(row.max_id),
    step: Number(row.step),
    description: row.description,
    updatedAtMs: Number(row.updated_at_ms),
  };
}
