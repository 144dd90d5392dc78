/**
 * Snowflake layouts as data: a layout names its fields from the most significant bit down,
 * says which one holds the time and which the sequence, and fixes the epoch and the length of
 * one time tick. {@link defineLayout} validates a spec once and precomputes every shift, mask,
 * limit and derived figure, so codecs and generators never re-check or recompute them
 * (docs/architecture.md; after sony/sonyflake v2's New/Compose/Decompose; no package globals).
 *
 * A layout is a wire format: once IDs exist, changing its epoch or widths changes the meaning
 * of every stored value. Define a new named layout instead.
 */
import { checkSpec, clockFields, geneOf, provenanceOf } from './layout-checks.js';

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

const created = /* @__PURE__ */ new WeakSet<object>();

/** Whether `value` is a layout made by {@link defineLayout}. */
export function isLayout(value: unknown): value is Layout {
  return typeof value === 'object' && value !== null && created.has(value);
}

/** The fields in place, most significant first: each one's shift and mask, frozen. */
function placeFields(specs: readonly FieldSpec[], totalBits: number): LayoutField[] {
  let shift = totalBits;
  return specs.map((f): LayoutField => {
    shift -= f.bits;
    const mask = 2 ** f.bits - 1;
    return Object.freeze({
      name: f.name,
      role: f.role ?? 'node',
      bits: f.bits,
      shift,
      shiftBig: BigInt(shift),
      mask,
      maskBig: BigInt(mask),
    });
  });
}

/**
 * Validates `spec` and returns a frozen {@link Layout} with every figure precomputed.
 *
 * Throws {@link InvalidLayoutError} (with `field` naming the culprit: a field name, 'epoch',
 * 'unitMs' or 'bits') when: the fields plus the reserved sign bit exceed 64 bits; a width is
 * not an integer in [1, 53]; a name is empty, malformed or repeated; there is not exactly one
 * time and one sequence field, or the sequence sits above the time; there are two gene fields
 * or the gene is not the least significant field; the epoch is not a valid
 * time; unitMs is not a positive integer; or the horizon lies beyond the last instant a Date
 * holds. Throws `TypeError` when the spec or a part of it has the wrong type. Pure.
 */
export function defineLayout(spec: LayoutSpec): Layout {
  const { name, epochMs, unitMs, signBit, totalBits, fields: specs } = checkSpec(spec);
  const fields = placeFields(specs, totalBits);
  const { timeField, sequenceField, horizonMs } = clockFields(name, fields, epochMs, unitMs);
  const nodeFields = Object.freeze(fields.filter((f) => f.role === 'node'));
  const geneField = geneOf(name, fields);
  const layout: Layout = Object.freeze({
    name,
    epochMs,
    unitMs,
    signBit,
    totalBits,
    maxId: (1n << BigInt(totalBits)) - 1n,
    fields: Object.freeze(fields),
    timeField,
    sequenceField,
    nodeFields,
    geneField,
    maxSequence: sequenceField.mask,
    maxTick: timeField.mask,
    horizonMs,
    negativeMs:
      totalBits === 64 && fields[0] === timeField
        ? epochMs + 2 ** (timeField.bits - 1) * unitMs
        : undefined,
    maxIdsPerSecondPerNode: (2 ** sequenceField.bits * 1000) / unitMs,
    maxNodes: nodeFields.reduce((n, f) => n * 2 ** f.bits, 1),
    ...provenanceOf(spec),
  });
  created.add(layout);
  return layout;
}

/**
 * Years (of 365.25 days) from `nowMs` until the layout's horizon; negative once it has passed.
 */
export function layoutYearsLeft(layout: Layout, nowMs: number): number {
  return (layout.horizonMs - nowMs) / (365.25 * 86_400_000);
}

function pad(text: string, width: number, align: 'left' | 'center'): string {
  const gap = width - text.length;
  if (align === 'left') return text + ' '.repeat(gap);
  const left = Math.floor(gap / 2);
  return ' '.repeat(left) + text + ' '.repeat(gap - left);
}

/**
 * An ASCII bit diagram of the layout: bit numbers (63 = most significant), one box per field
 * with its name and width, the zero top bits (the sign bit) first. Pure.
 */
export function describeLayout(layout: Layout): string {
  const cells: { label: string; hi: number; lo: number }[] = [];
  const zero = 64 - layout.totalBits;
  if (zero > 0) cells.push({ label: zero === 1 ? '0' : `0 (${zero})`, hi: 63, lo: 64 - zero });
  for (const f of layout.fields) {
    cells.push({ label: `${f.name} ${f.bits}`, hi: f.shift + f.bits - 1, lo: f.shift });
  }
  let ruler = '';
  let border = '+';
  let body = '|';
  for (const c of cells) {
    const nums = c.hi === c.lo ? `${c.hi}` : `${c.hi} ${c.lo}`;
    const width = Math.max(c.label.length + 2, nums.length + 1, Math.ceil((c.hi - c.lo + 1) / 2));
    ruler += ` ${c.hi === c.lo ? pad(nums, width, 'center') : `${pad(`${c.hi}`, width - `${c.lo}`.length, 'left')}${c.lo}`}`;
    border += `${'-'.repeat(width)}+`;
    body += `${pad(c.label, width, 'center')}|`;
  }
  const head = `${layout.name}: epoch ${new Date(layout.epochMs).toISOString()}, tick ${layout.unitMs} ms`;
  return [head, ruler.trimEnd(), border, body, border].join('\n');
}
