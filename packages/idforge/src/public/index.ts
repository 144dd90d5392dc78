/**
 * idforge/public: IDs for the outside world. Browser-safe, like the core: it imports only the
 * core and its own files (and one audited cipher package), no `node:` module. Every export
 * is listed by name.
 */

export {
  type BackfillOptions,
  type BackfillProgress,
  type BackfillReport,
  backfillIndexName,
  MAX_BACKFILL_BATCH,
  MAX_BACKFILL_PASSES,
  runBackfill,
} from './backfill.js';
export type {
  BackfillColumn,
  BackfillColumnSpec,
  BackfillKey,
  BackfillScan,
  BackfillTableInfo,
  BackfillTarget,
  BackfillValue,
} from './backfill-ports.js';
export {
  type BackfillKeyKind,
  type BackfillValues,
  publicIdValues,
  ulidAtValues,
  uuidv4Values,
  uuidv7AtValues,
  uuidv7Values,
} from './backfill-values.js';
export {
  PublicIdInvalidError,
  type PublicIdInvalidReason,
  PublicKeyRetiredError,
  PublicKeysInvalidError,
} from './errors.js';
export {
  BackfillNoKeyError,
  BackfillTableError,
  type BackfillTableReason,
} from './errors-backfill.js';
export {
  formatPublicKeys,
  generatePublicKey,
  MAX_VERSION as PUBLIC_KEY_MAX_VERSION,
  type PublicKey,
  parsePublicKeys,
} from './keys.js';
export {
  PUBLIC_ID_64_LENGTH,
  PUBLIC_ID_128_LENGTH,
  type PublicIdOptions,
  PublicIds,
} from './opaque.js';
export {
  assertTypeIdPrefix,
  formatTypeId,
  isTypeId,
  isTypeIdPrefix,
  parseTypeId,
  TYPEID_PREFIX_MAX,
  type TypeIdParseOptions,
  type TypeIdParts,
  typeIdTimestamp,
  typeIdToUuid,
  uuidToTypeId,
  validateTypeId,
} from './typeid.js';
export { TYPEID_ALPHABET } from './typeid-base32.js';
export {
  TypeIdGenerator,
  type TypeIdGeneratorOptions,
  typeid,
} from './typeid-generator.js';
export { typeIdAt, typeIdBounds } from './typeid-time.js';
