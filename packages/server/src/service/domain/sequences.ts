/**
 * The service's sequences: one double-buffered SegmentBuffer per tag, opened on first use and
 * kept; whole segments handed to clients straight from the source (idforge/sequences'
 * `SequenceSource`, opened by @idforge/stores' `openSequenceSource`, as the CLI opens it):
 *
 * - a segment store (sqlite:, postgres://, mysql://): tags are rows an admin creates, each
 *   with a stored step; an unknown tag is a 404, never created by a request for numbers;
 * - Redis counters (redis://) under durable marks: any tag is a counter. Counters have no
 *   stored step: admin routes that create tags or change steps answer 400. Since any caller
 *   can name a new counter, a node keeps buffers (and guarded sources, the source's
 *   `maxTags`) for at most MAX_TRACKED_TAGS of them; a tag past the bound is served from a
 *   block of its own per request, each block still checked against the durable mark.
 */
import {
  assertTag,
  type FormattedBatch,
  type FormattedSequence,
  RunningDeadline,
  type Segment,
  type SegmentBuffer,
  type SegmentBufferSnapshot,
  type SegmentStore,
  type SegmentTag,
  type Sequence,
  type SequenceSource,
  StoreUnavailableError,
  UnknownTagError,
} from 'idforge/sequences';
import { HttpError, isCallerError, ServiceCode } from '../http/errors.js';
import { MAX_TRACKED_TAGS } from '../metrics/metrics.js';
import { FormattedTags } from './formatted.js';

/**
 * The longest a request for sequence numbers waits on the store: for a segment taken for a
 * client, for a buffer's opening, and for a block when both buffers are empty (the buffers'
 * `fetchTimeoutMs`). Then it answers 503 `IDF_STORE_UNAVAILABLE`. Kept below the client's
 * default timeout (DEFAULT_TIMEOUT_MS, 2,000 ms, in packages/idforge/src/client/options.ts; a test compares
 * the two), so a client sees the server's code rather than a timeout of its own.
 */
export const SEQUENCE_WAIT_MS = 1500;

/**
 * Told after every store call for a block (metrics and events): `error` undefined when it
 * succeeded, else a store failure or the sequence's end (`IDF_SEQUENCE_EXHAUSTED`). A caller's
 * error (see {@link isCallerError}) is never told: it is the caller's, not the store's.
 */
export type FetchObserver = (tag: string, seconds: number, error: unknown) => void;

/** A tag with the state of its buffers in this node (null when not opened here). */
export interface TagState {
  readonly tag: SegmentTag;
  readonly buffer: SegmentBufferSnapshot | null;
}

/** A buffer's snapshot with its counters. */
export type BufferState = SegmentBufferSnapshot & {
  readonly served: bigint;
  readonly fetches: number;
  readonly fetchFailures: number;
};

/** A buffer's two segments as JSON: numbers as decimal strings (64-bit, never JSON numbers). */
export function buffersJson(b: SegmentBufferSnapshot): {
  current: { first: string; last: string; next: string } | null;
  next: { first: string; last: string } | null;
} {
  const c = b.current;
  const n = b.next;
  return {
    current:
      c === null ? null : { first: String(c.first), last: String(c.last), next: String(c.next) },
    next: n === null ? null : { first: String(n.first), last: String(n.last) },
  };
}

/** This node was started without a sequence store: every sequence route answers 404. */
export class NoSequencesError extends HttpError {
  constructor() {
    super(
      ServiceCode.NO_SEQUENCES,
      'this node has no sequence store: start it with --sequences URL (sqlite:, postgres://, mysql:// or redis://)',
    );
    this.name = 'NoSequencesError';
  }
}

/** Tag administration (create, step, list, read) asked of Redis counters, which keep none. */
export class CountersKeepNoTagsError extends HttpError {
  constructor(what: string) {
    super(
      ServiceCode.BAD_REQUEST,
      `${what}: Redis counters have no stored tags or steps (every tag is a counter); this applies to segment stores`,
    );
    this.name = 'CountersKeepNoTagsError';
  }
}

/**
 * Holds the open buffers; one per service. A segment store's tags each get a buffer (tags are
 * rows an admin creates); Redis counters get at most `maxBuffers` (any caller can name a new
 * counter), and a tag past them a {@link Sequence} that takes a block per call, keeping
 * nothing.
 */
export class SequenceRegistry {
  readonly #source: SequenceSource | null;
  readonly #observe: FetchObserver;
  readonly #maxBuffers: number;
  readonly #opening = new Map<string, Promise<SegmentBuffer>>();
  readonly #open = new Map<string, SegmentBuffer>();
  readonly #formatted = new FormattedTags(
    (p, what) => this.#within(p, what),
    (tag, seconds, error) => this.#report(tag, seconds, error),
    SEQUENCE_WAIT_MS,
  );

  constructor(
    source: SequenceSource | null,
    observe: FetchObserver,
    maxBuffers: number = MAX_TRACKED_TAGS,
  ) {
    this.#source = source;
    this.#observe = observe;
    this.#maxBuffers = maxBuffers;
  }

  /** The source, or null when this node serves no sequences. */
  get source(): SequenceSource | null {
    return this.#source;
  }

  #need(): SequenceSource {
    if (this.#source === null) {
      throw new NoSequencesError();
    }
    return this.#source;
  }

  #segments(what: string): SegmentStore {
    const store = this.#need().segments;
    if (store === null) {
      throw new CountersKeepNoTagsError(what);
    }
    return store;
  }

  /** The open buffer of `tag`, synchronously, or undefined (then await {@link buffer}). */
  opened(tag: string): SegmentBuffer | undefined {
    return this.#open.get(tag);
  }

  /**
   * The buffer of `tag`, opened once (concurrent callers share the opening); for a counter
   * past `maxBuffers`, a sequence that takes a block per call and keeps nothing. A caller waits
   * at most SEQUENCE_WAIT_MS for the opening (then `StoreUnavailableError`; the opening goes
   * on, and the next request finds the buffer open).
   */
  buffer(tag: string): Promise<Sequence> {
    const open = this.#open.get(tag);
    if (open !== undefined) return Promise.resolve(open);
    const source = this.#need();
    assertTag(tag);
    let p = this.#opening.get(tag);
    if (
      p === undefined &&
      source.segments === null &&
      this.#open.size + this.#opening.size >= this.#maxBuffers
    ) {
      return Promise.resolve(this.#unbuffered(tag));
    }
    if (p === undefined) {
      p = source
        .open(tag, {
          fetchTimeoutMs: SEQUENCE_WAIT_MS,
          onFetch: (e) => this.#report(tag, e.ms / 1000, e.error),
        })
        .then(
          (b) => {
            this.#open.set(tag, b);
            this.#opening.delete(tag);
            return b;
          },
          (error: unknown) => {
            this.#opening.delete(tag);
            throw error;
          },
        );
      this.#opening.set(tag, p);
    }
    return this.#within(p, `opening the sequence "${tag}"`);
  }

  /**
   * `p`, or `StoreUnavailableError` when it has not settled within SEQUENCE_WAIT_MS of time this
   * process ran (a pause of the process is not the store's fault: see RunningDeadline).
   */
  async #within<T>(p: Promise<T>, what: string): Promise<T> {
    const source = this.#need();
    // Settling after the deadline is nobody's to see (a block so taken is wasted, never reissued).
    p.catch(() => undefined);
    if (await new RunningDeadline(SEQUENCE_WAIT_MS).race(p)) return p;
    const why = new Error(`no answer within ${SEQUENCE_WAIT_MS} ms`);
    throw new StoreUnavailableError(source.backend, source.address, what, why);
  }

  /** Numbers of `tag` from a block of their own per call (exactly the numbers asked for). */
  #unbuffered(tag: string): Sequence {
    const batch = async (count: number): Promise<bigint[]> => {
      if (count === 0) return [];
      const b = await this.take(tag, count);
      return Array.from({ length: count }, (_, i) => b.first + BigInt(i));
    };
    return {
      tag,
      tryNext: () => undefined,
      next: async () => (await batch(1))[0] as bigint,
      nextBatch: batch,
      close: () => undefined,
    };
  }

  /** The formatted sequence of a formatted tag, else null (see FormattedTags.of). */
  formatted(tag: string): Promise<FormattedSequence | null> {
    return this.#formatted.of(this.#need(), tag);
  }

  /** `count` numbers of a formatted sequence's current period, within SEQUENCE_WAIT_MS. */
  formattedBatch(seq: FormattedSequence, count: number): Promise<FormattedBatch> {
    return this.#within(seq.nextBatch(count), `numbering "${seq.tag}"`);
  }

  /** A whole block of at least `size` numbers (the stored step when larger), for a client. */
  async take(tag: string, size: number | undefined): Promise<Segment> {
    const source = this.#need();
    assertTag(tag);
    const started = performance.now();
    try {
      const block = await this.#within(source.take(tag, size), `taking a block for "${tag}"`);
      this.#report(tag, (performance.now() - started) / 1000, undefined);
      return block;
    } catch (error) {
      this.#report(tag, (performance.now() - started) / 1000, error);
      throw error;
    }
  }

  #report(tag: string, seconds: number, error: unknown): void {
    if (!isCallerError(error)) this.#observe(tag, seconds, error);
  }

  async create(
    tag: string,
    step: number,
    start: bigint | undefined,
    description: string | undefined,
  ): Promise<SegmentTag> {
    const store = this.#segments('creating a tag');
    assertTag(tag);
    return store.createTag(tag, {
      step,
      ...(start === undefined ? {} : { start }),
      ...(description === undefined ? {} : { description }),
    });
  }

  /** Changes the stored step; this node's open buffer follows at once. */
  async setStep(tag: string, step: number): Promise<SegmentTag> {
    const store = this.#segments('changing a step');
    assertTag(tag);
    const updated = await store.setStep(tag, step);
    this.#open.get(tag)?.setMinStep(step);
    return updated;
  }

  async get(tag: string): Promise<TagState> {
    const store = this.#segments('reading a tag');
    assertTag(tag);
    const record = await store.getTag(tag);
    if (record === null) throw new UnknownTagError(tag, store.backend);
    return { tag: record, buffer: this.#open.get(tag)?.snapshot() ?? null };
  }

  async list(): Promise<TagState[]> {
    const tags = await this.#segments('listing tags').listTags();
    return tags.map((tag) => ({ tag, buffer: this.#open.get(tag.tag)?.snapshot() ?? null }));
  }

  /** Snapshots and counters of every open buffer (no I/O). */
  snapshots(): BufferState[] {
    return [...this.#open.values()].map((b) => {
      const s = b.stats;
      return {
        ...b.snapshot(),
        served: s.served,
        fetches: s.fetches,
        fetchFailures: s.fetchFailures,
      };
    });
  }

  /** Stops the buffers (their remaining numbers are wasted, never reissued) and the source. */
  async close(): Promise<void> {
    for (const b of this.#open.values()) b.close();
    this.#open.clear();
    this.#formatted.close();
    await this.#source?.close();
  }
}
