/**
 * Operational errors of idforge.
 *
 * Two kinds of error are never mixed (docs/architecture.md):
 * - misuse of the API (a wrong argument type or an out-of-range option) throws a plain
 *   `TypeError` or `RangeError` whose message reads "expected X, got Y" (see `assert.ts`);
 * - everything else throws a subclass of {@link IdforgeError} with a stable `code` from
 *   {@link ErrorCode}, the `cause` when there is one, and structured fields naming the numbers
 *   involved. Every code is documented with its fix in `docs/errors.md`; a test keeps the two
 *   in step. A code, once released, is never reused for another meaning.
 */

/**
 * The stable error codes. Retired codes stay listed (commented) and are never reused.
 *
 * The classes pass their code as a literal (`'IDF_CLOCK_ROLLBACK'`), checked against this
 * catalogue by the type {@link ErrorCodeValue}, rather than as `ErrorCode.CLOCK_ROLLBACK`: a
 * bundler cannot inline an object's property, so one thrown error would otherwise carry the
 * whole catalogue into a browser bundle (issue 20; `node --import tsx bench/peers/bundle.ts`).
 */
export const ErrorCode = {
  /** The clock stepped back further than the generator's tolerance. */
  CLOCK_ROLLBACK: 'IDF_CLOCK_ROLLBACK',
  /** The time no longer fits the layout's time field (or is before its epoch). */
  EPOCH_HORIZON: 'IDF_EPOCH_HORIZON',
  /** A monotonic generator ran out of increments within one timestamp. */
  MONOTONIC_OVERFLOW: 'IDF_MONOTONIC_OVERFLOW',
  /** An input string or byte array is not a valid identifier of the expected scheme. */
  INVALID_ID: 'IDF_INVALID_ID',
  /** A Snowflake layout definition is inconsistent. */
  INVALID_LAYOUT: 'IDF_INVALID_LAYOUT',
  /** A coordination or sequence store could not be reached, timed out or failed an operation. */
  STORE_UNAVAILABLE: 'IDF_STORE_UNAVAILABLE',
  /** Every worker ID in the requested range is held by a live lease. */
  NO_FREE_WORKER: 'IDF_NO_FREE_WORKER',
  /** The node's lease deadline passed or its lease was taken: it stopped issuing (fenced). */
  LEASE_LOST: 'IDF_LEASE_LOST',
  /** The node is not ready to issue: no lease yet, or its clock is not yet past the mark. */
  NOT_READY: 'IDF_NOT_READY',
  /** The clock is behind the stored high-water mark of the worker ID by more than tolerated. */
  BEHIND_MARK: 'IDF_BEHIND_MARK',
  /** The node's clock differs from the live fleet's by more than the configured bound. */
  CLOCK_SKEW: 'IDF_CLOCK_SKEW',
  /** Two live instances claim the same worker ID. */
  DUPLICATE_WORKER: 'IDF_DUPLICATE_WORKER',
  /** A sequence tag was used before it was created. */
  UNKNOWN_TAG: 'IDF_UNKNOWN_TAG',
  /** A sequence tag was created twice. */
  TAG_EXISTS: 'IDF_TAG_EXISTS',
  /** A sequence reached the largest number it can hold (2^63 - 1). */
  SEQUENCE_EXHAUSTED: 'IDF_SEQUENCE_EXHAUSTED',
  /** A counter returned a value at or below its durable high-water mark (it moved backwards). */
  COUNTER_REGRESSED: 'IDF_COUNTER_REGRESSED',
  /** A gap-free number waited longer than its lock timeout for another transaction's row lock. */
  GAP_FREE_TIMEOUT: 'IDF_GAP_FREE_TIMEOUT',
  /** The clock did not reach the next tick within the generator's stall timeout. */
  CLOCK_STALLED: 'IDF_CLOCK_STALLED',
  /** A store URL's driver package is not installed (an optional peer dependency). */
  DRIVER_MISSING: 'IDF_DRIVER_MISSING',
  /** A store answered, but idforge's tables (or schema) are not there: `idforge migrate`. */
  STORE_NOT_MIGRATED: 'IDF_STORE_NOT_MIGRATED',
  /** A store refused the URL's credentials (user, password). */
  STORE_AUTH: 'IDF_STORE_AUTH',
  /** The path of a `sqlite:` or `file:` store cannot be used (missing, a directory, no permission). */
  STORE_PATH: 'IDF_STORE_PATH',
  /** idforge/client: no server of the list answered (network error, timeout, 5xx, 429). */
  SERVICE_UNAVAILABLE: 'IDF_SERVICE_UNAVAILABLE',
  /** idforge/client: a server refused the request as invalid (400, 404, other 4xx). */
  SERVICE_REJECTED: 'IDF_SERVICE_REJECTED',
  /** idforge/client: a server refused the token (401 missing or unknown, 403 out of scope). */
  SERVICE_AUTH: 'IDF_SERVICE_AUTH',
  /** idforge/client: a server's answer breaks the contract (not JSON, wrong shape, bad ID). */
  SERVICE_RESPONSE: 'IDF_SERVICE_RESPONSE',
  /** idforge/client: the client was closed; the call was refused or its request aborted. */
  CLIENT_CLOSED: 'IDF_CLIENT_CLOSED',
  /** `idforge bench db`: the target database holds tables the bench did not create. */
  BENCH_TARGET_IN_USE: 'IDF_BENCH_TARGET_IN_USE',
  /** `idforge bench db`: the report could not be written where --out (writeReport's dir) says. */
  BENCH_REPORT_WRITE: 'IDF_BENCH_REPORT_WRITE',
  /** `idforge backfill`: the table has no unique NOT NULL integer or 16-byte key to walk it by. */
  BACKFILL_NO_KEY: 'IDF_BACKFILL_NO_KEY',
  /** `idforge backfill`: no such table, a column of the wrong type, or duplicates in it. */
  BACKFILL_TABLE: 'IDF_BACKFILL_TABLE',
  /** idforge/public: a public ID is altered, made up, of another prefix, or malformed. */
  PUBLIC_ID_INVALID: 'IDF_PUBLIC_ID_INVALID',
  /** idforge/public: a genuine public ID was issued under a key version since retired. */
  PUBLIC_KEY_RETIRED: 'IDF_PUBLIC_KEY_RETIRED',
  /** idforge/public: a public-ID key file (or IDFORGE_PUBLIC_KEYS) cannot be used. */
  PUBLIC_KEYS_INVALID: 'IDF_PUBLIC_KEYS_INVALID',
  /** idforge/hlc: a remote HLC timestamp is further ahead of the local clock than maxDriftMs. */
  HLC_DRIFT: 'IDF_HLC_DRIFT',
  /** idforge/hlc: the HLC counter is full and the physical clock did not pass l in time. */
  HLC_COUNTER_OVERFLOW: 'IDF_HLC_COUNTER_OVERFLOW',
  /** SQLite's idforge_snowflake(): another thread or process mints with this node on the file. */
  NODE_IN_USE: 'IDF_NODE_IN_USE',
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Base class of every operational error idforge throws. */
export class IdforgeError extends Error {
  /** Stable machine-readable code; see `docs/errors.md`. */
  declare readonly code: ErrorCodeValue;

  constructor(code: ErrorCodeValue, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }

  override get name(): string {
    return this.constructor.name;
  }
}

/**
 * The clock moved backwards by more than the tolerance the generator absorbs by waiting.
 * The generator's state is left untouched: retry once the clock has caught up (NTP resync),
 * or raise `toleranceMs` if such steps are expected.
 */
export class ClockRollbackError extends IdforgeError {
  /** How far the clock is behind the last timestamp issued, in milliseconds. */
  readonly driftMs: number;
  /** The backward drift the generator would have waited out, in milliseconds. */
  readonly toleranceMs: number;

  constructor(driftMs: number, toleranceMs: number) {
    super(
      'IDF_CLOCK_ROLLBACK',
      `clock moved backwards by ${driftMs} ms, more than the tolerance of ${toleranceMs} ms; ` +
        'no ID was issued and the generator state is unchanged. Retry after the clock catches up, ' +
        'or raise toleranceMs if steps of this size are expected.',
    );
    this.driftMs = driftMs;
    this.toleranceMs = toleranceMs;
  }
}

/**
 * A Snowflake generator used up its tick's sequence and the clock did not reach the next tick
 * within `stallTimeoutMs` (a frozen VM clock, a broken injected clock). Nothing more was
 * issued; the state is unchanged, so a later call after the clock moves continues safely.
 */
export class ClockStalledError extends IdforgeError {
  /** How long this call waited for the next tick, in milliseconds. */
  readonly waitedMs: number;
  readonly stallTimeoutMs: number;
  /** The clock reading that did not move on, in unix milliseconds. */
  readonly clockMs: number;

  constructor(waitedMs: number, stallTimeoutMs: number, clockMs: number) {
    super(
      'IDF_CLOCK_STALLED',
      `the clock stayed at ${new Date(clockMs).toISOString()} for ${Math.round(waitedMs)} ms ` +
        `(stallTimeoutMs ${stallTimeoutMs}) after this tick's sequence was used up; no ID was ` +
        'issued. Check the clock source (a paused VM, a frozen or broken injected clock); the ' +
        'next call after it moves continues without a duplicate.',
    );
    this.waitedMs = waitedMs;
    this.stallTimeoutMs = stallTimeoutMs;
    this.clockMs = clockMs;
  }
}

/**
 * The current time cannot be represented by the layout: it is before the layout's epoch or
 * past the last instant its time field can hold. Check the clock; for a Snowflake layout,
 * use one with a later epoch or more time bits (a new named layout: released layouts never
 * change). `fix` ends the message: what to do, for the scheme that threw (a fixed format
 * such as ULID or UUIDv7 has only the clock to check; the Snowflake generator names the
 * layout fix).
 */
export class HorizonExceededError extends IdforgeError {
  /** Layout name. */
  declare readonly layout: string;
  /** The time that did not fit, in unix milliseconds. */
  declare readonly unixMs: number;
  /** First unix millisecond the layout cannot represent. */
  declare readonly horizonMs: number;
  /** The layout's epoch in unix milliseconds. */
  declare readonly epochMs: number;

  constructor(
    layout: string,
    unixMs: number,
    epochMs: number,
    horizonMs: number,
    fix = 'check the clock',
  ) {
    // One template, `new Date(…).toISOString()` written out each time: the fewest bytes in a
    // browser bundle, where every generator can throw this (issue 20). A reading past the
    // ±8.64e15 ms a Date holds (a clock at 2^53) is given in ms: toISOString() would throw.
    super(
      'IDF_EPOCH_HORIZON',
      `time ${Math.abs(unixMs) > 8.64e15 ? `${unixMs} ms` : new Date(unixMs).toISOString()} is ${
        unixMs < epochMs
          ? `before the layout's epoch ${new Date(epochMs).toISOString()}`
          : `past the layout's horizon ${new Date(horizonMs).toISOString()}`
      } (layout "${layout}"); ${fix}`,
    );
    // Declared, not class fields (fewer bytes in a browser bundle: every generator can throw
    // this); assigned in the order of the declarations, the order the fields had.
    this.layout = layout;
    this.unixMs = unixMs;
    this.horizonMs = horizonMs;
    this.epochMs = epochMs;
  }
}

/**
 * A monotonic generator exhausted the increments available within one timestamp (ULID's
 * 80-bit randomness reached its maximum). The timestamp is never borrowed from. Wait for the
 * next millisecond, or use the non-monotonic generator.
 */
export class MonotonicOverflowError extends IdforgeError {
  readonly scheme: string;
  /** The timestamp whose increments ran out, in unix milliseconds. */
  readonly unixMs: number;

  constructor(scheme: string, unixMs: number) {
    super(
      'IDF_MONOTONIC_OVERFLOW',
      `${scheme}: monotonic increments exhausted within ${new Date(unixMs).toISOString()}; ` +
        'retry in the next millisecond, or generate without monotonic mode',
    );
    this.scheme = scheme;
    this.unixMs = unixMs;
  }
}

/** Why an input was rejected. */
export type InvalidIdReason =
  | 'type'
  | 'length'
  | 'alphabet'
  | 'format'
  | 'version'
  | 'variant'
  | 'overflow'
  | 'range'
  | 'scheme';

/**
 * An input is not a valid identifier. `reason` says what is wrong, `position` (0-based
 * character or byte index) where, when it is one place.
 */
export class InvalidIdError extends IdforgeError {
  readonly scheme: string;
  readonly reason: InvalidIdReason;
  readonly position: number | undefined;
  readonly input: string;

  constructor(
    scheme: string,
    reason: InvalidIdReason,
    detail: string,
    input: string,
    position?: number,
  ) {
    super('IDF_INVALID_ID', `invalid ${scheme}: ${detail}`);
    this.scheme = scheme;
    this.reason = reason;
    this.position = position;
    this.input = input;
  }
}

/** A Snowflake layout definition is inconsistent; `field` names the offending part. */
export class InvalidLayoutError extends IdforgeError {
  readonly layout: string;
  readonly field: string | undefined;

  constructor(layout: string, detail: string, field?: string) {
    super('IDF_INVALID_LAYOUT', `invalid layout "${layout}": ${detail}`);
    this.layout = layout;
    this.field = field;
  }
}
