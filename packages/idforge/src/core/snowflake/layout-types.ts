/**
 * The types of a Snowflake layout (layout.ts builds one, layout-checks.ts validates its spec):
 * apart so that both read them without importing each other.
 */

/**
 * What a field holds: the time tick, the per-tick sequence, a fixed node identity, or a shard
 * gene: a per-ID value (docs/layouts.md, "Shard genes") that must be the least significant
 * field, so that `id mod n` is the gene mod n for every power of two n up to 2^bits.
 */
export type FieldRole = 'time' | 'sequence' | 'node' | 'gene';

/** One field of a {@link LayoutSpec}. */
export interface FieldSpec {
  /** Identifier-like name, unique in the layout: letters, digits, '_' and '-', letter first. */
  readonly name: string;
  /** Width in bits, an integer in [1, 53] (values are exact JavaScript numbers). */
  readonly bits: number;
  /**
   * Default by name: 'time' → time, 'sequence' → sequence, any other name → node. A gene is
   * never implied by a name: give `role: 'gene'`.
   */
  readonly role?: FieldRole;
}

/** The definition of a layout, validated by {@link defineLayout}. */
export interface LayoutSpec {
  readonly name: string;
  /** Unix ms (integer), or ISO 8601: a date (read as UTC) or a date-time with Z or an offset. */
  readonly epoch: number | string;
  /** Length of one time tick in ms, a positive integer. Default 1. */
  readonly unitMs?: number;
  /** Reserve the top bit of 64 as 0 so IDs stay positive as signed int64. Default true. */
  readonly signBit?: boolean;
  /** The fields, most significant first. */
  readonly fields: readonly FieldSpec[];
  /** Where the layout comes from (repository/file, post). */
  readonly source?: string;
  readonly description?: string;
}

/** A field of a {@link Layout}, with its position precomputed. */
export interface LayoutField {
  readonly name: string;
  readonly role: FieldRole;
  readonly bits: number;
  /** Position of the field's least significant bit. */
  readonly shift: number;
  readonly shiftBig: bigint;
  /** Largest value, 2^bits - 1 (not shifted), as a number and as a bigint. */
  readonly mask: number;
  readonly maskBig: bigint;
}

/** A validated, frozen layout. Safe to share; every figure is precomputed. */
export interface Layout {
  readonly name: string;
  /** The epoch in unix ms: tick 0 starts here. */
  readonly epochMs: number;
  /** Length of one tick in ms. */
  readonly unitMs: number;
  /** Whether the top bit of 64 is reserved as 0. */
  readonly signBit: boolean;
  /** Sum of the field widths: every ID is below 2^totalBits. */
  readonly totalBits: number;
  /** Largest ID the layout can hold, 2^totalBits - 1. */
  readonly maxId: bigint;
  /** The fields, most significant first. */
  readonly fields: readonly LayoutField[];
  readonly timeField: LayoutField;
  readonly sequenceField: LayoutField;
  /** Fields fixed per generator (role 'node'), most significant first. */
  readonly nodeFields: readonly LayoutField[];
  /** The shard gene (role 'gene'), always the least significant field; undefined if none. */
  readonly geneField: LayoutField | undefined;
  readonly maxSequence: number;
  readonly maxTick: number;
  /** First unix ms the time field cannot hold: epochMs + 2^timeBits × unitMs. */
  readonly horizonMs: number;
  /**
   * For a layout using all 64 bits with the time field on top: the unix ms from which IDs read
   * as signed int64 (Java long, SQL BIGINT) are negative. Undefined otherwise.
   */
  readonly negativeMs: number | undefined;
  /** 2^sequenceBits × 1000 / unitMs. */
  readonly maxIdsPerSecondPerNode: number;
  /** Product of 2^bits over the node fields (1 when there is none). */
  readonly maxNodes: number;
  readonly source: string | undefined;
  readonly description: string | undefined;
}
