/**
 * The clock high-water mark policy: a node that takes a worker ID issues nothing until its
 * clock is past the mark stored for that ID, so that a clock rewound across a restart (or a
 * worker ID moved to a host whose clock is behind) never reissues a timestamp.
 *
 * The mark is an exclusive upper bound on the tick start of every ID issued under the worker
 * ID, written ahead: a node persists a reservation before it issues IDs up to it (see
 * node-fence.ts). Pure functions; the node does the waiting (node-activation.ts).
 */
import type { Layout } from '../core/index.js';
import { BehindMarkError } from './errors.js';

/** The first tick start at or after `ms`: IDs may be issued from there on. */
export function ceilToTick(layout: Layout, ms: number): number {
  const ticks = Math.ceil((ms - layout.epochMs) / layout.unitMs);
  return layout.epochMs + ticks * layout.unitMs;
}

/** The exclusive mark after issuing an ID in the tick starting at `tickStartMs`. */
export function markAfterTick(layout: Layout, tickStartMs: number): number {
  return tickStartMs + layout.unitMs;
}

/**
 * How long to wait before issuing under a worker ID whose stored mark is `markMs` (null: none
 * ever stored), given the clock reads `nowMs`: 0 when the clock is past it, else the gap.
 * Throws {@link BehindMarkError} when the gap exceeds `toleranceMs`.
 */
export function waitForMark(
  layout: Layout,
  workerId: number,
  markMs: number | null,
  nowMs: number,
  toleranceMs: number,
): number {
  if (markMs === null) return 0;
  const from = ceilToTick(layout, markMs);
  const gap = from - nowMs;
  if (gap <= 0) return 0;
  if (gap > toleranceMs) throw new BehindMarkError(workerId, from, nowMs, toleranceMs);
  return gap;
}
