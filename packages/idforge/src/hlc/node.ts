/**
 * HLC IDs from a coordinated node: idforge/coord's `createSnowflakeNode` with layout
 * {@link HLC_LAYOUT} and `generator: hlc.factory` leases the worker ID, fences it and records
 * its high-water mark, as for Snowflake IDs; {@link HlcNodeClock} gives it an
 * {@link HlcIdGenerator} on each lease and keeps the clock's state across leases. Typed
 * structurally against coord's `NodeGenerator` and `NodeGeneratorInit`: this layer imports
 * only the core, so it stays browser-safe.
 */
import type { Clock, SnowflakeStats } from '../core/index.js';
import { assertNumber, NotReadyError, rangeError, typeError } from '../core/internal.js';
import { HlcIdGenerator } from './ids.js';
import type { HlcTimestamp } from './timestamp.js';

/** What a coordinated node gives its generator on each lease (of coord's NodeGeneratorInit). */
export interface HlcNodeInit {
  /** Every node field's value: on {@link HLC_LAYOUT}, `node` is the leased worker ID. */
  readonly fields: Readonly<Record<string, number>>;
  /** The node's clock, the HLC's physical clock. */
  readonly clock: Clock;
  /** Called before the first ID of each new `l` (unix ms); throws to refuse: the fence. */
  readonly admit: (lMs: number) => void;
}

function noGene(gene: unknown): void {
  if (gene !== undefined) throw new RangeError('HLC IDs: expected no gene (layout hlc has none)');
}

/**
 * One {@link HlcIdGenerator} as a node's generator (coord's `NodeGenerator`): the node fences
 * it through the generator's `admit`, and reads its counters as a Snowflake generator's,
 * `lastTick` being the `l` of the last ID (what the node's high-water mark records). A gene
 * is refused with `RangeError` (layout hlc has no gene field). Holds state; one per lease.
 */
export class HlcNodeGenerator {
  readonly generator: HlcIdGenerator;
  readonly nodeFields: Readonly<Record<string, number>>;
  #lastId = -1n;

  constructor(generator: HlcIdGenerator, nodeFields: Readonly<Record<string, number>>) {
    if (!(generator instanceof HlcIdGenerator)) {
      throw typeError('HlcNodeGenerator generator', 'an HlcIdGenerator', generator);
    }
    this.generator = generator;
    this.nodeFields = nodeFields;
  }

  next(gene?: unknown): bigint {
    noGene(gene);
    const id = this.generator.next();
    this.#lastId = id;
    return id;
  }

  batch(count: number, gene?: unknown): bigint[] {
    noGene(gene);
    const ids = this.generator.batch(count);
    if (ids.length > 0) this.#lastId = ids[ids.length - 1]!;
    return ids;
  }

  get stats(): SnowflakeStats {
    const s = this.generator.stats;
    const shift = this.generator.layout.timeField.shiftBig;
    return {
      issued: s.issued,
      exhaustionWaits: s.waits,
      rollbackWaits: 0,
      lastTick: this.#lastId < 0n ? -1 : Number(this.#lastId >> shift),
    };
  }
}

/** Options of {@link HlcNodeClock}. Validated at construction, never after. */
export interface HlcNodeClockOptions {
  /** As `HlcIdGeneratorOptions.maxDriftMs`: a remote lead beyond it is refused. Default 500. */
  readonly maxDriftMs?: number;
  /** As `HlcIdGeneratorOptions.maxWaitMs`: the longest wait for a full counter. Default 1000. */
  readonly maxWaitMs?: number;
}

const OPTIONS = new Set(['maxDriftMs', 'maxWaitMs']);

/**
 * The hybrid logical clock of one coordinated node, across its worker-ID leases: pass
 * {@link factory} as `createSnowflakeNode`'s `generator` (layout {@link HLC_LAYOUT}). Each
 * lease gets a new {@link HlcNodeGenerator} that starts from the state the previous one
 * reached, so a lease lost and taken again forgets nothing it issued or received.
 *
 * Construction throws `TypeError`/`RangeError` on a bad option (unknown ones included).
 * Holds state; one per node. Synchronous, so safe within one JavaScript thread.
 */
export class HlcNodeClock {
  readonly #options: HlcNodeClockOptions;
  #current: HlcNodeGenerator | null = null;

  constructor(options: HlcNodeClockOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw typeError('HlcNodeClock options', 'an object', options);
    }
    const checked: { maxDriftMs?: number; maxWaitMs?: number } = {};
    for (const [key, value] of Object.entries(options)) {
      if (!OPTIONS.has(key)) {
        throw rangeError('HlcNodeClock options', `only ${[...OPTIONS].join(', ')}`, key);
      }
      // Checked now, so that a bad value fails here rather than at the first lease.
      if (value !== undefined)
        checked[key as 'maxDriftMs'] = assertNumber(`HlcNodeClock ${key}`, value, 0);
    }
    this.#options = checked;
  }

  /**
   * The node's generator factory (coord's `NodeGeneratorFactory`): a generator for the
   * leased `fields.node`, on the node's clock and fence, from the state before. Throws as
   * `new HlcIdGenerator` does for a node field outside [0, 1023].
   */
  readonly factory = (init: HlcNodeInit): HlcNodeGenerator => {
    const previous = this.#current?.generator.last ?? null;
    const generator = new HlcIdGenerator({
      node: init.fields.node as number,
      clock: init.clock,
      admit: init.admit,
      ...this.#options,
      ...(previous === null ? {} : { initial: previous }),
    });
    this.#current = new HlcNodeGenerator(generator, init.fields);
    return this.#current;
  };

  /**
   * Merges a peer's timestamp before the IDs it caused are minted: as
   * `HlcIdGenerator.receive` (`HlcDriftError`, `HorizonExceededError`,
   * `HlcCounterOverflowError`, `TypeError`/`RangeError`; the state then unchanged), and
   * `NotReadyError` before the node's first lease.
   */
  receive(remote: HlcTimestamp): void {
    const current = this.#current;
    if (current === null) throw new NotReadyError('the hlc node has not leased a worker ID yet');
    current.generator.receive(remote);
  }

  /** The latest timestamp issued or received (send it with a message), or null before the first lease. */
  get last(): HlcTimestamp | null {
    return this.#current?.generator.last ?? null;
  }
}
