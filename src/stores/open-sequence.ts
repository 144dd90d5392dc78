/**
 * Opens a `Sequence` for a tag from a store URL, whatever the design behind it: a segment
 * table (sqlite:, postgres://, mysql://) or a Redis counter (redis://) whose blocks are
 * guarded by a durable high-water mark kept in `marks` (sqlite: or postgres://). A
 * composition helper for the CLI, the service and tests: it wires adapters into the
 * sequences layer.
 */
import type { CounterBlockSourceOptions } from '../sequences/counter-source.js';
import { counterBlockSource, openSegmentSequence, SegmentBuffer } from '../sequences/index.js';
import type { SegmentSequenceOptions } from '../sequences/sequence.js';
import { openCounterStore, openMarkStore, openSegmentStore, storeScheme } from './open.js';

/** Options of {@link openSequence}. */
export interface OpenSequenceOptions extends SegmentSequenceOptions {
  /** Redis counters: where the durable marks live. Default $IDFORGE_STORE or sqlite:idforge.db. */
  readonly marks?: string;
  /** Redis counters: the block size (INCRBY K). Default 1000. */
  readonly blockSize?: number;
  /** Redis counters: what to do when the counter moved backwards. Default 'reseed'. */
  readonly onRegression?: CounterBlockSourceOptions['onRegression'];
  readonly connectTimeoutMs?: number;
}

/** A sequence and what closes it with its stores. */
export interface OpenedSequence {
  readonly sequence: SegmentBuffer;
  close(): Promise<void>;
}

/**
 * The sequence of `tag` in the store `url`, with its first block loaded. Rejects with
 * `UnknownTagError` (segment tables: the tag was never created), `StoreUnavailableError`.
 */
export async function openSequence(
  url: string,
  tag: string,
  options: OpenSequenceOptions = {},
): Promise<OpenedSequence> {
  const { marks, blockSize, onRegression, connectTimeoutMs, ...buffer } = options;
  const open = connectTimeoutMs === undefined ? {} : { connectTimeoutMs };
  if (storeScheme(url) !== 'redis') {
    const store = await openSegmentStore(url, open);
    try {
      const sequence = await openSegmentSequence(store, tag, buffer);
      return {
        sequence,
        close: async () => {
          sequence.close();
          await store.close();
        },
      };
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  const counter = await openCounterStore(url, open);
  const markStore = await openMarkStore(
    marks ?? (process.env.IDFORGE_STORE || 'sqlite:idforge.db'),
    open,
  ).catch(async (error: unknown) => {
    await counter.close();
    throw error;
  });
  const sequence = new SegmentBuffer({
    ...buffer,
    tag,
    minStep: blockSize ?? 1000,
    source: counterBlockSource(counter, markStore, tag, onRegression ? { onRegression } : {}),
    backend: counter.backend,
    address: counter.address,
  });
  const close = async () => {
    sequence.close();
    await counter.close();
    await markStore.close();
  };
  try {
    await sequence.warm();
  } catch (error) {
    await close();
    throw error;
  }
  return { sequence, close };
}
