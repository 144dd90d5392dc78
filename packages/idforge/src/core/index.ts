/**
 * idforge: the public API of the core, kept to what generating and reading IDs needs. Pure:
 * no I/O, no timers, no `node:` imports; it runs in Node.js, browsers and edge runtimes. Every
 * export is listed by name: per scheme its generator class and one-call function, `parseX`,
 * `formatX`, `isX`, `validateX` and `xTimestamp`; `inspect`; Snowflake layouts; the `Clock`
 * and `RandomSource` ports; the error catalogue and the errors these functions throw.
 * Everything else of a scheme (bytes, conversions, constants, time bounds, backdated IDs) is
 * in its own entry point (idforge/uuid, idforge/ulid, idforge/ksuid, idforge/snowflake), the
 * service's wire contract in idforge/wire, and each layer's errors in the layer that throws
 * them (docs/architecture.md, "The root and the per-scheme entry points"). What other layers
 * need but users should not lean on is in `./internal.ts` (not an API).
 */
export {
  type Clock,
  ManualClock,
  MonotonicClock,
  type MonotonicClockOptions,
  wallClock,
} from './clock.js';
export { ERROR_CATEGORY, type ErrorCategory } from './error-categories.js';
export {
  ClockRollbackError,
  ClockStalledError,
  ErrorCode,
  type ErrorCodeValue,
  HorizonExceededError,
  IdforgeError,
  InvalidIdError,
  type InvalidIdReason,
  InvalidLayoutError,
  MonotonicOverflowError,
} from './errors.js';
export {
  INSPECT_SCHEMES,
  type Inspection,
  type InspectOptions,
  type InspectScheme,
  inspect,
} from './inspect.js';
export type { Instant } from './instant.js';
export {
  formatKsuid,
  isKsuid,
  KsuidGenerator,
  type KsuidGeneratorOptions,
  ksuid,
  ksuidTimestamp,
  parseKsuid,
  validateKsuid,
} from './ksuid.js';
export { cryptoRandom, fixedRandom, type RandomSource, seededRandom } from './random.js';
export {
  compose,
  type DecomposedSnowflake,
  decompose,
  formatSnowflake,
  isSnowflake,
  parseSnowflake,
  type SnowflakeParts,
  snowflakeTimestamp,
  validateSnowflake,
} from './snowflake/codec.js';
export type { SnowflakeGeneOptions } from './snowflake/gene.js';
export {
  SnowflakeGenerator,
  type SnowflakeGeneratorOptions,
  type SnowflakeStats,
} from './snowflake/generator.js';
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
} from './snowflake/layout.js';
export { getLayout, LAYOUTS, PRESET_NAMES } from './snowflake/presets.js';
export {
  formatUlid,
  isUlid,
  monotonicUlid,
  parseUlid,
  type UlidDecodeOptions,
  UlidGenerator,
  type UlidGeneratorOptions,
  ulid,
  ulidTimestamp,
  validateUlid,
} from './ulid.js';
export { formatUuid } from './uuid/format.js';
export { isUuid, type ParseUuidOptions, parseUuid, validateUuid } from './uuid/parse.js';
export { UuidV4Generator, type UuidV4Options, uuidv4 } from './uuid/v4.js';
export {
  UuidV7Generator,
  type UuidV7Method,
  type UuidV7Options,
  uuidv7,
  uuidv7Timestamp,
} from './uuid/v7.js';
