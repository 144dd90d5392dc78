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
import type { FieldSpec, Layout, LayoutField, LayoutSpec } from './layout-types.js';

export type { FieldRole, FieldSpec, Layout, LayoutField, LayoutSpec } from './layout-types.js';

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
