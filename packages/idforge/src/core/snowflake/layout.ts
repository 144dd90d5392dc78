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
import { assertBoolean, assertString, typeError } from '../assert.js';
import { InvalidLayoutError } from '../errors.js';

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

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{3}))?)?(Z|([+-])(\d{2}):(\d{2})))?$/;
/** The last instant a JavaScript Date holds. */
const MAX_DATE_MS = 8.64e15;
const DEFAULT_ROLE: Readonly<Record<string, FieldRole>> = { time: 'time', sequence: 'sequence' };
const ROLES: readonly FieldRole[] = ['time', 'sequence', 'node', 'gene'];
const created = /* @__PURE__ */ new WeakSet<object>();

/** Whether `value` is a layout made by {@link defineLayout}. */
export function isLayout(value: unknown): value is Layout {
  return typeof value === 'object' && value !== null && created.has(value);
}

/** `epoch` as unix ms, or undefined when it is not a valid time (e.g. February 30th). */
function parseEpoch(epoch: string): number | undefined {
  const m = ISO.exec(epoch);
  const ms = m === null ? Number.NaN : Date.parse(epoch);
  if (m === null || Number.isNaN(ms)) return undefined;
  // Date.parse rolls invalid days and 24:00 over: the wall time must read back unchanged.
  const sign = m[9] === '-' ? -1 : 1;
  const offset = sign * (Number(m[10] ?? 0) * 60 + Number(m[11] ?? 0)) * 60_000;
  const wall = `${m[1]}-${m[2]}-${m[3]}T${m[4] ?? '00'}:${m[5] ?? '00'}:${m[6] ?? '00'}`;
  return new Date(ms + offset).toISOString().slice(0, 19) === wall ? ms : undefined;
}

function epochOf(name: string, epoch: unknown): number {
  if (typeof epoch === 'string') {
    const ms = parseEpoch(epoch);
    if (ms === undefined || Math.abs(ms) > MAX_DATE_MS) {
      throw new InvalidLayoutError(
        name,
        `epoch "${epoch}" is not a valid time: expected ISO 8601, a date (YYYY-MM-DD, read as ` +
          'UTC) or a date-time with Z or an offset (YYYY-MM-DDTHH:mm[:ss[.sss]]±HH:mm)',
        'epoch',
      );
    }
    return ms;
  }
  if (typeof epoch !== 'number')
    throw typeError('layout epoch', 'unix ms or an ISO 8601 string', epoch);
  if (!Number.isInteger(epoch) || Math.abs(epoch) > MAX_DATE_MS) {
    throw new InvalidLayoutError(
      name,
      `epoch ${epoch} is not a valid time: expected an integer unix ms within the Date range`,
      'epoch',
    );
  }
  return epoch;
}

function checkField(layout: string, f: unknown, i: number, seen: Set<string>): FieldSpec {
  if (typeof f !== 'object' || f === null) throw typeError(`layout fields[${i}]`, 'an object', f);
  const { name, bits, role } = f as FieldSpec;
  assertString(`layout fields[${i}].name`, name);
  if (!NAME.test(name)) {
    throw new InvalidLayoutError(
      layout,
      `field name "${name}" must start with a letter and hold only letters, digits, '_' and '-'`,
      name,
    );
  }
  if (seen.has(name)) throw new InvalidLayoutError(layout, `duplicate field name "${name}"`, name);
  seen.add(name);
  if (typeof bits !== 'number') throw typeError(`layout field "${name}" bits`, 'a number', bits);
  if (!Number.isInteger(bits) || bits < 1 || bits > 53) {
    throw new InvalidLayoutError(
      layout,
      `field "${name}" has ${bits} bits: expected an integer in [1, 53]`,
      name,
    );
  }
  if (role !== undefined && !ROLES.includes(role)) {
    throw new InvalidLayoutError(
      layout,
      `field "${name}" has role ${JSON.stringify(role)}: expected "time", "sequence", "node" ` +
        'or "gene"',
      name,
    );
  }
  return { name, bits, role: role ?? DEFAULT_ROLE[name] ?? 'node' };
}

function roleField(layout: string, fields: readonly LayoutField[], role: FieldRole): LayoutField {
  const found = fields.filter((f) => f.role === role);
  if (found.length !== 1) {
    const second = found[1]?.name;
    throw new InvalidLayoutError(
      layout,
      found.length === 0
        ? `no ${role} field: expected exactly one field with role "${role}"`
        : `two ${role} fields ("${found[0]!.name}" and "${second}"): expected exactly one`,
      second ?? role,
    );
  }
  return found[0]!;
}

/** The gene field: at most one, and the least significant (so the ID's low bits are the gene). */
function geneOf(layout: string, fields: readonly LayoutField[]): LayoutField | undefined {
  const genes = fields.filter((f) => f.role === 'gene');
  if (genes.length > 1) {
    throw new InvalidLayoutError(
      layout,
      `two gene fields ("${genes[0]!.name}" and "${genes[1]!.name}"): expected at most one`,
      genes[1]!.name,
    );
  }
  const gene = genes[0];
  if (gene !== undefined && gene.shift !== 0) {
    throw new InvalidLayoutError(
      layout,
      `the gene field "${gene.name}" is not the least significant field: it must be the last, ` +
        'so that the ID modulo a power of two is the gene modulo it (shardOf(id, n))',
      gene.name,
    );
  }
  return gene;
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
  if (typeof spec !== 'object' || spec === null) throw typeError('layout spec', 'an object', spec);
  const name = assertString('layout name', spec.name);
  if (name.length === 0) throw new InvalidLayoutError(name, 'the name is empty', 'name');
  const epochMs = epochOf(name, spec.epoch);
  const unitMs = spec.unitMs ?? 1;
  if (typeof unitMs !== 'number') throw typeError('layout unitMs', 'a positive integer', unitMs);
  if (!Number.isSafeInteger(unitMs) || unitMs < 1) {
    throw new InvalidLayoutError(name, `unitMs ${unitMs}: expected a positive integer`, 'unitMs');
  }
  const signBit = assertBoolean('layout signBit', spec.signBit ?? true);
  if (!Array.isArray(spec.fields)) throw typeError('layout fields', 'an array', spec.fields);
  const seen = new Set<string>();
  const specs = spec.fields.map((f, i) => checkField(name, f, i, seen));
  const totalBits = specs.reduce((sum, f) => sum + f.bits, 0);
  const room = signBit ? 63 : 64;
  if (totalBits > room) {
    throw new InvalidLayoutError(
      name,
      `the fields take ${totalBits} bits${signBit ? ' plus the sign bit' : ''}: at most ${room} fit` +
        (signBit ? ' (set signBit: false to use all 64)' : ''),
      'bits',
    );
  }
  let shift = totalBits;
  const fields = specs.map((f): LayoutField => {
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
  const timeField = roleField(name, fields, 'time');
  const sequenceField = roleField(name, fields, 'sequence');
  if (sequenceField.shift > timeField.shift) {
    throw new InvalidLayoutError(
      name,
      `the sequence field "${sequenceField.name}" sits above the time field: it must be less ` +
        'significant, or the IDs of one node would not increase with time',
      sequenceField.name,
    );
  }
  const horizonMs = epochMs + 2 ** timeField.bits * unitMs;
  if (horizonMs > MAX_DATE_MS) {
    throw new InvalidLayoutError(
      name,
      `the time field (${timeField.bits} bits of ${unitMs} ms) reaches past the last instant ` +
        'a JavaScript Date holds (+275760-09-13): use fewer time bits or a shorter tick',
      timeField.name,
    );
  }
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
    source: spec.source === undefined ? undefined : assertString('layout source', spec.source),
    description:
      spec.description === undefined
        ? undefined
        : assertString('layout description', spec.description),
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
