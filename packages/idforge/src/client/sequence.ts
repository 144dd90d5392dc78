/**
 * One sequence tag of the service, buffered in the client: two segments in memory (double
 * buffering, as Tinyid's client and Meituan Leaf do), so most numbers cost no round trip.
 *
 *   current [first ...... trigger .................. last]   next [first ... last] | loading
 *            ^ served from here: a compare and an increment per number
 *   when the current segment is `prefetchAt` used (number first + floor(size x prefetchAt) is
 *   handed out), the next one is fetched in the background (POST /v1/sequences/{tag}/segments);
 *   when the current one runs out, the next becomes current.
 *
 * Every segment is a block the service handed to this client alone, so numbers are unique
 * across every client and node of the service; within this object they strictly increase (a
 * segment that is not above the previous one is refused as `ServiceResponseError`).
 *
 * Failure: a fetch fails over between servers inside the pool (servers.ts). When it still
 * fails, the numbers already buffered keep being served, and a background fetch is tried
 * again halfway through what is left of the current segment; a call that finds both buffers
 * empty starts a fetch and rejects with its error (`ServiceUnavailableError`, ...). A segment
 * whose answer was lost is never asked for again: the next fetch gets a new block (a gap,
 * never a duplicate). Calls waiting on an empty buffer share the one fetch in flight.
 *
 * Holds state; safe to share within a process. No timers: background work is one request.
 */
import { ClientClosedError } from './errors.js';
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

const EMPTY = -1n;

/** The largest `batch(count)`. */
const MAX_BATCH = 2 ** 24;

export class ClientSequence {
  /** The tag, as given to `client.sequence(tag)`. */
  readonly tag: string;
  readonly #source: SegmentSource;
  readonly #segmentSize: number;
  /** prefetchAt in millionths, for exact bigint arithmetic. */
  readonly #prefetchPpm: bigint;
  // The current segment: #cur is the next number, #last the last; handing out #trigger starts
  // the background fetch. Every field is set here so the object keeps one shape.
  #cur = 0n;
  #last = EMPTY;
  #trigger = EMPTY;
  #first = 0n;
  #next: Segment | null = null;
  #loading: Promise<void> | null = null;
  /** The last number of the highest segment received: the next one must start above it. */
  #highest = EMPTY;
  #servedBefore = 0n;
  #fetches = 0;
  #segments = 0;
  #failures = 0;
  #waits = 0;
  #closed = false;

  constructor(tag: string, source: SegmentSource, segmentSize: number, prefetchAt: number) {
    this.tag = tag;
    this.#source = source;
    this.#segmentSize = segmentSize;
    this.#prefetchPpm = BigInt(Math.floor(prefetchAt * 1_000_000));
  }

  /**
   * The next number if one is buffered, else `undefined` (and a fetch starts in the
   * background: `await next()` then waits for it). Synchronous, no promise: when a number is
   * buffered this is a compare and an increment. After `close()`, always `undefined`.
   */
  tryNext(): bigint | undefined {
    const c = this.#cur;
    if (c <= this.#last) {
      this.#cur = c + 1n;
      // REF: docs/client.md, sequence.tryNext (warm segment, over 10 M/s): one compare against
      // a precomputed trigger, nothing else on this path.
      if (c === this.#trigger) this.#prefetch(this.#segmentSize);
      return c;
    }
    return this.#refill();
  }

  /**
   * The next number: at once when one is buffered, else after the fetch in flight (or a new
   * one). Rejects with the fetch's error (`ServiceUnavailableError`, `ServiceAuthError`,
   * `ServiceRejectedError` for an unknown tag, `ServiceResponseError`) or `ClientClosedError`.
   */
  next(): Promise<bigint> {
    const v = this.tryNext();
    return v !== undefined ? Promise.resolve(v) : this.#wait(1);
  }

  /**
   * `count` numbers (an integer in [0, 2^24]), strictly increasing: buffered ones first, then
   * fetched (a segment of at least what is still missing). Rejects like {@link next}, and with
   * `TypeError`/`RangeError` for a bad count; the numbers a failed batch had taken are not
   * handed out again (a gap, never a duplicate).
   */
  async batch(count: number): Promise<bigint[]> {
    integer(`sequence("${this.tag}").batch count`, count, 0, MAX_BATCH);
    const out: bigint[] = [];
    while (out.length < count) {
      // When nothing is buffered, wait for a segment of what is missing, not of segmentSize.
      const buffered = this.#cur <= this.#last || this.#next !== null;
      const v = buffered ? this.tryNext() : undefined;
      out.push(v !== undefined ? v : await this.#wait(count - out.length));
    }
    return out;
  }

  stats(): SequenceStats {
    const inCurrent = this.#last === EMPTY ? 0n : this.#cur - this.#first;
    const left = this.#cur <= this.#last ? this.#last - this.#cur + 1n : 0n;
    const next = this.#next === null ? 0n : this.#next.last - this.#next.first + 1n;
    return {
      tag: this.tag,
      served: this.#servedBefore + inCurrent,
      buffered: left + next,
      fetches: this.#fetches,
      segments: this.#segments,
      failures: this.#failures,
      waits: this.#waits,
    };
  }

  /** Drops the buffered numbers (never handed out again) and refuses later calls. */
  close(): void {
    if (this.#last !== EMPTY) this.#servedBefore += this.#cur - this.#first;
    this.#closed = true;
    this.#next = null;
    this.#cur = 0n;
    this.#first = 0n;
    this.#last = EMPTY;
    this.#trigger = EMPTY;
  }

  /** Waits for a fetch of at least `need` numbers and takes one number of it. */
  async #wait(need: number): Promise<bigint> {
    this.#waits++;
    for (;;) {
      if (this.#closed) throw new ClientClosedError(`sequence "${this.tag}" next`);
      if (this.#cur > this.#last && this.#next === null && this.#loading === null) {
        this.#prefetch(Math.max(need, this.#segmentSize));
      }
      const v = this.tryNext();
      if (v !== undefined) return v;
      await this.#loading;
    }
  }

  /** The current segment is used up: the next one's first number, or start a fetch. */
  #refill(): bigint | undefined {
    if (this.#install()) return this.tryNext();
    this.#prefetch(this.#segmentSize);
    return undefined;
  }

  /** Makes the next segment current; false when there is none. */
  #install(): boolean {
    const n = this.#next;
    if (n === null || this.#closed) return false;
    if (this.#last !== EMPTY) this.#servedBefore += this.#cur - this.#first;
    this.#next = null;
    this.#first = n.first;
    this.#cur = n.first;
    this.#last = n.last;
    const size = n.last - n.first + 1n;
    const trigger = n.first + (size * this.#prefetchPpm) / 1_000_000n;
    this.#trigger = trigger > n.last ? n.last : trigger;
    return true;
  }

  /** Starts fetching the next segment, unless one is buffered or loading, or closed. */
  #prefetch(size: number): void {
    if (this.#loading !== null || this.#next !== null || this.#closed) return;
    this.#fetches++;
    const p = this.#load(size);
    // Awaited by waiting calls, if any; a background failure alone is not an unhandled one.
    p.catch(() => undefined);
    this.#loading = p;
  }

  async #load(size: number): Promise<void> {
    try {
      const seg = await this.#source(size, this.#highest);
      this.#highest = seg.last;
      this.#segments++;
      if (!this.#closed) this.#next = seg;
    } catch (e) {
      this.#failures++;
      this.#retryHalfway();
      throw e;
    } finally {
      this.#loading = null;
    }
  }

  /** After a failed fetch: try again in the background halfway through what is left. */
  #retryHalfway(): void {
    if (this.#closed || this.#cur > this.#last) return;
    this.#trigger = this.#cur + (this.#last - this.#cur) / 2n;
  }
}
