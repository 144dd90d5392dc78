/**
 * A {@link BlockSource} over a Redis counter (INCRBY blocks of K, a "Redis-backed segment"),
 * guarded by a durable high-water mark so that a counter that moved backwards is never
 * served from.
 *
 * Redis without persistence restarts empty, and FLUSHALL or a manual SET do the same: INCRBY
 * then hands out numbers again that were served before. The guard, per block of `size`:
 *
 *   1. floor = max(the floor this process knows, the durable mark read now)
 *   2. last = INCRBY size; first = last - size + 1
 *   3. first <= floor: the counter moved backwards (regression). Nothing of the block is
 *      served. 'refuse' → CounterRegressedError. 'reseed' → raise the counter to
 *      floor + reseedMargin (never lowering it) and go back to 1, at most maxReseeds times.
 *   4. raise the durable mark to `last` and wait for it to be durable (write-ahead), then
 *      return [first, last]. A crash between 4 and serving wastes the block, never repeats it.
 *
 * Why the mark is read before every INCRBY rather than once at start: a legitimate block is
 * always above every mark committed before its INCRBY (the counter only rose in between), so
 * comparing with a read taken before INCRBY never flags a healthy counter, even when other
 * processes raise the mark concurrently; while a floor known only from this process's own
 * last raise can be stale (an idle process, others far ahead), and a reset counter climbing
 * past that stale floor would go unnoticed. The read is cheap (no write, no fsync); the
 * process-local floor is kept as well, so a mark store that itself lost data still cannot
 * lead this process below what it has seen, and blocks from one source always increase.
 *
 * What stays outside the guard: a block taken from Redis just before the reset whose mark is
 * not yet written when another process checks (a window of one durable write). `reseedMargin`
 * is the room left above the mark for those in-flight blocks; keep it above the processes
 * times their largest block.
 *
 * Calls on one source run one at a time (the next waits for the previous), which keeps the
 * blocks of a source increasing. Not for Redis Cluster replicas: a failover to a replica that
 * lags is a regression like any other, which the guard catches the same way.
 */
import { CounterRegressedError, SequenceExhaustedError } from './errors.js';
import {
  type BlockSource,
  type CounterStore,
  type DurableMarkStore,
  MAX_SEQUENCE_VALUE,
  type NumberRange,
} from './ports.js';
import { assertTag } from './tag.js';

/** Options of {@link counterBlockSource}. */
export interface CounterBlockSourceOptions {
  /**
   * What to do when the counter returns a block at or below the mark: 'reseed' moves the
   * counter above the mark and takes a fresh block; 'refuse' rejects with
   * `CounterRegressedError` until an operator restores the counter. Default 'reseed'.
   * A refused call has still moved the counter by its size (INCRBY cannot be undone), so a
   * counter reset just below a small mark climbs back over it and is served from again:
   * above the mark, hence still safe.
   */
  readonly onRegression?: 'reseed' | 'refuse';
  /**
   * A reseed sets the counter to (mark + max(reseedMargin, size)): room for blocks taken
   * before the reset whose marks were not yet written. Default 1,000,000.
   */
  readonly reseedMargin?: bigint;
  /** Reseeds within one call before giving up with `CounterRegressedError`. Default 3. */
  readonly maxReseeds?: number;
  /** Told of every regression and reseed. Default: standard error. */
  readonly logger?: { warn(message: string): void };
}

/** Counters of a {@link CounterBlockSource}, for metrics. */
export interface CounterSourceStats {
  /** The tag of the sequence. */
  readonly tag: string;
  /** Blocks served (each: a mark read, one INCRBY, one durable raise). */
  readonly blocks: number;
  /** Numbers in those blocks. */
  readonly numbers: bigint;
  /** Blocks the counter returned at or below the mark (none of them served). */
  readonly regressions: number;
  /** Times the counter was raised above the mark. */
  readonly reseeds: number;
  /** The highest mark this process knows: nothing at or below it is served again. */
  readonly floor: bigint;
}

/** A block source with its counters. */
export type CounterBlockSource = BlockSource & { stats(): CounterSourceStats };

/**
 * A block source drawing from `counter` under `tag`, guarded by `marks` under the same tag.
 * Each call resolves to exactly `size` numbers (a positive safe integer; `RangeError`
 * otherwise), or rejects with `CounterRegressedError` ('refuse', or 'reseed' that failed
 * `maxReseeds` times), `SequenceExhaustedError` (the counter or a reseed would pass
 * 2^63 - 1), or the stores' `StoreUnavailableError`. Holds state (the floor, the counters):
 * one per tag per process. Throws `RangeError` for a malformed tag (sequences/tag.ts).
 */
export function counterBlockSource(
  counter: CounterStore,
  marks: DurableMarkStore,
  tag: string,
  options: CounterBlockSourceOptions = {},
): CounterBlockSource {
  assertTag(tag);
  const checked = checkOptions(options);
  const where = `${counter.backend} at ${counter.address}`;
  const guard: Guard = { counter, marks, tag, ...checked, where };
  const state: GuardState = { floor: 0n, blocks: 0, numbers: 0n, regressions: 0, reseeds: 0 };
  let queue: Promise<unknown> = Promise.resolve();
  const source = ((size: number) => {
    if (!Number.isSafeInteger(size) || size < 1) {
      return Promise.reject(
        new RangeError(`block size: expected a positive safe integer, got ${size}`),
      );
    }
    const run = queue.then(() => takeBlock(guard, state, size));
    queue = run.catch(() => undefined);
    return run;
  }) as CounterBlockSource;
  source.stats = () => {
    const { blocks, numbers, regressions, reseeds, floor } = state;
    return { tag, blocks, numbers, regressions, reseeds, floor };
  };
  return source;
}

/** What a source draws from, under which tag, and its checked options. */
interface Guard {
  readonly counter: CounterStore;
  readonly marks: DurableMarkStore;
  readonly tag: string;
  readonly refuse: boolean;
  readonly margin: bigint;
  readonly maxReseeds: number;
  readonly logger: { warn(message: string): void };
  /** The counter's backend and address, for the messages. */
  readonly where: string;
}

/** The floor a source knows and its counters, moved on by each block. */
interface GuardState {
  floor: bigint;
  blocks: number;
  numbers: bigint;
  regressions: number;
  reseeds: number;
}

function checkOptions(
  options: CounterBlockSourceOptions,
): Pick<Guard, 'refuse' | 'margin' | 'maxReseeds' | 'logger'> {
  const refuse = policy(options.onRegression);
  const margin = options.reseedMargin ?? 1_000_000n;
  if (typeof margin !== 'bigint' || margin < 1n) {
    throw new RangeError(`reseedMargin: expected a positive bigint, got ${String(margin)}`);
  }
  const maxReseeds = options.maxReseeds ?? 3;
  if (!Number.isInteger(maxReseeds) || maxReseeds < 0) {
    throw new RangeError(`maxReseeds: expected a non-negative integer, got ${maxReseeds}`);
  }
  const logger = options.logger ?? { warn: (m: string) => console.error(m) };
  return { refuse, margin, maxReseeds, logger };
}

/** One block of `size` numbers, steps 1 to 4 of the module comment, reseeding as it must. */
async function takeBlock(g: Guard, state: GuardState, size: number): Promise<NumberRange> {
  const n = BigInt(size);
  for (let attempt = 0; ; attempt++) {
    const stored = await g.marks.read(g.tag);
    if (stored !== null && stored > state.floor) state.floor = stored;
    const seen = state.floor;
    const last = await g.counter.incrBy(g.tag, size);
    const first = last - n + 1n;
    if (first > seen) {
      const raised = await g.marks.raise(g.tag, last);
      if (raised > state.floor) state.floor = raised;
      state.blocks++;
      state.numbers += n;
      return { first, last };
    }
    const target = reseedTarget(g, state, { last, seen, n, final: attempt === g.maxReseeds });
    const now = await g.counter.raiseTo(g.tag, target);
    state.reseeds++;
    g.logger.warn(
      `idforge: counter "${g.tag}" (${g.where}) returned ${last}, at or below its durable mark ` +
        `${seen}: it moved backwards. Re-seeded it to ${now}; nothing at or below the mark ` +
        'was served.',
    );
  }
}

/** A block the counter returned at or below the mark `seen`. */
interface Regression {
  readonly last: bigint;
  readonly seen: bigint;
  /** The block's size. */
  readonly n: bigint;
  /** Whether the source has reseeded maxReseeds times in this call already. */
  readonly final: boolean;
}

/**
 * Step 3 for a regressed block: counts it, then throws `CounterRegressedError` ('refuse', or
 * the last reseed used up) or `SequenceExhaustedError`, or returns where to raise the counter.
 */
function reseedTarget(g: Guard, state: GuardState, r: Regression): bigint {
  state.regressions++;
  const regressed = new CounterRegressedError(g.tag, r.last, r.seen);
  if (g.refuse || r.final) {
    g.logger.warn(`idforge: ${regressed.message}`);
    throw regressed;
  }
  const { seen, n } = r;
  let room = g.margin; // above the mark: reseedMargin, or the block's size when larger
  if (n > room) room = n;
  const target = seen + room;
  if (target > MAX_SEQUENCE_VALUE - n) throw new SequenceExhaustedError(g.tag, seen);
  return target;
}

function policy(value: unknown): boolean {
  if (value === undefined || value === 'reseed') return false;
  if (value === 'refuse') return true;
  throw new RangeError(`onRegression: expected 'reseed' or 'refuse', got ${String(value)}`);
}
