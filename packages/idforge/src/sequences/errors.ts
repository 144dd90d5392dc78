/**
 * Operational errors of the central sequences (segments, ticket servers, counters). Part of
 * the one catalogue: codes in `errors.ts`, each documented in `docs/errors.md`.
 */
import { IdforgeError } from '../core/index.js';

/**
 * A sequence tag was used before it was made: a segment tag before `idforge seq create` (or
 * `createTag`), or, when `ticketServer` (its address) is given, a ticket sequence on a server
 * before `idforge ticket setup` (or `setupTicketServers`). Tags are never created implicitly.
 */
export class UnknownTagError extends IdforgeError {
  readonly tag: string;
  readonly backend: string;
  /** The ticket server (credentials removed) the ticket sequence is missing on; else undefined. */
  readonly ticketServer: string | undefined;

  constructor(tag: string, backend: string, ticketServer?: string, cause?: unknown) {
    super(
      'IDF_UNKNOWN_TAG',
      ticketServer === undefined
        ? `sequence tag "${tag}" does not exist in the ${backend} store: create it first with ` +
            `\`idforge seq create ${tag} --store URL\` (tags are never created implicitly).`
        : `ticket sequence "${tag}" is not set up on the ${backend} server ${ticketServer}: ` +
            `run \`idforge ticket setup ${tag} --servers URL,URL\` with every server of the ` +
            'sequence (ticket sequences are never created implicitly).',
      { cause },
    );
    this.tag = tag;
    this.backend = backend;
    this.ticketServer = ticketServer;
  }
}

/** A tag was created twice; the existing one is unchanged. */
export class TagExistsError extends IdforgeError {
  readonly tag: string;

  constructor(tag: string) {
    super(
      'IDF_TAG_EXISTS',
      `sequence tag "${tag}" already exists and was left unchanged; use it as it is, or pick ` +
        'another name (`idforge seq show --store URL` lists the tags).',
    );
    this.tag = tag;
  }
}

/** The next block would pass the largest number the sequence can hold. */
export class SequenceExhaustedError extends IdforgeError {
  readonly tag: string;
  readonly maxId: bigint;

  constructor(tag: string, maxId: bigint) {
    super(
      'IDF_SEQUENCE_EXHAUSTED',
      `sequence "${tag}" is exhausted: its max_id ${maxId} leaves no room for another block ` +
        'below 2^63 - 1. Start a new tag; never reset an exhausted one (that reissues numbers).',
    );
    this.tag = tag;
    this.maxId = maxId;
  }
}

/**
 * A gap-free period's row (idforge/sequences' `GapFreeSequence.next(tx)`) holds 2^63 - 1, the
 * largest number its BIGINT column holds: there is no next number, and none was taken. Same
 * code as the segments' exhaustion; `maxId` is that largest number.
 */
export class GapFreeExhaustedError extends SequenceExhaustedError {
  readonly period: string;
  readonly backend: string;

  constructor(tag: string, period: string, backend: string, cause?: unknown) {
    super(tag, 9223372036854775807n);
    this.message =
      `gap-free sequence "${tag}"${period === '' ? '' : ` (period ${period})`} is exhausted on ` +
      `the ${backend} store: its last number is 2^63 - 1, the largest its BIGINT column holds, ` +
      'so nothing was taken. Roll the transaction back and number on under a new tag (a new ' +
      'series); never reset the row, which would reissue numbers.';
    if (cause !== undefined) this.cause = cause;
    this.period = period;
    this.backend = backend;
  }
}

/**
 * A counter (Redis INCRBY) returned a value at or below the durable high-water mark of the
 * blocks already served: the counter restarted (Redis without persistence) or was reset.
 * Nothing at or below the mark is served.
 */
export class CounterRegressedError extends IdforgeError {
  readonly key: string;
  readonly value: bigint;
  readonly markValue: bigint;

  constructor(key: string, value: bigint, markValue: bigint) {
    super(
      'IDF_COUNTER_REGRESSED',
      `counter "${key}" returned ${value}, at or below its durable high-water mark ${markValue}: ` +
        'it moved backwards (a Redis restart without persistence, FLUSHALL, or a manual reset). ' +
        'Nothing was served; re-seed it above the mark (the reseed option does it) or restore it.',
    );
    this.key = key;
    this.value = value;
    this.markValue = markValue;
  }
}

/**
 * A gap-free number (idforge/sequences' `GapFreeSequence.next(tx)`) waited for the row lock of
 * its period longer than the lock timeout: another transaction holds the period's number and
 * has neither committed nor rolled back. Nothing was taken; the caller's transaction must be
 * rolled back (PostgreSQL aborts it) and may be retried.
 */
export class GapFreeTimeoutError extends IdforgeError {
  readonly tag: string;
  readonly period: string;
  readonly backend: string;
  readonly lockTimeoutMs: number;

  constructor(
    tag: string,
    period: string,
    backend: string,
    lockTimeoutMs: number,
    cause?: unknown,
  ) {
    super(
      'IDF_GAP_FREE_TIMEOUT',
      `gap-free number of "${tag}"${period === '' ? '' : ` (period ${period})`} waited more than ` +
        `${lockTimeoutMs} ms for another transaction's lock on the ${backend} store; nothing was ` +
        'taken. Roll the transaction back and retry; keep transactions that take a number short ' +
        '(every writer of the period queues on one row lock until commit), or raise lockTimeoutMs.',
      { cause },
    );
    this.tag = tag;
    this.period = period;
    this.backend = backend;
    this.lockTimeoutMs = lockTimeoutMs;
  }
}
