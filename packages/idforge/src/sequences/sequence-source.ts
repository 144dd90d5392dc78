/**
 * Where a sequence's numbers come from, behind one interface: a segment store (Meituan Leaf's
 * 号段: tags are rows an admin creates, each with a stored step) or Redis-style counters
 * under durable marks (any tag is a counter; each block is checked against its mark before it
 * is served, so a counter that lost its data is refused or re-seeded above the mark, never
 * served from twice). `@idforge/stores`' `openSequenceSource(url)` opens one from a URL; the
 * service, the CLI and `openSequence` all go through it.
 */

import {
  type CounterBlockSource,
  type CounterBlockSourceOptions,
  counterBlockSource,
} from './counter-source.js';
import type { CounterStore, DurableMarkStore, Segment, SegmentStore } from './ports.js';
import { SegmentBuffer } from './segment-buffer.js';
import { openSegmentSequence, type SegmentSequenceOptions } from './sequence.js';

/** The block a counter hands out when no size is asked for, and a counter buffer's step. */
export const DEFAULT_COUNTER_BLOCK = 1000;

/** Where the numbers come from: a segment store or counters under durable marks. */
export interface SequenceSource {
  readonly backend: string;
  readonly address: string;
  /**
   * The double buffer of `tag`, its first block loaded (a buffer whose first block failed is
   * closed). Rejects with `UnknownTagError` (a segment store's tag never created),
   * `StoreUnavailableError`, `SequenceExhaustedError`, `CounterRegressedError`.
   */
  open(tag: string, options?: SegmentSequenceOptions): Promise<SegmentBuffer>;
  /** A block of at least `size` numbers (`undefined`: the tag's own step, or the counter block). */
  take(tag: string, size?: number): Promise<Segment>;
  /** A cheap call that fails when the source cannot be reached (readiness). */
  probe(): Promise<void>;
  /** The segment store, for tag administration; null for counters (they keep no tags). */
  readonly segments: SegmentStore | null;
  /** Closes the stores under it. */
  close(): Promise<void>;
}

/** Numbers from a segment table. `close()` closes the store. */
export function segmentSource(store: SegmentStore): SequenceSource {
  return {
    backend: store.backend,
    address: store.address,
    segments: store,
    open: (tag, options = {}) => openSegmentSequence(store, tag, options),
    take: (tag, size) => store.takeSegment(tag, size),
    probe: async () => {
      await store.listTags();
    },
    close: () => store.close(),
  };
}

/** Options of {@link counterSource}. */
export interface CounterSourceOptions extends CounterBlockSourceOptions {
  /** A buffer's step and the block `take` hands out unasked. Default {@link DEFAULT_COUNTER_BLOCK}. */
  readonly blockSize?: number;
  /**
   * Keep the guarded block source (its floor and counters) of at most this many tags; past
   * them, a fresh one per call, which still reads the durable mark. Any caller can name a new
   * counter, so a service bounds this. Default: no bound.
   */
  readonly maxTags?: number;
}

/**
 * Numbers from `counter` under `marks` (one guarded block source per tag, see
 * counterBlockSource). `close()` closes both stores.
 */
export function counterSource(
  counter: CounterStore,
  marks: DurableMarkStore,
  options: CounterSourceOptions = {},
): SequenceSource {
  const {
    blockSize = DEFAULT_COUNTER_BLOCK,
    maxTags = Number.POSITIVE_INFINITY,
    ...guard
  } = options;
  const sources = new Map<string, CounterBlockSource>();
  const of = (tag: string) => {
    let s = sources.get(tag);
    if (s === undefined) {
      s = counterBlockSource(counter, marks, tag, guard);
      if (sources.size < maxTags) sources.set(tag, s);
    }
    return s;
  };
  return {
    backend: counter.backend,
    address: counter.address,
    segments: null,
    async open(tag, openOptions = {}) {
      const buffer = new SegmentBuffer({
        ...openOptions,
        tag,
        minStep: blockSize,
        source: of(tag),
        backend: counter.backend,
        address: counter.address,
      });
      try {
        await buffer.warm();
      } catch (error) {
        buffer.close(); // never handed out: it must not go on retrying in the background
        throw error;
      }
      return buffer;
    },
    take: async (tag, size) => ({ tag, ...(await of(tag)(size ?? blockSize)) }),
    // raiseTo never lowers a counter: on a key of its own it only creates it at 0.
    probe: async () => {
      await counter.raiseTo('__idforge_probe__', 0n);
      await marks.read('__idforge_probe__');
    },
    async close() {
      await counter.close();
      await marks.close();
    },
  };
}
