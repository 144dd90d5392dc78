/**
 * The service's sequences: one double-buffered SegmentBuffer per tag, opened on first use and
 * kept, over the segment store; whole segments handed to clients straight from the store. Tags
 * are never created by a request for numbers (an unknown tag is a 404); admins create them.
 */
import { UnknownTagError } from '../core/index.js';
import {
  assertTag,
  openSegmentSequence,
  type Segment,
  type SegmentBuffer,
  type SegmentBufferSnapshot,
  type SegmentStore,
  type SegmentTag,
} from '../sequences/index.js';
import { HttpError, ServiceCode } from './errors.js';

/** Told after every store call for a segment (metrics and events). */
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

/** Holds the open buffers; one per service. */
export class SequenceRegistry {
  readonly #store: SegmentStore | null;
  readonly #observe: FetchObserver;
  readonly #opening = new Map<string, Promise<SegmentBuffer>>();
  readonly #open = new Map<string, SegmentBuffer>();

  constructor(store: SegmentStore | null, observe: FetchObserver) {
    this.#store = store;
    this.#observe = observe;
  }

  get store(): SegmentStore | null {
    return this.#store;
  }

  #need(): SegmentStore {
    if (this.#store === null) {
      throw new HttpError(
        404,
        ServiceCode.NO_SEQUENCES,
        'this node has no sequence store: start it with --sequences URL (sqlite:, postgres:// or mysql://)',
      );
    }
    return this.#store;
  }

  /** The open buffer of `tag`, synchronously, or undefined (then await {@link buffer}). */
  opened(tag: string): SegmentBuffer | undefined {
    return this.#open.get(tag);
  }

  /** The buffer of `tag`, opened once (concurrent callers share the opening). */
  buffer(tag: string): Promise<SegmentBuffer> {
    const open = this.#open.get(tag);
    if (open !== undefined) return Promise.resolve(open);
    const store = this.#need();
    assertTag(tag);
    let p = this.#opening.get(tag);
    if (p === undefined) {
      p = openSegmentSequence(store, tag, {
        onFetch: (e) => this.#observe(e.tag, e.ms / 1000, e.error),
      }).then(
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
    return p;
  }

  /** A whole segment of at least `size` numbers (the stored step when larger), for a client. */
  async take(tag: string, size: number | undefined): Promise<Segment> {
    const store = this.#need();
    assertTag(tag);
    const started = performance.now();
    try {
      const segment = await store.takeSegment(tag, size);
      this.#observe(tag, (performance.now() - started) / 1000, undefined);
      return segment;
    } catch (error) {
      this.#observe(tag, (performance.now() - started) / 1000, error);
      throw error;
    }
  }

  async create(
    tag: string,
    step: number,
    start: bigint | undefined,
    description: string | undefined,
  ): Promise<SegmentTag> {
    const store = this.#need();
    assertTag(tag);
    return store.createTag(tag, {
      step,
      ...(start === undefined ? {} : { start }),
      ...(description === undefined ? {} : { description }),
    });
  }

  /** Changes the stored step; this node's open buffer follows at once. */
  async setStep(tag: string, step: number): Promise<SegmentTag> {
    const store = this.#need();
    assertTag(tag);
    const updated = await store.setStep(tag, step);
    this.#open.get(tag)?.setMinStep(step);
    return updated;
  }

  async get(tag: string): Promise<TagState> {
    const store = this.#need();
    assertTag(tag);
    const record = await store.getTag(tag);
    if (record === null) throw new UnknownTagError(tag, store.backend);
    return { tag: record, buffer: this.#open.get(tag)?.snapshot() ?? null };
  }

  async list(): Promise<TagState[]> {
    const tags = await this.#need().listTags();
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

  /** Stops the buffers (their remaining numbers are wasted, never reissued) and the store. */
  async close(): Promise<void> {
    for (const b of this.#open.values()) b.close();
    this.#open.clear();
    await this.#store?.close();
  }
}
