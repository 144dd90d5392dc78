/**
 * Compose and decompose Snowflake IDs of any {@link Layout}. `compose` and `decompose` are
 * exact inverses: `compose(l, decompose(l, id)) === id` for every ID of the layout, and
 * `decompose(l, compose(l, p))` gives back the tick and fields of `p`. All functions are pure
 * and stateless.
 */
import { assertInteger, rangeError, typeError } from '../assert.js';
import { InvalidIdError } from '../errors.js';
import { UINT64_MAX } from '../limits.js';
import { isLayout, type Layout, type LayoutField } from './layout.js';
import { LAYOUTS } from './presets.js';

/** What {@link compose} takes: the time as a tick or unix ms, and every other field by name. */
export interface SnowflakeParts {
  /** The time field's raw value. Give exactly one of `tick` and `unixMs`. */
  readonly tick?: number;
  /** Unix ms; the tick is floor((unixMs - epochMs) / unitMs). */
  readonly unixMs?: number;
  /** Every field except time (the sequence included), by name. */
  readonly fields: Readonly<Record<string, number>>;
}

/** What {@link decompose} returns. */
export interface DecomposedSnowflake {
  readonly id: bigint;
  /** The time field's raw value. */
  readonly tick: number;
  /** Start of the tick in unix ms: epochMs + tick × unitMs. */
  readonly unixMs: number;
  /** Every field except time, by name, most significant first. */
  readonly fields: Record<string, number>;
}

function checkLayout(name: string, layout: unknown): Layout {
  if (!isLayout(layout))
    throw typeError(name, 'a Layout from defineLayout() or getLayout()', layout);
  return layout;
}

function tickOf(layout: Layout, parts: SnowflakeParts): number {
  const { tick, unixMs } = parts;
  if ((tick === undefined) === (unixMs === undefined)) {
    throw typeError('compose parts', 'exactly one of tick and unixMs', parts);
  }
  if (tick !== undefined) return assertInteger('compose tick', tick, 0, layout.maxTick);
  const last = layout.horizonMs - 1;
  const ms = assertInteger('compose unixMs', unixMs, layout.epochMs, last);
  return Math.floor((ms - layout.epochMs) / layout.unitMs);
}

/**
 * The ID of `layout` holding `parts`. Throws `RangeError` when a value is out of its field's
 * range or a field name is not a non-time field of the layout, `TypeError` when a field is
 * missing or not a number, or when not exactly one of `tick` and `unixMs` is given. Values
 * are never masked.
 */
export function compose(layout: Layout, parts: SnowflakeParts): bigint {
  checkLayout('compose layout', layout);
  if (typeof parts !== 'object' || parts === null)
    throw typeError('compose parts', 'an object', parts);
  const tick = tickOf(layout, parts);
  const fields = parts.fields;
  if (typeof fields !== 'object' || fields === null) {
    throw typeError('compose fields', 'an object of field values', fields);
  }
  for (const key of Object.keys(fields)) {
    const f = layout.fields.find((x) => x.name === key);
    if (f === undefined || f.role === 'time') {
      throw rangeError(
        'compose fields',
        `only the non-time fields of layout "${layout.name}" (${names(layout)})`,
        key,
      );
    }
  }
  let id = BigInt(tick) << layout.timeField.shiftBig;
  for (const f of layout.fields) {
    if (f.role === 'time') continue;
    const v = assertInteger(`compose field "${f.name}"`, fields[f.name], 0, f.mask);
    id |= BigInt(v) << f.shiftBig;
  }
  return id;
}

function names(layout: Layout): string {
  return layout.fields
    .filter((f) => f.role !== 'time')
    .map((f) => f.name)
    .join(', ');
}

/**
 * `id` as a bigint of `layout` (checked by the caller), parsing text; InvalidIdError when out
 * of the layout's range.
 */
function idOf(layout: Layout, id: bigint | string): bigint {
  if (typeof id === 'string') return parseSnowflakeText(id, layout);
  if (typeof id !== 'bigint') throw typeError('snowflake id', 'a bigint or a decimal string', id);
  if (id < 0n || id > layout.maxId) {
    throw new InvalidIdError(
      'snowflake',
      'range',
      `${id} is outside [0, 2^${layout.totalBits}-1] of layout "${layout.name}"`,
      id.toString(),
    );
  }
  return id;
}

function fieldValue(id: bigint, f: LayoutField): number {
  return Number((id >> f.shiftBig) & f.maskBig);
}

/** `POW2[n]` is 2^n and `LOW[n]` is 2^n - 1 (n low one bits), for n in [0, 32]. */
const POW2 = /* @__PURE__ */ Float64Array.from({ length: 33 }, (_, n) => 2 ** n);
const LOW = /* @__PURE__ */ Float64Array.from({ length: 33 }, (_, n) => 2 ** n - 1);
const WORD_MASK = 0xffffffffn;

/**
 * The value of field `f` of the 64-bit ID whose high and low 32-bit words are `hi` and `lo`:
 * floor(id / 2^shift) mod 2^bits, with 32-bit operations (a field wider than the bits left
 * in `lo` takes its top from `hi`, times a power of two: below 2^53, exact).
 *
 * REF: bench/peers/decoders.ts (decompose: two bigint operations per ID, then numbers,
 * against a shift and a mask, two new bigints, per field).
 */
function wordField(hi: number, lo: number, f: LayoutField): number {
  const s = f.shift;
  const bits = f.bits;
  if (s >= 32) {
    const v = hi >>> (s - 32);
    return bits >= 32 ? v : v & LOW[bits]!;
  }
  const low = lo >>> s; // the 32 - s bits of lo from the shift up
  const fromHi = bits - (32 - s); // how many of the field's bits are in hi
  if (fromHi <= 0) return bits >= 32 ? low : low & LOW[bits]!;
  return (fromHi >= 32 ? hi : (hi & LOW[fromHi]!) >>> 0) * POW2[32 - s]! + low;
}

/**
 * The tick, time and fields of `id` in `layout`. A string is parsed as by
 * {@link parseSnowflake}. Throws {@link InvalidIdError} ('alphabet', 'format', 'length' or
 * 'range') when the ID is not one of the layout, `TypeError` for other types.
 */
export function decompose(layout: Layout, id: bigint | string): DecomposedSnowflake {
  checkLayout('decompose layout', layout);
  const value = idOf(layout, id);
  const hi = Number(value >> 32n);
  const lo = Number(value & WORD_MASK);
  const tick = wordField(hi, lo, layout.timeField);
  const fields: Record<string, number> = {};
  for (const f of layout.fields) if (f.role !== 'time') fields[f.name] = wordField(hi, lo, f);
  return { id: value, tick, unixMs: layout.epochMs + tick * layout.unitMs, fields };
}

/**
 * Parses the decimal text of a Snowflake: ASCII digits only, no sign, no spaces, no leading
 * zero (one ID has one text form). Throws {@link InvalidIdError} with reason 'length' (empty),
 * 'alphabet' (with the position of the first non-digit), 'format' (leading zero, position 0)
 * or 'range': above 2^64-1, or with `layout`, above 2^totalBits-1 (2^63-1 at most for a layout
 * reserving the sign bit). `TypeError` when `text` is not a string.
 */
export function parseSnowflake(text: string, layout?: Layout): bigint {
  if (typeof text !== 'string') throw typeError('snowflake text', 'a string', text);
  if (layout !== undefined) checkLayout('parseSnowflake layout', layout);
  return parseSnowflakeText(text, layout);
}

/** {@link parseSnowflake} of a string, with a layout the caller has checked (or none). */
function parseSnowflakeText(text: string, layout: Layout | undefined): bigint {
  if (text.length === 0) throw new InvalidIdError('snowflake', 'length', 'empty string', text, 0);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) {
      throw new InvalidIdError(
        'snowflake',
        'alphabet',
        `character ${JSON.stringify(text[i])} at position ${i} is not a decimal digit`,
        text,
        i,
      );
    }
  }
  if (text.length > 1 && text.charCodeAt(0) === 48) {
    throw new InvalidIdError('snowflake', 'format', 'leading zero', text, 0);
  }
  const max = layout === undefined ? UINT64_MAX : layout.maxId;
  const value = text.length > 20 ? max + 1n : BigInt(text);
  if (value > max) {
    const what =
      layout === undefined
        ? 'above 2^64-1'
        : `above 2^${layout.totalBits}-1, the largest ID of layout "${layout.name}"` +
          (layout.signBit ? ' (it reserves the sign bit)' : '');
    // A number too long to be an ID is not echoed whole (issue 9: a 10 MB line was).
    const shown = text.length > 20 ? `a ${text.length}-digit number` : text;
    throw new InvalidIdError('snowflake', 'range', `${shown} is ${what}`, text);
  }
  return value;
}

/**
 * Whether `text` is the decimal text of a Snowflake (of `layout` when given), exactly as
 * {@link parseSnowflake} accepts it. Never throws for any `text`; `TypeError` on a `layout`
 * that is not one.
 */
export function isSnowflake(text: unknown, layout?: Layout): boolean {
  if (layout !== undefined) checkLayout('isSnowflake layout', layout);
  if (typeof text !== 'string' || !/^(0|[1-9][0-9]{0,19})$/.test(text)) return false;
  return BigInt(text) <= (layout === undefined ? UINT64_MAX : layout.maxId);
}

/**
 * Checks `text` like {@link parseSnowflake} and returns it (a Snowflake has one decimal text
 * form). Throws exactly what {@link parseSnowflake} throws.
 */
export function validateSnowflake(text: string, layout?: Layout): string {
  parseSnowflake(text, layout);
  return text;
}

/**
 * The decimal text of the Snowflake `id` (a bigint in [0, 2^64-1], or of `layout` when given:
 * [0, its largest ID]). Throws {@link InvalidIdError} (reason `range`) outside that range,
 * `TypeError` when `id` is not a bigint.
 */
export function formatSnowflake(id: bigint, layout?: Layout): string {
  if (layout !== undefined)
    return idOf(checkLayout('formatSnowflake layout', layout), id).toString();
  if (typeof id !== 'bigint') throw typeError('formatSnowflake id', 'a bigint', id);
  if (id < 0n || id > UINT64_MAX) {
    throw new InvalidIdError('snowflake', 'range', `${id} is outside [0, 2^64-1]`, id.toString());
  }
  return id.toString();
}

/**
 * The raw value of the field `name` of `id` (for the time field, the tick). Throws
 * `RangeError` when the layout has no such field, {@link InvalidIdError} as {@link decompose}.
 */
export function fieldOf(layout: Layout, id: bigint | string, name: string): number {
  checkLayout('fieldOf layout', layout);
  const f = layout.fields.find((x) => x.name === name);
  if (f === undefined) {
    throw rangeError(
      'fieldOf name',
      `a field of layout "${layout.name}" (${layout.fields.map((x) => x.name).join(', ')})`,
      name,
    );
  }
  return fieldValue(idOf(layout, id), f);
}

/**
 * `id` as a bigint in [0, 2^64-1], of any layout: a bigint, decimal text (as
 * {@link parseSnowflake}) or a non-negative safe integer (a database serial). Throws
 * {@link InvalidIdError} for bad text or a bigint out of range, `RangeError` for a number that
 * is not a non-negative safe integer, `TypeError` for other types.
 */
export function anyId(name: string, id: unknown): bigint {
  if (typeof id === 'string') return parseSnowflake(id);
  if (typeof id === 'number') {
    if (!Number.isSafeInteger(id) || id < 0) {
      throw rangeError(name, 'a non-negative safe integer, a bigint or a decimal string', id);
    }
    return BigInt(id);
  }
  if (typeof id !== 'bigint') {
    throw typeError(name, 'a bigint, a decimal string or a non-negative safe integer', id);
  }
  if (id < 0n || id > UINT64_MAX) {
    throw new InvalidIdError('snowflake', 'range', `${id} is outside [0, 2^64-1]`, id.toString());
  }
  return id;
}

/**
 * The shard of an ID, in one of two forms. Pure.
 *
 * - `shardOf(id, layout = instagram, field = 'shard')`: the value of a node field (by default
 *   Instagram's 13-bit logical shard). Throws as {@link fieldOf}.
 * - `shardOf(id, shards)` with `shards` a power of two in [1, 2^53]: `id mod shards`, the ID's
 *   low log2(shards) bits. For an ID minted with a gene (role 'gene', the least significant
 *   field) that is the gene's shard, so an order minted with `geneFrom: userId` has
 *   `shardOf(orderId, n) === shardOf(userId, n)` for every power of two n up to 2^geneBits.
 *   `id` is any 64-bit ID: a bigint or decimal text in [0, 2^64-1], or a non-negative safe
 *   integer (a database serial). Throws `RangeError` when `shards` is not such a power of two
 *   or a field name is given too, and as {@link anyId} for the ID.
 */
export function shardOf(id: bigint | string, layout?: Layout, field?: string): number;
export function shardOf(id: bigint | string | number, shards: number): number;
export function shardOf(
  id: bigint | string | number,
  layout: Layout | number = LAYOUTS.instagram!,
  field?: string,
): number {
  if (typeof layout !== 'number') return fieldOf(layout, id as bigint | string, field ?? 'shard');
  if (field !== undefined) {
    throw rangeError('shardOf field', 'no field name with a shard count', field);
  }
  if (!Number.isInteger(layout) || layout < 1 || layout > 2 ** 53) {
    throw rangeError('shardOf shards', 'a power of two in [1, 2^53]', layout);
  }
  if (2 ** Math.round(Math.log2(layout)) !== layout) {
    throw rangeError('shardOf shards', 'a power of two in [1, 2^53]', layout);
  }
  return Number(anyId('shardOf id', id) & BigInt(layout - 1));
}

/** The start of the ID's tick in unix ms. Throws as {@link decompose}. */
export function snowflakeTimestamp(layout: Layout, id: bigint | string): number {
  checkLayout('snowflakeTimestamp layout', layout);
  return layout.epochMs + fieldValue(idOf(layout, id), layout.timeField) * layout.unitMs;
}
