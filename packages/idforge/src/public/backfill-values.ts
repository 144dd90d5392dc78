/**
 * Where the values of a backfill come from: injected into `runBackfill` (backfill.ts), so the
 * orchestration knows nothing of schemes. Each source says the column type its values need
 * (which may depend on the key: a public ID of a 64-bit key is shorter than one of a 128-bit
 * key) and makes one value per row.
 */
import { UuidV7Generator, uuidv4Bytes } from '../core/index.js';
import type { BackfillColumnSpec, BackfillKey, BackfillValue } from './backfill-ports.js';

/** What kind of key the table has, as the backfill found it. */
export type BackfillKeyKind = 'integer' | 'bytes16';

/** The values of one backfill. Holds the state of its generator; use one per backfill. */
export interface BackfillValues {
  /** For reports: "uuidv7", "uuidv4", "public". */
  readonly scheme: string;
  /** The column type the values need for a table whose key is of `keyKind`. */
  column(keyKind: BackfillKeyKind): BackfillColumnSpec;
  /** A value for the row of `key`. */
  value(key: BackfillKey): BackfillValue;
}

const BYTES16: BackfillColumnSpec = { kind: 'bytes16' };

/**
 * Random-and-time UUIDv7 values, 16 bytes each, strictly increasing within the run (the
 * generator of the core). The time part is the time of the backfill, not of the row's
 * creation: a UUIDv7 public ID of an old row says when the backfill ran.
 */
export function uuidv7Values(generator: UuidV7Generator = new UuidV7Generator()): BackfillValues {
  return { scheme: 'uuidv7', column: () => BYTES16, value: () => generator.nextBytes() };
}

/** Random UUIDv4 values (122 random bits), 16 bytes each: they say nothing about the row. */
export function uuidv4Values(): BackfillValues {
  return { scheme: 'uuidv4', column: () => BYTES16, value: () => uuidv4Bytes() };
}

/**
 * The opaque public ID of each row's own key (idforge/public's `PublicIds.encode`, passed in
 * with its keys and prefix bound): deterministic, so the column repeats what the application
 * can compute. Its length is measured on a zero key of the table's kind (a public ID has a
 * fixed length per input size); the column is text of that length. Throws `TypeError` when
 * `encode` is not a function.
 */
export function publicIdValues(encode: (id: BackfillKey) => string): BackfillValues {
  if (typeof encode !== 'function') {
    throw new TypeError(`encode: expected a function, got ${typeof encode}`);
  }
  return {
    scheme: 'public',
    column: (keyKind) => ({
      kind: 'text',
      length: encode(keyKind === 'integer' ? 0n : new Uint8Array(16)).length,
    }),
    value: (key) => encode(key),
  };
}
