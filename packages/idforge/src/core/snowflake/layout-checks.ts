/**
 * The checks of {@link defineLayout} (layout.ts): the spec's name, epoch, tick, sign bit and
 * fields, then the roles the placed fields must fill. Each throws `TypeError` for a part of
 * the wrong type and {@link InvalidLayoutError} (with `field` naming the culprit) for a value
 * out of place. Internal to the snowflake folder.
 */
import { assertBoolean, assertString, typeError } from '../assert.js';
import { InvalidLayoutError } from '../errors.js';
import type { FieldRole, FieldSpec, Layout, LayoutField, LayoutSpec } from './layout-types.js';

const NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{3}))?)?(Z|([+-])(\d{2}):(\d{2})))?$/;
/** The last instant a JavaScript Date holds. */
const MAX_DATE_MS = 8.64e15;
const DEFAULT_ROLE: Readonly<Record<string, FieldRole>> = { time: 'time', sequence: 'sequence' };
const ROLES: readonly FieldRole[] = ['time', 'sequence', 'node', 'gene'];

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
export function geneOf(layout: string, fields: readonly LayoutField[]): LayoutField | undefined {
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

/** The parts of a spec every figure derives from, each checked. */
interface CheckedSpec {
  readonly name: string;
  readonly epochMs: number;
  readonly unitMs: number;
  readonly signBit: boolean;
  readonly fields: readonly FieldSpec[];
  readonly totalBits: number;
}

/** Checks the spec's name, epoch, tick, sign bit and fields, in that order. */
export function checkSpec(spec: LayoutSpec): CheckedSpec {
  if (typeof spec !== 'object' || spec === null) throw typeError('layout spec', 'an object', spec);
  const name = assertString('layout name', spec.name);
  if (name.length === 0) throw new InvalidLayoutError(name, 'the name is empty', 'name');
  const epochMs = epochOf(name, spec.epoch);
  const unitMs = unitOf(name, spec.unitMs);
  const signBit = assertBoolean('layout signBit', spec.signBit ?? true);
  return { name, epochMs, unitMs, signBit, ...fieldsOf(name, spec.fields, signBit) };
}

function unitOf(name: string, value: unknown): number {
  const unitMs = value ?? 1;
  if (typeof unitMs !== 'number') throw typeError('layout unitMs', 'a positive integer', unitMs);
  if (!Number.isSafeInteger(unitMs) || unitMs < 1) {
    throw new InvalidLayoutError(name, `unitMs ${unitMs}: expected a positive integer`, 'unitMs');
  }
  return unitMs;
}

/** Each field checked, and their widths with the sign bit within 64. */
function fieldsOf(
  name: string,
  value: unknown,
  signBit: boolean,
): { fields: FieldSpec[]; totalBits: number } {
  if (!Array.isArray(value)) throw typeError('layout fields', 'an array', value);
  const seen = new Set<string>();
  const fields = value.map((f, i) => checkField(name, f, i, seen));
  const totalBits = fields.reduce((sum, f) => sum + f.bits, 0);
  const room = signBit ? 63 : 64;
  if (totalBits > room) {
    throw new InvalidLayoutError(
      name,
      `the fields take ${totalBits} bits${signBit ? ' plus the sign bit' : ''}: at most ${room} fit` +
        (signBit ? ' (set signBit: false to use all 64)' : ''),
      'bits',
    );
  }
  return { fields, totalBits };
}

/**
 * The time and sequence fields (exactly one each, the sequence below the time) and the
 * horizon, which must lie within the Date range.
 */
export function clockFields(
  name: string,
  fields: readonly LayoutField[],
  epochMs: number,
  unitMs: number,
) {
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
  return { timeField, sequenceField, horizonMs };
}

/** The spec's source and description, each a string when given. */
export function provenanceOf(spec: LayoutSpec): Pick<Layout, 'source' | 'description'> {
  return {
    source: spec.source === undefined ? undefined : assertString('layout source', spec.source),
    description:
      spec.description === undefined
        ? undefined
        : assertString('layout description', spec.description),
  };
}
