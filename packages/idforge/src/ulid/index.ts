/**
 * idforge/ulid: everything of ULIDs, by name, as the core defines it (the same functions and
 * classes as the root's). The root keeps generate, parse, format, validate and the time; this
 * entry adds the bytes, the UUID conversions, the limits, the time bounds and backdated ULIDs.
 * Browser-safe, like the core.
 */
export { type IdBounds, ulidBounds } from '../core/bounds.js';
export { ulidAt } from '../core/minted-at.js';
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
} from '../core/ulid.js';
