/**
 * The Snowflake generator: strictly increasing IDs of one {@link Layout} for one node.
 */
import { assertInteger } from '../assert.js';
import type { Clock } from '../clock.js';
import { ClockRollbackError, ClockStalledError, HorizonExceededError } from '../errors.js';
import { GeneSource, type SnowflakeGeneOptions } from './gene.js';
import {
  checkGeneratorOptions,
  expiryWarning,
  type SnowflakeGeneratorOptions,
} from './generator-options.js';
import type { Layout } from './layout.js';

export type { SnowflakeGeneratorOptions } from './generator-options.js';

/** Counters of a {@link SnowflakeGenerator}. */
export interface SnowflakeStats {
  /** IDs issued. */
  readonly issued: number;
  /** Times the sequence ran out within a tick and the generator waited for the next one. */
  readonly exhaustionWaits: number;
  /** Times a backward clock step within tolerance was waited out. */
  readonly rollbackWaits: number;
  /** Tick of the last ID issued; -1 before the first. */
  readonly lastTick: number;
}

/** Largest `batch` count. */
const MAX_BATCH = 2 ** 24;
/** Rollback waits within one call before giving up (each waits the whole remaining drift). */
const MAX_ROLLBACK_ROUNDS = 64;

/** The node fields' values in place: the bits every ID of the generator shares. */
function nodeBitsOf(layout: Layout, values: Readonly<Record<string, number>>): bigint {
  let nodeBits = 0n;
  for (const f of layout.nodeFields) nodeBits |= BigInt(values[f.name]!) << f.shiftBig;
  return nodeBits;
}

/**
 * Issues 64-bit IDs of one layout for one node, strictly increasing per instance.
 *
 * Each ID takes the current tick, floor((clock.now() - epochMs) / unitMs). Within a tick the
 * sequence counts up; when it is used up the generator sleeps (`clock.sleep`, not a spin)
 * until the next tick, at most `stallTimeoutMs` (then {@link ClockStalledError}). When the clock is behind the last tick issued by at most `toleranceMs`,
 * it sleeps until the clock is back at that tick and continues its sequence there; a larger
 * step throws {@link ClockRollbackError} and leaves the state untouched, so the next call
 * after the clock recovers continues without a duplicate. A time before the epoch or past
 * the horizon throws {@link HorizonExceededError}.
 *
 * Construction throws `TypeError`/`RangeError` on a bad option: every node field must be
 * given explicitly and in range (never masked), and unknown options are refused. It warns
 * once through `onWarning` when the layout has fewer than `warnYears` years left.
 *
 * A layout with a gene field (role 'gene', docs/layouts.md "Shard genes") takes a gene per
 * ID: `next({ geneFrom: userId })` copies another ID's low bits, `next({ gene })` sets it,
 * and without either each ID gets a random gene. The gene sits below the sequence, so IDs
 * stay unique and strictly increasing whatever the genes. Asking a layout without a gene
 * field for one throws `RangeError`.
 *
 * Holds state; not for sharing between nodes: two generators must never have the same node
 * fields. Synchronous, so one instance is safe within one JavaScript thread.
 */
export class SnowflakeGenerator {
  readonly #layout: Layout;
  readonly #clock: Clock;
  readonly #nodeFields: Readonly<Record<string, number>>;
  readonly #toleranceMs: number;
  readonly #stallTimeoutMs: number;
  readonly #admit: ((tickStartMs: number) => void) | undefined;
  readonly #epochMs: number;
  readonly #unitMs: number;
  readonly #maxTick: number;
  readonly #maxSequence: number;
  readonly #timeShift: bigint;
  /** The node fields in place. */
  readonly #nodeBits: bigint;
  /** 1 in the sequence field: adding it increments the sequence of the last ID. */
  readonly #step: bigint;
  /** Whether the layout has a gene field: every ID then takes its gene on the slower path. */
  readonly #hasGene: boolean;
  readonly #genes: GeneSource;
  #lastTick: number;
  #sequence: number;
  #lastId: bigint;
  #issued: number;
  #exhaustionWaits: number;
  #rollbackWaits: number;

  constructor(options: SnowflakeGeneratorOptions = {}) {
    const setup = checkGeneratorOptions(options);
    const { layout, clock, onWarning } = setup;
    this.#layout = layout;
    this.#clock = clock;
    this.#nodeFields = setup.nodeFields;
    this.#toleranceMs = setup.toleranceMs;
    this.#stallTimeoutMs = setup.stallTimeoutMs;
    this.#admit = setup.admit;
    this.#hasGene = layout.geneField !== undefined;
    this.#genes = new GeneSource(layout, options.random);
    this.#epochMs = layout.epochMs;
    this.#unitMs = layout.unitMs;
    this.#maxTick = layout.maxTick;
    this.#maxSequence = layout.maxSequence;
    this.#timeShift = layout.timeField.shiftBig;
    this.#nodeBits = nodeBitsOf(layout, setup.nodeFields);
    this.#step = 1n << layout.sequenceField.shiftBig;
    // No tick issued yet: a full sequence keeps the fast path of next() off until #slow()
    // has checked the first tick (even a tick of -1, before the epoch).
    this.#lastTick = -1;
    this.#sequence = this.#maxSequence;
    this.#lastId = 0n;
    this.#issued = 0;
    this.#exhaustionWaits = 0;
    this.#rollbackWaits = 0;
    const warning = expiryWarning(layout, clock.now(), setup.warnYears);
    if (warning !== undefined) onWarning(warning);
  }

  /** The layout of the IDs. */
  get layout(): Layout {
    return this.#layout;
  }

  /** The node field values, by name (frozen). */
  get nodeFields(): Readonly<Record<string, number>> {
    return this.#nodeFields;
  }

  /** A snapshot of the counters. */
  get stats(): SnowflakeStats {
    return {
      issued: this.#issued,
      exhaustionWaits: this.#exhaustionWaits,
      rollbackWaits: this.#rollbackWaits,
      lastTick: this.#lastTick,
    };
  }

  /**
   * The next ID, greater than every ID this instance issued before. Throws
   * {@link ClockRollbackError} or {@link HorizonExceededError} as described on the class.
   * `gene` (layouts with a gene field only) sets its gene: `{ geneFrom: id }` or `{ gene }`;
   * without it a gene layout draws a random gene. A bad `gene` throws before any ID is used
   * up: `RangeError`/`TypeError` (as {@link SnowflakeGeneOptions} says), or
   * `InvalidIdError` for a `geneFrom` that is not a 64-bit ID.
   */
  next(gene?: SnowflakeGeneOptions): bigint {
    if (gene !== undefined || this.#hasGene) return this.#withGene(gene);
    // REF: bench/peers (2c, throughput): the common case is one clock read, one compare and
    // one bigint add on the last ID; tick changes, exhaustion and rollback go to #slow().
    // A layout without a gene pays one more compare for the line above, nothing else.
    const tick = Math.floor((this.#clock.now() - this.#epochMs) / this.#unitMs);
    if (tick === this.#lastTick && this.#sequence < this.#maxSequence) {
      this.#sequence++;
      this.#issued++;
      this.#lastId += this.#step;
      return this.#lastId;
    }
    return this.#slow();
  }

  /** {@link next} as a decimal string. */
  nextString(gene?: SnowflakeGeneOptions): string {
    return this.next(gene).toString();
  }

  /** An ID with its gene: the gene is checked (or drawn) first, then the ID is issued. */
  #withGene(options: SnowflakeGeneOptions | undefined): bigint {
    const gene =
      options === undefined ? this.#genes.random() : this.#genes.of('next gene', options);
    return this.#base() | gene;
  }

  /** The next ID with every gene bit 0: the body of {@link next} without the gene. */
  #base(): bigint {
    const tick = Math.floor((this.#clock.now() - this.#epochMs) / this.#unitMs);
    if (tick === this.#lastTick && this.#sequence < this.#maxSequence) {
      this.#sequence++;
      this.#issued++;
      this.#lastId += this.#step;
      return this.#lastId;
    }
    return this.#slow();
  }

  /**
   * `count` (an integer in [0, 2^24]) IDs in increasing order. Cheaper per ID than `next()`:
   * the clock is read once per run of IDs that fits the current tick's sequence. Throws as
   * {@link next}; IDs issued before a throw are not returned but are never issued again.
   * `gene` gives every ID of the batch that gene (as {@link next}); without it a gene layout
   * draws a random gene per ID.
   */
  batch(count: number, gene?: SnowflakeGeneOptions): bigint[] {
    assertInteger('batch count', count, 0, MAX_BATCH);
    if (gene === undefined && !this.#hasGene) return this.#batch(count);
    const fixed = gene === undefined ? undefined : this.#genes.of('batch gene', gene);
    const out = this.#batch(count);
    for (let i = 0; i < out.length; i++) out[i]! |= fixed ?? this.#genes.random();
    return out;
  }

  /** `count` IDs with every gene bit 0. */
  #batch(count: number): bigint[] {
    const out: bigint[] = [];
    const step = this.#step;
    // REF: bench/peers (2c): one clock read per run instead of per ID; the rest of the run
    // stays in the tick just read, which is always safe (same tick, higher sequence).
    while (out.length < count) {
      out.push(this.#base());
      const run = Math.min(this.#maxSequence - this.#sequence, count - out.length);
      let id = this.#lastId;
      for (let i = 0; i < run; i++) {
        id += step;
        out.push(id);
      }
      this.#lastId = id;
      this.#sequence += run;
      this.#issued += run;
    }
    return out;
  }

  #slow(): bigint {
    let exhausted = false;
    let rolledBack = false;
    let waitedMs = 0;
    let stalledMs = 0;
    let rounds = 0;
    for (;;) {
      const now = this.#clock.now();
      const tick = Math.floor((now - this.#epochMs) / this.#unitMs);
      if (tick < 0 || tick > this.#maxTick) throw this.#horizon(now);
      if (tick > this.#lastTick) {
        this.#admit?.(this.#epochMs + tick * this.#unitMs);
        this.#lastTick = tick;
        this.#sequence = 0;
        this.#lastId = (BigInt(tick) << this.#timeShift) | this.#nodeBits;
        this.#issued++;
        return this.#lastId;
      }
      if (tick === this.#lastTick) {
        if (this.#sequence < this.#maxSequence) {
          this.#sequence++;
          this.#issued++;
          this.#lastId += this.#step;
          return this.#lastId;
        }
        if (!exhausted) this.#exhaustionWaits++;
        exhausted = true;
        if (stalledMs >= this.#stallTimeoutMs) {
          throw new ClockStalledError(stalledMs, this.#stallTimeoutMs, now);
        }
        const next = this.#epochMs + (this.#lastTick + 1) * this.#unitMs;
        const pause = Math.max(next - this.#clock.nowPrecise(), 0.05);
        this.#clock.sleep(pause);
        stalledMs += pause;
        continue;
      }
      // The clock is behind the last tick issued: wait if within tolerance, else refuse.
      const driftMs = this.#epochMs + this.#lastTick * this.#unitMs - now + waitedMs;
      if (driftMs > this.#toleranceMs || ++rounds > MAX_ROLLBACK_ROUNDS) {
        throw new ClockRollbackError(driftMs, this.#toleranceMs);
      }
      if (!rolledBack) this.#rollbackWaits++;
      rolledBack = true;
      const behind = driftMs - waitedMs;
      this.#clock.sleep(behind);
      waitedMs += behind;
    }
  }

  #horizon(now: number): HorizonExceededError {
    const l = this.#layout;
    return new HorizonExceededError(
      l.name,
      now,
      l.epochMs,
      l.horizonMs,
      'check the clock; if it is right, the layout is used up: define a new layout with a later ' +
        'epoch or more time bits (released layouts never change)',
    );
  }
}
