/**
 * What the SQL engines of `idforge bench db` share: the name every table of the bench starts
 * with, and the `sequence` scheme's numbers, drawn from a segment table the bench creates
 * beside its tables (the idforge segment store of that engine, as an application would use it).
 */
import type { BenchSequence } from 'idforge/bench';
import type { SegmentStore } from 'idforge/sequences';
import { openSegmentSequence } from 'idforge/sequences';

/** Every table the bench creates is named idforge_bench_*: it owns those and only those. */
export const BENCH_PREFIX = 'idforge_bench';

/** Segment size of the bench's sequence: one take per 1000 numbers, as Leaf's default step. */
const BENCH_SEGMENT_STEP = 1000;

/**
 * A sequence over `store` (migrated here, its tag created starting at 1 when missing), handing
 * out batches from the double buffer. `close` stops the buffer; the store stays the caller's.
 */
export async function segmentBenchSequence(
  store: SegmentStore,
  tag: string,
): Promise<BenchSequence> {
  await store.migrate();
  if ((await store.getTag(tag)) === null) {
    await store.createTag(tag, { step: BENCH_SEGMENT_STEP, description: 'idforge bench db' });
  }
  const buffer = await openSegmentSequence(store, tag);
  return {
    nextBatch: (count) => buffer.nextBatch(count),
    close: async () => buffer.close(),
  };
}
