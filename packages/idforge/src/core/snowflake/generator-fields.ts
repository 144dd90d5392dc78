/**
 * The checks of SnowflakeGenerator's construction that read the layout: which layout,
 * and the node field values. Internal to the snowflake folder.
 */
import { assertInteger, rangeError, typeError } from '../assert.js';
import { isLayout, type Layout } from './layout.js';
import { getLayout } from './presets.js';

export function layoutOf(value: unknown): Layout {
  if (value === undefined) return getLayout('default');
  if (typeof value === 'string') return getLayout(value);
  if (isLayout(value)) return value;
  throw typeError('SnowflakeGenerator layout', 'a Layout or a preset name', value);
}

/** The options {@link nodeValues} reads (SnowflakeGeneratorOptions' node and fields). */
interface NodeOptions {
  readonly node?: number;
  readonly fields?: Readonly<Record<string, number>>;
}

/** The node field values, every one given and in range; never masked. */
export function nodeValues(layout: Layout, options: NodeOptions): Record<string, number> {
  const given: Record<string, unknown> = {};
  if (options.fields !== undefined) {
    if (typeof options.fields !== 'object' || options.fields === null) {
      throw typeError(
        'SnowflakeGenerator fields',
        'an object of node field values',
        options.fields,
      );
    }
    Object.assign(given, options.fields);
  }
  const nodeNames = layout.nodeFields.map((f) => f.name);
  const list = nodeNames.join(', ') || 'none';
  if (options.node !== undefined) {
    if (!nodeNames.includes('node')) {
      throw rangeError(
        'SnowflakeGenerator node',
        `a layout with a field named "node"; layout "${layout.name}" has the node fields ` +
          `${list}: set them with the fields option instead`,
        options.node,
      );
    }
    if ('node' in given) {
      throw rangeError('SnowflakeGenerator node', 'node or fields.node, not both', options.node);
    }
    given.node = options.node;
  }
  for (const key of Object.keys(given)) {
    if (!nodeNames.includes(key)) {
      throw rangeError(
        'SnowflakeGenerator fields',
        `only node fields of layout "${layout.name}" (${list})`,
        key,
      );
    }
  }
  const missing = nodeNames.filter((n) => given[n] === undefined);
  if (missing.length > 0) {
    throw new TypeError(
      `SnowflakeGenerator: expected an explicit value for every node field of layout ` +
        `"${layout.name}" (${list}; there is no default: two generators with the same node ` +
        `issue duplicate IDs), got none for ${missing.join(', ')}`,
    );
  }
  const out: Record<string, number> = {};
  for (const f of layout.nodeFields) {
    out[f.name] = assertInteger(
      `SnowflakeGenerator node field "${f.name}"`,
      given[f.name],
      0,
      f.mask,
    );
  }
  return Object.freeze(out);
}
