/**
 * idforge/snowflake: everything of Snowflake IDs and layouts, by name, as the core defines it
 * (the same functions and classes as the root's). The root keeps the generator, parse, format,
 * validate, the time, compose/decompose and the layouts; this entry adds the field readers
 * (`fieldOf`, `shardOf`), a layout's time bounds and `UINT64_MAX`. Browser-safe, like the core.
 */
export { type IdBounds, snowflakeBounds } from '../core/bounds.js';
export { UINT64_MAX } from '../core/limits.js';
export {
  compose,
  type DecomposedSnowflake,
  decompose,
  fieldOf,
  formatSnowflake,
  isSnowflake,
  parseSnowflake,
  type SnowflakeParts,
  shardOf,
  snowflakeTimestamp,
  validateSnowflake,
} from '../core/snowflake/codec.js';
export type { SnowflakeGeneOptions } from '../core/snowflake/gene.js';
export {
  SnowflakeGenerator,
  type SnowflakeGeneratorOptions,
  type SnowflakeStats,
} from '../core/snowflake/generator.js';
export {
  defineLayout,
  describeLayout,
  type FieldRole,
  type FieldSpec,
  isLayout,
  type Layout,
  type LayoutField,
  type LayoutSpec,
  layoutYearsLeft,
} from '../core/snowflake/layout.js';
export { getLayout, LAYOUTS, PRESET_NAMES } from '../core/snowflake/presets.js';
