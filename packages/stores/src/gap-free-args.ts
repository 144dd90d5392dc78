/**
 * What the gap-free stores (`<backend>/gap-free.ts`) share: the argument checks and the lock
 * timeout, checked before any I/O. A period key is the business-number format's
 * (`''`, `2026`, `2026-12`, `2026-12-31`; idforge/sequences' number-format.ts).
 */
import { assertInteger, rangeError } from 'idforge/internal';
import { assertTag } from 'idforge/sequences';

/** How long `increment` waits for another transaction's row lock by default. */
export const DEFAULT_GAP_FREE_LOCK_TIMEOUT_MS = 5000;

const PERIOD = /^(\d{4}(-\d{2}(-\d{2})?)?)?$/;

/** Throws `TypeError`/`RangeError` for a bad tag or period key. */
export function checkGapFreeKey(tag: string, period: string): void {
  assertTag(tag);
  if (typeof period !== 'string' || !PERIOD.test(period)) {
    throw rangeError('period', "'', YYYY, YYYY-MM or YYYY-MM-DD", period);
  }
}

/** The lock timeout option, an integer of ms in [1, 600000]. */
export function lockTimeoutOf(ms: number | undefined): number {
  return assertInteger('lockTimeoutMs', ms ?? DEFAULT_GAP_FREE_LOCK_TIMEOUT_MS, 1, 600_000);
}
