/**
 * idforge/uuid: everything of UUIDs, by name, as the core defines it (the same functions and
 * classes as the root's: one module, so `instanceof` and identity hold). The root keeps what
 * most callers need (generate, parse, format, validate, the v7 time); this entry adds the
 * bytes, the version and variant, v1/v6 times and conversion, MySQL's swapped byte order, the
 * v7 time bounds and backdated v7s. Browser-safe, like the core.
 */
export { type IdBounds, uuidv7Bounds } from '../core/bounds.js';
export { uuidv7At } from '../core/minted-at.js';
export { formatUuid } from '../core/uuid/format.js';
export {
  isUuid,
  type ParseUuidOptions,
  parseUuid,
  type UuidVariant,
  uuidVariant,
  uuidVersion,
  validateUuid,
} from '../core/uuid/parse.js';
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
} from '../core/uuid/v1v6.js';
export { UuidV4Generator, type UuidV4Options, uuidv4, uuidv4Bytes } from '../core/uuid/v4.js';
export {
  UuidV7Generator,
  type UuidV7Method,
  type UuidV7Options,
  uuidv7,
  uuidv7Bytes,
  uuidv7Timestamp,
} from '../core/uuid/v7.js';
