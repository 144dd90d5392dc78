/**
 * Time-bound vectors shared by the library's bounds (uuidv7Bounds, snowflakeBounds) and the
 * SQL functions of `idforge sql` (idforge_uuidv7_lowest/highest/bounds,
 * idforge_snowflake_lowest/highest/bounds) on PostgreSQL, MariaDB and SQLite (test/sql/).
 *
 * Provenance: derived, not published. Computed from the definitions (RFC 9562 §5.7: 48-bit
 * unix ms, version 7, variant 10, every other bit 0 for the lowest and 1 for the highest; a
 * Snowflake's time field = floor((ms - epoch) / unitMs) at its shift, the fields below it all
 * 0 or all 1, layouts as in packages/idforge/src/core/snowflake/presets.ts) with Python's
 * integers on 2026-12-03, then checked equal to idforge's uuidv7Bounds/snowflakeBounds
 * (packages/idforge/src/core/bounds.ts) before being written down.
 */

/** 2026-01-02T03:04:05.678Z and 2030-12-31T23:59:59.999Z. */
export const BOUNDS_FROM_MS = 1_767_323_045_678;
export const BOUNDS_TO_MS = 1_924_991_999_999;

export const uuidv7BoundVectors = [
  {
    ms: BOUNDS_FROM_MS, // 0x019b7ca98f2e
    lowest: '019b7ca9-8f2e-7000-8000-000000000000',
    highest: '019b7ca9-8f2e-7fff-bfff-ffffffffffff',
  },
  {
    ms: BOUNDS_TO_MS, // 0x01c03276dfff
    lowest: '01c03276-dfff-7000-8000-000000000000',
    highest: '01c03276-dfff-7fff-bfff-ffffffffffff',
  },
] as const;

/** lowest(BOUNDS_FROM_MS) and highest(BOUNDS_TO_MS) per layout, as decimal text. */
export const snowflakeBoundVectors = [
  { layout: 'default', lowest: '132680287741018112', highest: '793991813529599999' },
  { layout: 'twitter-2010', lowest: '2006924430235664384', highest: '2668235956024246271' },
  { layout: 'discord', lowest: '1456483160777818112', highest: '2117794686566399999' },
  { layout: 'sonyflake', lowest: '600277792138985472', highest: '864802402467839999' },
] as const;
