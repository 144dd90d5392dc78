/**
 * One sequence tag of the service, buffered in the client: two segments in memory (double
 * buffering, as Tinyid's client and Meituan Leaf do), so most numbers cost no round trip.
 *
 *   current [first ...... trigger .................. last]   next [first ... last] | loading
 *            ^ served from here: a compare and an increment per number
 *   when number `first + floor(size x prefetchAt)` of the current segment is handed out, the
 *   next one is fetched in the background (POST /v1/sequences/{tag}/segments); prefetchAt 0
 *   fetches it as a segment becomes current; when the current one runs out, the next becomes
 *   current.
 *
 * The double buffer is the one the stores' segment buffer runs (../sequences/double-buffer.ts):
 * the same prefetch trigger, back-off and close. This class adds the segment size and the
 * wire: each fetch asks for a block above the last one received.
 *
 * Every segment is a block the service handed to this client alone, so numbers are unique
 * across every client and node of the service; within this object they strictly increase (a
 * segment that is not above the previous one is refused as `ServiceResponseError`).
 *
 * Failure: a fetch fails over between servers inside the pool (servers.ts). When it still
 * fails, the numbers already buffered keep being served. A service that could not be reached
 * (`ServiceUnavailableError`) is asked again in the background after a jittered back-off
 * (25-50 ms, growing to 0.5-1 s), so the buffer refills by itself once a server answers; any
 * other failure (a refusal, an answer that breaks the contract) would only be repeated, so
 * nothing is fetched until a call asks. A call that finds both buffers empty waits for the
 * fetch in flight, or the one the back-off starts, or starts one, and rejects with its error
 * if it fails (`ServiceUnavailableError`, ...). A segment whose answer was lost is never asked
 * for again: the next fetch gets a new block (a gap, never a duplicate). Calls waiting on an
 * empty buffer share the one fetch in flight.
 *
 * Holds state; safe to share within a process. Its one timer, the back-off's, is unref'd
 * while no call waits on it, and cleared by close().
 */
import { DoubleBuffer } from '../sequences/double-buffer.js';
import { ClientClosedError, ServiceUnavailableError } from './errors.js';
import { integer } from './options.js';
import type { Segment } from './wire.js';

/**
 * Fetches a block of at least `size` numbers (the server may round it up) whose first number
 * is above `after`, else rejects with `ServiceResponseError` naming the server.
 */
export type SegmentSource = (size: number, after: bigint) => Promise<Segment>;

/** Counters of a {@link ClientSequence}, as returned by `stats()`. */
export interface SequenceStats {
  readonly tag: string;
  /** Numbers handed out. */
  readonly served: bigint;
  /** Numbers buffered and not yet handed out (current and next segment). */
  readonly buffered: bigint;
  /** Segment fetches started (each one request, failover included). */
  readonly fetches: number;
  /** Segments received. */
  readonly segments: number;
  /** Fetches that failed on every server. */
  readonly failures: number;
  /** Calls that found both buffers empty and waited for a fetch. */
  readonly waits: number;
}

/** The largest `batch(count)`. */
const MAX_BATCH = 2 ** 24;

export class ClientSequence {
  /** The tag, as given to `client.sequence(tag)`. */
  readonly tag: string;
  readonly #buffer: DoubleBuffer;

  constructor(tag: string, source: SegmentSource, segmentSize: number, prefetchAt: number) {
    this.tag = tag;
    this.#buffer = new DoubleBuffer({
      fetch: (need, after) => source(Math.max(need, segmentSize), after),
      prefetchAt,
      backoff: { initialMs: 50, maxMs: 1000 },
      // Only unavailability passes: a refusal or a broken answer would come back the same.
      isFinal: (error) => !(error instanceof ServiceUnavailableError),
      // The pool has already tried every server: the call gets that outcome.
      waitThroughFailures: false,
      closedError: () => new ClientClosedError(`sequence "${tag}" next`),
    });
  }

  /**
   * The next number if one is buffered, else `undefined` (and a fetch starts in the
   * background, unless the last one failed with a refusal: `await next()` then asks). Synchronous,
   * no promise: when a number is buffered this is a compare and an increment. After
   * `close()`, always `undefined`.
   */
  tryNext(): bigint | undefined {
    return this.#buffer.tryNext();
  }

  /**
   * The next number: at once when one is buffered, else after the fetch in flight (or a new
   * one). Rejects with the fetch's error (`ServiceUnavailableError`, `ServiceAuthError`,
   * `ServiceRejectedError` for an unknown tag, `ServiceResponseError`) or `ClientClosedError`.
   */
  next(): Promise<bigint> {
    return this.#buffer.next();
  }

  /**
   * `count` numbers (an integer in [0, 2^24]), strictly increasing: buffered ones first, then
   * fetched (a segment of at least what is still missing). Rejects like {@link next}, and with
   * `TypeError`/`RangeError` for a bad count; the numbers a failed batch had taken are not
   * handed out again (a gap, never a duplicate).
   */
  async batch(count: number): Promise<bigint[]> {
    integer(`sequence("${this.tag}").batch count`, count, 0, MAX_BATCH);
    return this.#buffer.batch(count);
  }

  stats(): SequenceStats {
    const c = this.#buffer.counts;
    return {
      tag: this.tag,
      served: c.served,
      buffered: c.buffered,
      fetches: c.started,
      segments: c.received,
      failures: c.failures,
      waits: c.waits,
    };
  }

  /** Drops the buffered numbers (never handed out again), ends waiting calls and refuses later ones. */
  close(): void {
    this.#buffer.close();
  }
}
