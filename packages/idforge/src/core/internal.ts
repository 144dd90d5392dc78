/**
 * idforge's internal barrel: what coord, sequences, stores, the CLI, benchmarks and tests
 * need from the core but users should not lean on (encoding tables, trusted `unsafe*`
 * paths, argument guards, the v7 state transition, back-off). It is not in the package
 * `exports` and may change in any release. Users import from `idforge` (`./index.ts`).
 */
export {
  assertBoolean,
  assertBytes,
  assertInteger,
  assertNumber,
  assertOneOf,
  assertOutput,
  assertString,
  describe,
  rangeError,
  typeError,
} from './assert.js';
export { Backoff, type BackoffOptions } from './backoff.js';
export { blockingSleep, defaultClock } from './clock.js';
export { RunningDeadline } from './deadline.js';
export { DEFAULT_STORE_URL } from './default-store.js';
export {
  CROCKFORD_ALPHABET,
  CROCKFORD_CODES,
  CROCKFORD_INVALID,
  CROCKFORD_LENIENT,
  CROCKFORD_OVERFLOW,
  CROCKFORD_STRICT,
  type CrockfordDecodeOptions,
  crockfordError,
  crockfordHigh20,
  crockfordLow20,
  crockfordTable,
  decodeBase32Crockford,
  decodeCrockford128Into,
  encodeBase32Crockford,
  scanCrockford128,
  unsafeEncodeCrockford128,
  unsafeUlidText,
} from './encoding/base32-crockford.js';
export {
  BASE62_ALPHABET,
  BASE62_BYTES,
  BASE62_DIGITS,
  BASE62_OVERFLOW,
  BASE62_VALUE,
  base62Error,
  base62LengthError,
  decodeBase62,
  decodeBase62Into,
  encodeBase62,
  unsafeEncodeBase62,
  unsafeEncodeBase62Words,
  writeBase62Word,
} from './encoding/base62.js';
export { BYTE_TO_HEX, bytesToHex, HEX_VALUE, hexInto } from './encoding/hex.js';
export {
  dialectsOf,
  ENGINES,
  type EngineName,
  type EngineTraits,
  type EngineWith,
  enginesWith,
  type PlanDialectName,
  type SqlDialectName,
  traitsOf,
} from './engines.js';
// Exported to users by the subpaths whose ports name them (coord, sequences, hlc, stores).
export { NotReadyError, StoreUnavailableError } from './errors-shared.js';
export { instantMs, instantRange } from './instant.js';
export { INT64_MAX, UINT64_MAX } from './limits.js';
export { unsafeUuidV7AtInto } from './minted-at.js';
export { defaultPool, RandomPool } from './random.js';
export { parseUuidBytes, unsafeFormatUuid } from './uuid/format.js';
export {
  createUuidV7State,
  stepV7Counter,
  stepV7Fraction,
  stepV7Random,
  UUIDV7_ROLLBACK_ALLOWANCE_MS,
  type UuidV7Step,
  unsafeV7Into,
} from './uuid/v7.js';
export type { UuidV7State } from './uuid/v7-state.js';
