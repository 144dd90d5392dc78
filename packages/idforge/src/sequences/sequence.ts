/**
 * A `Sequence` per business tag over a segment store: the double buffer of segment-buffer.ts
 * drawing blocks with `takeSegment`, starting from the tag's stored step.
 */
import { UnknownTagError } from './errors.js';
import type { SegmentStore } from './ports.js';
import { SegmentBuffer } from './segment-buffer.js';
import type { SegmentBufferOptions } from './segment-buffer-types.js';

/** What every sequence offers: a synchronous fast path and promises when it must wait. */
export interface Sequence {
  readonly tag: string;
  /** A buffered number, synchronously, or undefined when none is (then await next()). */
  tryNext(): bigint | undefined;
  next(): Promise<bigint>;
  nextBatch(count: number): Promise<bigint[]>;
  close(): void;
}

/** Options of {@link openSegmentSequence}: the buffer's, less what the tag provides. */
export type SegmentSequenceOptions = Omit<
  SegmentBufferOptions,
  'tag' | 'source' | 'minStep' | 'backend' | 'address'
>;

/**
 * A sequence for `tag`, loaded with its first segment; its minimum step is the tag's stored
 * step at opening (after `SegmentStore.setStep`, call the buffer's `setMinStep`; the store
 * applies the new step to every take anyway). Rejects with `UnknownTagError` when the tag was
 * never created (tags are not created at request time), `StoreUnavailableError` when the
 * store is down, `SequenceExhaustedError` when the tag has no room for a block; a buffer whose
 * first block failed is closed, nothing of it goes on fetching.
 */
export async function openSegmentSequence(
  store: SegmentStore,
  tag: string,
  options: SegmentSequenceOptions = {},
): Promise<SegmentBuffer> {
  const record = await store.getTag(tag);
  if (record === null) throw new UnknownTagError(tag, store.backend);
  const buffer = new SegmentBuffer({
    ...options,
    tag,
    minStep: record.step,
    source: (size) => store.takeSegment(tag, size),
    backend: store.backend,
    address: store.address,
  });
  await warmOrClose(buffer);
  return buffer;
}

/**
 * Loads the first segment of `buffer`; when that fails, closes it (a buffer its caller never
 * gets must not go on retrying in the background) and rejects with the failure.
 */
async function warmOrClose(buffer: SegmentBuffer): Promise<void> {
  try {
    await buffer.warm();
  } catch (error) {
    buffer.close();
    throw error;
  }
}
