/**
 * The records of a {@link SegmentBuffer} (./segment-buffer.ts): its options, its counters, a
 * snapshot of its two buffers, and the event told after each fetch. Types only; no code.
 */
import type { BackoffOptions } from '../core/internal.js';
import type { BlockSource, NumberRange } from './ports.js';

/** Told after every fetch from the source settles: how long it took and, if it failed, why. */
export interface SegmentFetchEvent {
  readonly tag: string;
  /** From the call to the source to its settling, by the buffer's `now` (ms). */
  readonly ms: number;
  /** The size asked for (the step of that fetch); the store may return a larger block. */
  readonly size: number;
  /** The rejection, when the fetch failed; absent when it succeeded. */
  readonly error?: unknown;
}

/** Options of {@link SegmentBuffer}. Times in ms. */
export interface SegmentBufferOptions {
  /** Name for errors and metrics (the business tag). */
  readonly tag: string;
  readonly source: BlockSource;
  /** The smallest and first step (the stored step of a segment tag); see `setMinStep`. */
  readonly minStep: number;
  /** Largest dynamic step. Default max(minStep, 1,000,000). */
  readonly maxStep?: number;
  /** Adapt the step to consumption. Default true. */
  readonly dynamicStep?: boolean;
  /** How long a segment should last. Default 60,000 (1 min). */
  readonly targetMs?: number;
  /** Share of the current segment used that starts the background fetch. Default 0.1. */
  readonly prefetchAt?: number;
  /** A request waiting on an empty buffer gives up after this. Default 3000. */
  readonly fetchTimeoutMs?: number;
  /** Store named in a timeout error. */
  readonly backend?: string;
  readonly address?: string;
  /** Monotonic milliseconds, for segment durations and fetch times. Default performance.now. */
  readonly now?: () => number;
  /** Delays between failed fetches. Default { initialMs: 50, maxMs: 1000 } (jittered). */
  readonly backoff?: BackoffOptions;
  /**
   * Called after every fetch settles, success or failure (a latency histogram, an error
   * count), once the buffer's state reflects it. Anything it throws (or an async callback's
   * rejection) is ignored: it never reaches the buffer or its callers. Default none.
   */
  readonly onFetch?: (event: SegmentFetchEvent) => void;
}

/** Counters of a {@link SegmentBuffer}. */
export interface SegmentBufferStats {
  readonly tag: string;
  /** Numbers handed out. */
  readonly served: bigint;
  /** Blocks taken from the store (each one round trip). */
  readonly fetches: number;
  readonly fetchFailures: number;
  /** Failed fetches since the last success (0 while the store answers). */
  readonly failingStreak: number;
  /** Requests that found both buffers empty and had to wait on the store. */
  readonly waits: number;
  /** The step the next fetch asks for. */
  readonly step: number;
}

/** What a {@link SegmentBuffer} holds right now (for a dashboard); a copy, taken without I/O. */
export interface SegmentBufferSnapshot {
  readonly tag: string;
  /**
   * The segment being served, [first, last], and `next`, the number `tryNext` returns next;
   * null when none is loaded or it is used up (then `next` below, if any, is served next).
   */
  readonly current: (NumberRange & { readonly next: bigint }) | null;
  /** The second buffer, fetched ahead and not yet served; null if none. */
  readonly next: NumberRange | null;
  /** Whether a fetch from the store is in flight. */
  readonly loading: boolean;
  /** The step the next fetch asks for (as in stats). */
  readonly step: number;
}
