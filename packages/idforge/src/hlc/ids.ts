/**
 * 64-bit IDs that respect happened-before: a Snowflake-style layout whose time and sequence
 * fields hold a hybrid logical clock's `(l, c)`, with the node least significant.
 */
import {
  type Clock,
  decompose,
  defineLayout,
  HorizonExceededError,
  type Layout,
} from '../core/index.js';
import { assertInteger, rangeError, typeError } from '../core/internal.js';
import { HlcState, type HlcStats } from './state.js';
import { hlcSettings } from './step.js';
import type { HlcTimestamp } from './timestamp.js';

/**
 * `hlc`: the HLC ID layout, from 2025-01-01T00:00:00Z (the default layout's epoch, so the
 * horizon is the same: 2094).
 * ```
 *  63  62                 22 21        10 9       0
 * +---+---------------------+------------+---------+
 * | 0 |       time 41       | counter 12 | node 10 |
 * +---+---------------------+------------+---------+
 * ```
 * `time` is the HLC's `l` (ms since the epoch), `counter` its `c` (role 'sequence'), `node`
 * the generator's node. The node is the LEAST significant field, unlike the default layout's
 * 41/10/12: IDs then compare by `(l, c)` first, so an ID whose timestamp is larger sorts
 * after, whatever the two nodes. With the node above the counter, an ID of node 1 minted
 * after receiving a message from node 2 in the same `l` could sort before node 2's earlier
 * IDs. The node bits only break ties between equal `(l, c)` of different nodes (concurrent
 * events), and make those IDs distinct.
 */
export const HLC_LAYOUT: Layout = defineLayout({
  name: 'hlc',
  epoch: '2025-01-01T00:00:00Z',
  fields: [
    { name: 'time', bits: 41 },
    { name: 'counter', bits: 12, role: 'sequence' },
    { name: 'node', bits: 10 },
  ],
  source:
    'idforge: hybrid logical clock (l, c) of Kulkarni, Demirbas et al., "Logical Physical Clocks" (OPODIS 2014) above the node',
  description:
    'HLC IDs: 41-bit l (ms since 2025), 12-bit counter c, 10-bit node; respects happened-before',
});

/** Options of {@link HlcIdGenerator}. Validated at construction, never after. */
export interface HlcIdGeneratorOptions {
  /** This generator's node, an integer in [0, 1023], unique among live generators. No default. */
  readonly node: number;
  /** The physical clock. Default the core's shared monotonic clock (wall-anchored). */
  readonly clock?: Clock;
  /** As `HybridLogicalClockOptions.maxDriftMs`: a remote lead beyond it is refused. Default 500. */
  readonly maxDriftMs?: number;
  /**
   * As `HybridLogicalClockOptions.maxWaitMs`: the longest one call waits for the physical
   * clock when the 4,096 counter values of an `l` are used up. Default 1000.
   */
  readonly maxWaitMs?: number;
  /**
   * Called before the first ID of each new `l` with `l` in unix ms; throwing refuses it (the
   * error reaches the caller, the state is untouched), as SnowflakeGenerator's `admit`: the
   * coordination layer fences a node with it (lease deadline, high-water mark). Default none.
   */
  readonly admit?: (lMs: number) => void;
  /**
   * The HLC state to start from: after a restart, a high-water mark at or above the last `l`
   * issued (see the class comment). Default `{ l: 0, c: 0 }`.
   */
  readonly initial?: HlcTimestamp;
}

const OPTIONS = new Set('node clock maxDriftMs maxWaitMs admit initial'.split(' '));
const MAX_BATCH = 2 ** 24;
const EPOCH = HLC_LAYOUT.epochMs;
const MAX_TICK = HLC_LAYOUT.maxTick;
const MAX_C = HLC_LAYOUT.maxSequence;
const TIME_SHIFT = HLC_LAYOUT.timeField.shiftBig;
const C_SHIFT = HLC_LAYOUT.sequenceField.shiftBig;

/**
 * Issues {@link HLC_LAYOUT} IDs for one node from a hybrid logical clock: each ID is a local
 * event, stamped `(l, c)` by the paper's algorithm, so IDs of one generator strictly
 * increase, and an ID minted after {@link receive}(t) is greater than every ID whose
 * timestamp is at most `t`: in particular every ID the sender minted before sending `t`
 * (its {@link last}). IDs of concurrent events keep an arbitrary but consistent order.
 *
 * Unique: a generator never repeats an `(l, c)`, and live generators have distinct nodes.
 * After a restart, `l` may still be ahead of the physical clock (a peer's accepted lead, up
 * to `maxDriftMs`): restore `initial` from a high-water mark, fence with `admit`, or wait
 * `maxDriftMs` before minting under the same node.
 *
 * Throws {@link HlcDriftError}, HlcCounterOverflowError (4,096 IDs per `l`, then it waits up
 * to `maxWaitMs` for the next ms), `HorizonExceededError` (an `l` before 2025 or past the
 * layout's horizon), or what `admit` throws; the state is then unchanged. Construction
 * throws `TypeError`/`RangeError` on a bad option (unknown ones included). Holds state; one
 * instance per node. Synchronous, so safe within one JavaScript thread.
 */
export class HlcIdGenerator {
  /** The node field of every ID. */
  readonly node: number;
  readonly layout: Layout;
  readonly #h: HlcState;
  readonly #admit: ((lMs: number) => void) | undefined;
  readonly #nodeBits: bigint;
  /** The `l` last admitted (and issued an ID), -1 before the first. */
  #admitted: number;
  /** `(l - epoch) << 22 | node` of the admitted `l`. */
  #base: bigint;

  constructor(options: HlcIdGeneratorOptions) {
    if (typeof options !== 'object' || options === null) {
      throw typeError('HlcIdGenerator options', 'an object with a node', options);
    }
    for (const key of Object.keys(options)) {
      if (!OPTIONS.has(key)) {
        throw rangeError('HlcIdGenerator options', `only ${[...OPTIONS].join(', ')}`, key);
      }
    }
    this.node = assertInteger('HlcIdGenerator node', options.node, 0, 1023);
    this.layout = HLC_LAYOUT;
    this.#h = new HlcState(hlcSettings('HlcIdGenerator', options, 12));
    if (options.admit !== undefined && typeof options.admit !== 'function') {
      throw typeError('HlcIdGenerator admit', 'a function', options.admit);
    }
    this.#admit = options.admit;
    this.#nodeBits = BigInt(this.node);
    this.#admitted = -1;
    this.#base = 0n;
  }

  /** The next ID, greater than every ID this generator issued before. Throws as the class says. */
  next(): bigint {
    // The common case: the physical clock has not passed l (same ms), l is admitted and the
    // counter has room: the paper's send event is c + 1, without allocating.
    const h = this.#h;
    if (h.s.clock.now() <= h.l && h.l === this.#admitted && h.c < MAX_C) {
      h.c++;
      h.issued++;
      return this.#base | (BigInt(h.c) << C_SHIFT);
    }
    const next = h.advance();
    checkHorizon(next.l);
    if (next.l !== this.#admitted) {
      this.#admit?.(next.l);
      this.#admitted = next.l;
      this.#base = (BigInt(next.l - EPOCH) << TIME_SHIFT) | this.#nodeBits;
    }
    h.commit(next);
    h.issued++;
    return this.#base | (BigInt(next.c) << C_SHIFT);
  }

  /**
   * `count` (an integer in [0, 2^24]) IDs in increasing order. Throws as {@link next}; IDs
   * issued before a throw are not returned but are never issued again.
   */
  batch(count: number): bigint[] {
    assertInteger('batch count', count, 0, MAX_BATCH);
    const out: bigint[] = new Array(count);
    for (let i = 0; i < count; i++) out[i] = this.next();
    return out;
  }

  /**
   * Merges a peer's timestamp (the receipt of its message): every ID minted afterwards is
   * greater than every ID stamped at or below `remote`. Throws `TypeError`/`RangeError` when
   * `remote` is not an HLC timestamp, {@link HlcDriftError} when it is more than
   * `maxDriftMs` ahead of the physical clock, `HorizonExceededError` when it is past the
   * layout's horizon, HlcCounterOverflowError; the state is then unchanged.
   */
  receive(remote: HlcTimestamp): void {
    this.#h.receive('HlcIdGenerator', remote, checkHorizon);
  }

  /** The HLC state: the latest timestamp issued or received. Send it with a message. */
  get last(): HlcTimestamp {
    return this.#h.last;
  }

  /** A snapshot of the counters (`issued` counts IDs). */
  get stats(): HlcStats {
    return this.#h.stats;
  }
}

function checkHorizon(l: number): void {
  const tick = l - EPOCH;
  if (tick < 0 || tick > MAX_TICK) {
    throw new HorizonExceededError(HLC_LAYOUT.name, l, EPOCH, HLC_LAYOUT.horizonMs);
  }
}

/**
 * The HLC timestamp `(l, c)` of an {@link HLC_LAYOUT} ID (a bigint or its decimal text).
 * Throws `TypeError` for another type and `InvalidIdError` for text that is not a decimal ID
 * or an ID outside the layout's range. Pure.
 */
export function hlcOfId(id: bigint | string): HlcTimestamp {
  const d = decompose(HLC_LAYOUT, id);
  return { l: d.unixMs, c: d.fields.counter! };
}
