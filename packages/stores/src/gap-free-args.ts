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

/** The largest number a gap-free row holds (its column is a signed 64-bit BIGINT). */
export const GAP_FREE_MAX = 9223372036854775807n;

/**
 * The refusal of a `tx` outside any transaction (`expected`: what the store takes; `begin`:
 * how the caller starts one): its number would commit on its own, and the caller's rollback
 * could not give it back.
 */
export function outsideTransaction(expected: string, begin: string): TypeError {
  return new TypeError(
    `tx: expected ${expected} inside a transaction, got one outside any: the number would ` +
      'commit on its own, and a rollback of your transaction could not give it back (a gap). ' +
      `Call next(tx) after ${begin}, and COMMIT once the row that uses the number is written.`,
  );
}
