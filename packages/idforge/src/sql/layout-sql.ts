/**
 * The figures of a Snowflake layout that the SQL functions are generated from, each checked
 * for what SQL can hold: BIGINT is signed 64-bit in PostgreSQL and MariaDB, so the counter
 * behind `idforge_snowflake()` (tick and sequence in one number, see script.ts) must fit in
 * 62 bits, and an ID with bit 63 set is refused at run time rather than returned negative.
 */
import { type Layout, PRESET_NAMES } from '../core/index.js';

/** One function: its name, the argument types `DROP FUNCTION` needs, and its definition. */
/** The last millisecond of UUIDv7 and ULID, 2^48 - 1: their time bounds stop there. */
export const UUIDV7_MAX_MS = 281474976710655;

export interface SqlFunction {
  readonly name: string;
  /** PostgreSQL: the argument types, e.g. `timestamptz, timestamptz`; '' for none. */
  readonly args: string;
  readonly sql: string;
}

/** A node field of the layout, with its place in the composite node number. */
export interface SqlNodeField {
  readonly name: string;
  readonly bits: number;
  /** Position of the field's least significant bit in the ID. */
  readonly shift: number;
  /** Position of the field's bits in the composite node number (`--node N`). */
  readonly offset: number;
}

/** Everything the generated SQL of one layout needs, as exact integers. */
export interface LayoutSql {
  readonly layout: Layout;
  readonly epochMs: number;
  readonly unitMs: number;
  readonly timeShift: number;
  readonly timeMask: bigint;
  readonly seqBits: number;
  readonly seqShift: number;
  readonly seqMask: bigint;
  readonly nodeFields: readonly SqlNodeField[];
  /** Bits of the gene field (random per ID in SQL), 0 when the layout has none. */
  readonly geneBits: number;
  /** Whether the time is the most significant field, so IDs sort by time (bounds exist). */
  readonly sortable: boolean;
  /** Last unix ms the time field holds. */
  readonly lastMs: number;
  /** Largest composite node number, maxNodes - 1. */
  readonly maxNode: number;
}

/** The counter (tick × 2^seqBits + sequence) must stay a positive signed 64-bit number. */
const MAX_COUNTER_BITS = 62;

/** A layout's SQL figures; throws `RangeError` when its time and sequence need > 62 bits. */
export function layoutSql(layout: Layout): LayoutSql {
  const t = layout.timeField;
  const s = layout.sequenceField;
  if (t.bits + s.bits > MAX_COUNTER_BITS) {
    throw new RangeError(
      `layout: expected time and sequence fields of at most ${MAX_COUNTER_BITS} bits together ` +
        `(the SQL counter is a signed BIGINT), got ${t.bits} + ${s.bits} in "${layout.name}"`,
    );
  }
  let offset = 0;
  const nodeFields: SqlNodeField[] = [];
  for (const f of [...layout.nodeFields].reverse()) {
    nodeFields.unshift({ name: f.name, bits: f.bits, shift: f.shift, offset });
    offset += f.bits;
  }
  return {
    layout,
    epochMs: layout.epochMs,
    unitMs: layout.unitMs,
    timeShift: t.shift,
    timeMask: t.maskBig,
    seqBits: s.bits,
    seqShift: s.shift,
    seqMask: s.maskBig,
    nodeFields,
    geneBits: layout.geneField?.bits ?? 0,
    sortable: layout.fields[0] === t,
    lastMs: layout.horizonMs - 1,
    maxNode: layout.maxNodes - 1,
  };
}

/**
 * A key that changes whenever the bits of the layout do (name, epoch, tick, fields): the
 * counter behind `idforge_snowflake()` is reset only when it changes.
 */
export function layoutKey(layout: Layout): string {
  const fields = layout.fields.map((f) => `${f.name}:${f.role}:${f.bits}`).join(',');
  const preset = PRESET_NAMES.includes(layout.name) ? '' : ' custom';
  return `${layout.name}${preset} epoch=${layout.epochMs} unit=${layout.unitMs} fields=${fields}`;
}

/**
 * The SQL expression of the node bits from the composite node number held in `n`: each node
 * field's share of `n`, shifted into place; `0` for a layout without node fields.
 */
export function nodeBitsSql(l: LayoutSql, n: string): string {
  if (l.nodeFields.length === 0) return '0';
  return l.nodeFields
    .map((f) => `(((${n} >> ${f.offset}) & ${2 ** f.bits - 1}) << ${f.shift})`)
    .join(' | ');
}

/**
 * The node fields of composite node `node` by name (what `inspect` shows), after checking it
 * is an integer in [0, maxNodes - 1]: `RangeError` otherwise.
 */
export function nodeFieldsOf(l: LayoutSql, node: number): Record<string, number> {
  if (!Number.isSafeInteger(node) || node < 0 || node > l.maxNode) {
    throw new RangeError(
      `node: expected an integer from 0 to ${l.maxNode} for layout "${l.layout.name}", got ${node}`,
    );
  }
  const out: Record<string, number> = {};
  for (const f of l.nodeFields) out[f.name] = Math.floor(node / 2 ** f.offset) % 2 ** f.bits;
  return out;
}

/** Single-quoted SQL string literal. */
export function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}
