/**
 * Ports of the central sequences: stores that hand out blocks of numbers from one place, so
 * that every process sharing the store gets disjoint, increasing numbers without a clock.
 * Adapters (src/stores/*) implement them on SQLite, PostgreSQL, MariaDB/MySQL and Redis;
 * one contract suite per port runs against every adapter on the real server.
 *
 * Numbers are `bigint` in [1, 2^63 - 1] (a signed BIGINT column). Every method may reject with
 * `StoreUnavailableError` (backend, address, operation, cause) when the store cannot be
 * reached or fails; other rejections are listed per method.
 */

import type { NumberRange } from '../wire/index.js';

// The largest number any sequence hands out (2^63 - 1) and the range of numbers [first, last]:
// part of the wire contract, core/wire.ts.
export { MAX_SEQUENCE_VALUE, type NumberRange } from '../wire/index.js';

/** One business tag of a segment table (orders, users, photos...). */
export interface SegmentTag {
  readonly tag: string;
  /** The largest number handed out so far (in a segment); the next segment starts above it. */
  readonly maxId: bigint;
  /** The step stored for the tag: the smallest segment a client takes. */
  readonly step: number;
  readonly description: string;
  readonly updatedAtMs: number;
}

/** A block of numbers [first, last] of one tag, both inclusive, owned by the caller alone. */
export interface Segment extends NumberRange {
  readonly tag: string;
}

/** Options of {@link SegmentStore.createTag}. */
export interface CreateTagOptions {
  /** Stored step (smallest segment), an integer in [1, 2^31 - 1]. */
  readonly step: number;
  /** First number the tag hands out. Default 1. */
  readonly start?: bigint;
  readonly description?: string;
}

/**
 * A segment table ("号段", Meituan Leaf): per tag, max_id moves up by a step atomically and
 * the caller owns the numbers in between.
 */
export interface SegmentStore {
  /** 'sqlite', 'postgres', 'mysql' (MariaDB or MySQL). */
  readonly backend: string;
  /** Where it is, credentials removed. */
  readonly address: string;
  /** Creates the tag table. Idempotent. Never run implicitly by the other methods. */
  migrate(): Promise<void>;
  /**
   * Creates a tag with max_id = start - 1. Rejects with `TagExistsError` when the tag exists
   * (whatever its settings: an existing tag is never changed by create).
   */
  createTag(tag: string, options: CreateTagOptions): Promise<SegmentTag>;
  /**
   * Atomically moves the tag's max_id up by max(step, stored step) and returns the block
   * between the old and new max_id. Rejects with `UnknownTagError` for a tag never created,
   * `SequenceExhaustedError` when the block would pass 2^63 - 1 (nothing is taken then).
   * `step` defaults to the stored step; the stored step is never changed by this call.
   */
  takeSegment(tag: string, step?: number): Promise<Segment>;
  /**
   * Sets the tag's stored step (the smallest segment a take moves max_id by) and its
   * updated_at atomically, and resolves to the updated tag. max_id is never changed: blocks
   * already taken stay their owners', and every later take moves max_id by max(requested, new
   * step) from where it is (a take concurrent with this call uses the old step or the new one,
   * never a mix). Setting the same step again only touches updated_at. Misuse rejects before
   * any I/O, as `createTag`'s: `RangeError` ("step: expected an integer in [1, 2147483647],
   * got ...") for a step out of range or fractional, `TypeError` for a non-number, either for
   * a malformed tag. Rejects with `UnknownTagError` for a tag never created (nothing is
   * created). A running `SegmentBuffer` learns of the new step through `setMinStep`.
   */
  setStep(tag: string, step: number): Promise<SegmentTag>;
  /** The tag, or null if it does not exist. */
  getTag(tag: string): Promise<SegmentTag | null>;
  /** Every tag, ordered by name. */
  listTags(): Promise<SegmentTag[]>;
  close(): Promise<void>;
}

/**
 * One Flickr-style ticket server: a table per sequence with an auto-increment id and a
 * unique one-character stub; a ticket is `REPLACE INTO ... (stub) VALUES ('a')` then
 * `SELECT LAST_INSERT_ID()` on the same connection (PostgreSQL: `nextval` of a sequence
 * with `INCREMENT BY n START k`). With N servers, server i (1-based) hands out i, i+N, i+2N...
 */
export interface TicketServer {
  /** 'mysql' or 'postgres'. */
  readonly backend: string;
  readonly address: string;
  /**
   * Creates the sequence `tag` and sets this server's increment and offset (MariaDB: the
   * server's auto_increment_increment/offset for the ticket connection's session and globally
   * where permitted; PostgreSQL: the sequence's INCREMENT BY/START). Idempotent.
   */
  setup(tag: string, increment: number, offset: number): Promise<void>;
  /** The next ticket of sequence `tag`: one round trip. */
  next(tag: string): Promise<bigint>;
  close(): Promise<void>;
}

/**
 * A {@link TicketServer} that can also be re-planned safely: what `idforge ticket setup` needs
 * to add a server (or change the increment) without ever reissuing a ticket.
 */
export interface PlannableTicketServer extends TicketServer {
  /**
   * As {@link TicketServer.setup}, and when this call creates the sequence or changes its
   * increment or offset, the first ticket it issues afterwards is greater than `floor`
   * (default 0): pass the largest {@link high} of every server of the sequence. With settings
   * unchanged, `floor` is ignored and nothing changes (idempotent).
   */
  setup(tag: string, increment: number, offset: number, floor?: bigint): Promise<void>;
  /**
   * A number at least as large as every ticket of `tag` this server has issued (the last
   * ticket); 0n when the sequence does not exist here. Validates the tag like `next`.
   */
  high(tag: string): Promise<bigint>;
}

/**
 * A counter in Redis: INCRBY hands out blocks of K numbers. Redis without persistence can
 * restart at 0, so the block must be checked against a durable high-water mark (see
 * {@link DurableMarkStore}) before it is served.
 */
export interface CounterStore {
  readonly backend: string;
  readonly address: string;
  /** Atomically adds `by` to the counter of `tag` and returns the new value. */
  incrBy(tag: string, by: number): Promise<bigint>;
  /** Raises the counter to at least `value` (never lowers it); returns the new value. */
  raiseTo(tag: string, value: bigint): Promise<bigint>;
  /**
   * Creates the counter of `tag` holding `value` (the next block starts above it) unless it
   * exists, atomically; returns `value`. Rejects with `TagExistsError` when it exists, leaving
   * it unchanged, as a table store refuses an existing tag. `idforge seq create` needs it; a
   * store that cannot create a counter ahead of its first block may leave it out.
   */
  create?(tag: string, value: bigint): Promise<bigint>;
  close(): Promise<void>;
}

/** A durable per-tag high-water mark (a table in SQLite or PostgreSQL): only ever raised. */
export interface DurableMarkStore {
  readonly backend: string;
  readonly address: string;
  migrate(): Promise<void>;
  /** The mark, or null if never set. */
  read(tag: string): Promise<bigint | null>;
  /** Sets the mark to max(stored, value), durably, before resolving; returns the new mark. */
  raise(tag: string, value: bigint): Promise<bigint>;
  close(): Promise<void>;
}

/**
 * Where a buffered sequence gets its next block: resolves to a block of about `size` numbers
 * (a segment store may round up to its stored step; a counter gives exactly `size`), owned by
 * the caller alone, above every block it returned before. Rejects with a typed error
 * (`StoreUnavailableError` naming the store, `SequenceExhaustedError`, `UnknownTagError`,
 * `CounterRegressedError`).
 */
export type BlockSource = (size: number) => Promise<NumberRange>;
