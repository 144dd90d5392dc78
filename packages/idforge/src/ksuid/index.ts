/**
 * idforge/ksuid: everything of KSUIDs, by name, as the core defines it (the same functions and
 * classes as the root's). The root keeps generate, parse, format, validate and the time; this
 * entry adds the bytes, compose/decompose, the constants, the time bounds and backdated KSUIDs.
 * Browser-safe, like the core.
 */
export { type IdBounds, ksuidBounds } from '../core/bounds.js';
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
} from '../core/ksuid.js';
export { ksuidAt } from '../core/minted-at.js';
