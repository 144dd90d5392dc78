/**
 * Gap-free numbers (invoices in jurisdictions that require consecutive numbers): the number is
 * taken inside the caller's own database transaction, on the row of its (tag, period), so a
 * rollback gives it back and the next writer takes it. One row lock per number: every writer
 * of a period queues on that row from its `next(tx)` to its commit or rollback, so throughput
 * is one transaction at a time per period (bench/sequences measures it against segments).
 * Waiting is bounded by the store's lock timeout, then `GapFreeTimeoutError`; a writer never
 * skips a number.
 *
 * Library-only: the CLI and the service cannot offer it, since the number must commit or roll
 * back with the caller's own row (a number handed over HTTP has already been committed).
 */
import type { Clock } from '../core/index.js';
import type { FormattedNumber, NumberFormat } from './number-format.js';
import { assertTag, MAX_TAG_LENGTH } from './tag.js';

/**
 * Where gap-free numbers are kept: one row per (tag, period) holding the last number taken by a
 * committed transaction. `Tx` is the driver's client inside the caller's transaction (a
 * node-postgres client after `BEGIN`, a mysql2/promise connection after `START TRANSACTION`, a
 * better-sqlite3 database after `BEGIN IMMEDIATE`). Implemented by @idforge/stores on
 * PostgreSQL, MariaDB/MySQL and SQLite.
 */
export interface GapFreeStore<Tx> {
  readonly backend: string;
  /** Where it is, credentials removed. */
  readonly address: string;
  /** Creates the table. Idempotent. */
  migrate(): Promise<void>;
  /**
   * Inside `tx`: the row of (tag, period) moved up by one (created at 0 first when missing,
   * race-safe) and its new value. The row stays locked by `tx` until it ends: a commit keeps
   * the number, a rollback gives it back. Rejects with `GapFreeTimeoutError` when another
   * transaction holds the row longer than the lock timeout (nothing is taken), with
   * `StoreUnavailableError` for another failure.
   */
  increment(tx: Tx, tag: string, period: string): Promise<bigint>;
  /** The last committed number of (tag, period), 0n when none; outside any transaction. */
  last(tag: string, period: string): Promise<bigint>;
  close(): Promise<void>;
}

/** Options of {@link GapFreeSequence}. */
export interface GapFreeSequenceOptions {
  /** Decides each number's period. Default: the wall clock. */
  readonly clock?: Pick<Clock, 'now'>;
}

/** The longest period key (`2026-12-31`). */
const MAX_PERIOD = 10;

/**
 * A gap-free business-number sequence: `next(tx)` takes the period's next number inside `tx`.
 * Holds no state but the format: safe to share in a process, and across processes (the row is
 * the state).
 */
export class GapFreeSequence<Tx> {
  readonly tag: string;
  readonly format: NumberFormat;
  readonly #store: GapFreeStore<Tx>;
  readonly #clock: Pick<Clock, 'now'>;

  /** Throws like `assertTag` for a bad tag (at most 118 characters with a resetting format). */
  constructor(
    store: GapFreeStore<Tx>,
    tag: string,
    format: NumberFormat,
    options: GapFreeSequenceOptions = {},
  ) {
    assertTag(tag);
    if (tag.length > MAX_TAG_LENGTH - MAX_PERIOD) {
      throw new RangeError(
        `tag: expected at most ${MAX_TAG_LENGTH - MAX_PERIOD} characters for a gap-free sequence, got ${tag.length}`,
      );
    }
    this.tag = tag;
    this.format = format;
    this.#store = store;
    this.#clock = options.clock ?? { now: () => Date.now() };
  }

  /**
   * The next number of the period the clock says now, taken inside the caller's transaction
   * `tx`; it is the caller's once `tx` commits, and goes back to the next writer if `tx` rolls
   * back. Rejects as {@link GapFreeStore.increment}; after a rejection, roll `tx` back.
   */
  async next(tx: Tx): Promise<FormattedNumber> {
    const period = this.format.periodAt(this.#clock.now());
    const value = await this.#store.increment(tx, this.tag, period.key);
    return { value, period: period.key, text: this.format.format(value, period) };
  }
}
