/**
 * The checks of serve's settings across keys that decide each node (layout, layouts, fields,
 * workers, hlc): run with the rest of the configuration, before any store is opened, so that a
 * setting createSnowflakeNode would refuse never leaves a new store behind, and the message
 * names the setting as the user gave it (flag, variable or file key), not an option of the
 * library's API.
 */
import { getLayout, type Layout } from 'idforge';
import { HLC_LAYOUT } from 'idforge/hlc';
import { ConfigError } from './config-values.js';

/** Where each key's value came from: its flag, its variable, or `FILE: key`; absent: default. */
export type ConfigOrigins = Readonly<Record<string, string | undefined>>;

/** What the node checks read of the configuration. */
interface NodeSettings {
  readonly layout: string;
  readonly layouts: readonly string[];
  readonly fields: Readonly<Record<string, number>>;
  readonly workers: readonly [number, number] | null;
  readonly hlc: boolean;
}

/** `--workers 2000`, `IDFORGE_WORKERS=2000` or `FILE: workers 2000`, as the user wrote it. */
function typed(origins: ConfigOrigins, key: string, value: string): string {
  const from = origins[key] ?? `--${key}`;
  return from.startsWith('IDFORGE_') ? `${from}=${value}` : `${from} ${value}`;
}

/** How the user would fix field values, in the kind of source the layout came from. */
function fieldsHint(origins: ConfigOrigins, name: string): string {
  const from = origins.layout ?? '--layout';
  if (from.startsWith('IDFORGE_')) return `IDFORGE_FIELDS=${name}=0`;
  if (from.startsWith('--')) return `--fields ${name}=0`;
  return `"fields": {"${name}": 0} in the file`;
}

/**
 * The field a node of `layout` leases its worker ID in: the one node field `fields` leaves
 * free (as createSnowflakeNode picks it). Throws {@link ConfigError} when none or several are.
 */
function leasedField(layout: Layout, shown: string, c: NodeSettings, origins: ConfigOrigins) {
  const names = layout.nodeFields.map((f) => f.name);
  const free = layout.nodeFields.filter((f) => c.fields[f.name] === undefined);
  if (free.length === 1) return free[0]!;
  if (free.length === 0) {
    const given = Object.entries(c.fields).map(([k, v]) => `${k}=${v}`);
    throw new ConfigError(
      'fields',
      `${typed(origins, 'fields', given.join(','))} fixes every node field of layout ` +
        `"${layout.name}" (${names.join(', ')}): leave out the one whose worker ID this node ` +
        `leases (e.g. ${names.at(-1)})`,
    );
  }
  throw new ConfigError(
    'fields',
    `${shown} has node fields ${names.join(', ')}: fix all but the one whose worker ID this ` +
      `node leases, e.g. ${fieldsHint(origins, free[0]!.name)}`,
  );
}

/** Each fixed field value `layout` has fits the field's bits. */
function checkFieldValues(layout: Layout, c: NodeSettings, origins: ConfigOrigins): void {
  for (const f of layout.nodeFields) {
    const v = c.fields[f.name];
    if (v === undefined || v <= f.mask) continue;
    throw new ConfigError(
      'fields',
      `${typed(origins, 'fields', `${f.name}=${v}`)}: layout "${layout.name}" holds ` +
        `${f.name} 0-${f.mask} (${f.bits} bits); give a value in that range`,
    );
  }
}

/**
 * Every node this configuration leases (each layout's, and the HLC node's with `hlc`) can be
 * created: one free node field, fixed values in their fields, and `workers` inside the free
 * field. Throws {@link ConfigError} naming the setting otherwise.
 */
export function checkNodes(c: NodeSettings, origins: ConfigOrigins): void {
  const nodes: { layout: Layout; shown: string }[] = [c.layout, ...c.layouts].map((name) => ({
    layout: getLayout(name),
    shown:
      name === c.layout
        ? typed(origins, 'layout', name)
        : `${typed(origins, 'layouts', c.layouts.join(','))} (layout ${name})`,
  }));
  for (const { layout } of nodes) checkFieldValues(layout, c, origins);
  const hlc = c.hlc ? [{ layout: HLC_LAYOUT, shown: 'the HLC node' }] : [];
  for (const { layout, shown } of [...nodes, ...hlc]) {
    // The HLC node takes no fixed fields: its one node field is always the leased one.
    const field =
      layout === HLC_LAYOUT ? layout.nodeFields[0]! : leasedField(layout, shown, c, origins);
    if (c.workers === null || c.workers[1] <= field.mask) continue;
    const [min, max] = c.workers;
    throw new ConfigError(
      'workers',
      `${typed(origins, 'workers', min === max ? `${min}` : `${min}-${max}`)}: layout ` +
        `"${layout.name}" has worker IDs 0-${field.mask} (its field ${field.name}); pick ` +
        `worker IDs in that range`,
    );
  }
}
