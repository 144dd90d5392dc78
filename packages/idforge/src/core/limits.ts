/**
 * The 64-bit bounds, written once: an unsigned 64-bit ID (a Snowflake, a packed HLC, the
 * integer a public ID encodes, a shard key's input) is at most UINT64_MAX; a signed 64-bit
 * column (BIGINT, a Redis integer, a sequence's number) holds at most INT64_MAX.
 */

/** 2^64 - 1: the largest unsigned 64-bit integer. */
export const UINT64_MAX = (1n << 64n) - 1n;

/** 2^63 - 1: the largest signed 64-bit integer (a BIGINT column). */
export const INT64_MAX = (1n << 63n) - 1n;
