/**
 * idforge: the public API of the core. Pure: no I/O, no timers, no `node:` imports; it runs
 * in Node.js, browsers and edge runtimes. Every export is listed by name: per scheme a
 * generator class (`new XGenerator(options)`) and one-call functions, `parseX(text) → bytes`
 * (a bigint for Snowflake), `formatX(bytes) → text`, `xTimestamp(id) → unix ms`, `isX`,
 * `validateX`; `inspect`; Snowflake layouts; errors; the `Clock` and `RandomSource` ports.
 * What other layers need but users should not lean on is in `./internal.ts` (not exported
 * by the package).
 */
export {
  type IdBounds,
  ksuidBounds,
  snowflakeBounds,
  ulidBounds,
  uuidv7Bounds,
} from './bounds.js';
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
  BackfillNoKeyError,
  BackfillTableError,
  type BackfillTableReason,
} from './errors-backfill.js';
export {
  ClientClosedError,
  type ServerFailure,
  type ServiceAnswer,
  ServiceAuthError,
  ServiceRejectedError,
  ServiceResponseError,
  ServiceUnavailableError,
} from './errors-client.js';
export {
  BehindMarkError,
  ClockSkewError,
  DriverMissingError,
  DuplicateWorkerError,
  LeaseLostError,
  NoFreeWorkerError,
  NotReadyError,
  StoreUnavailableError,
} from './errors-coord.js';
export {
  PublicIdInvalidError,
  type PublicIdInvalidReason,
  PublicKeyRetiredError,
  PublicKeysInvalidError,
} from './errors-public.js';
export {
  CounterRegressedError,
  GapFreeExhaustedError,
  GapFreeTimeoutError,
  SequenceExhaustedError,
  TagExistsError,
  UnknownTagError,
} from './errors-seq.js';
export {
  BenchTargetInUseError,
  DriverBindingError,
  NodeInUseError,
  StoreAuthError,
  StoreNotMigratedError,
  StorePathError,
  type StorePathReason,
} from './errors-store.js';
export {
  INSPECT_SCHEMES,
  type Inspection,
  type InspectOptions,
  type InspectScheme,
  inspect,
} from './inspect.js';
export type { Instant } from './instant.js';
export {
  composeKsuid,
  decomposeKsuid,
  formatKsuid,
  isKsuid,
  KSUID_EPOCH_SECONDS,
  KSUID_MAX,
  KSUID_MAX_UNIX_SECONDS,
  KSUID_NIL,
  KsuidGenerator,
  type KsuidGeneratorOptions,
  type KsuidParts,
  ksuid,
  ksuidBytes,
  ksuidTimestamp,
  parseKsuid,
  validateKsuid,
} from './ksuid.js';
export { UINT64_MAX } from './limits.js';
export { ksuidAt, ulidAt, uuidv7At } from './minted-at.js';
export { cryptoRandom, fixedRandom, type RandomSource, seededRandom } from './random.js';
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
  ULID_MAX,
  ULID_MAX_TIME,
  type UlidDecodeOptions,
  UlidGenerator,
  type UlidGeneratorOptions,
  ulid,
  ulidBytes,
  ulidTimestamp,
  ulidToUuid,
  uuidToUlid,
  validateUlid,
} from './ulid.js';
export { formatUuid } from './uuid/format.js';
export {
  isUuid,
  type ParseUuidOptions,
  parseUuid,
  type UuidVariant,
  uuidVariant,
  uuidVersion,
  validateUuid,
} from './uuid/parse.js';
export {
  fromMysqlSwap,
  mysqlSwapHex,
  toMysqlSwap,
  type UuidGregorianTime,
  uuidGregorianTime,
  uuidv1Timestamp,
  uuidv6Timestamp,
  v1ToV6,
  v6ToV1,
} from './uuid/v1v6.js';
export { UuidV4Generator, type UuidV4Options, uuidv4, uuidv4Bytes } from './uuid/v4.js';
export {
  UuidV7Generator,
  type UuidV7Method,
  type UuidV7Options,
  uuidv7,
  uuidv7Bytes,
  uuidv7Timestamp,
} from './uuid/v7.js';
export {
  HLC_HEADER,
  type IdBatchBody,
  MAX_GENE_FROM,
  MAX_REQUEST_COUNT,
  MAX_SEQUENCE_VALUE,
  MAX_TAG_LENGTH,
  type NumberRange,
  SERVICE_SCHEMES,
  type SegmentBody,
  type ServiceErrorBody,
  type ServiceScheme,
} from './wire.js';
