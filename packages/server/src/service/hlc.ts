/**
 * HLC IDs in the service (docs/hlc.md): a node of layout `hlc` (its own worker-ID lease, mark
 * and fence, like every Snowflake node) whose generator is idforge/hlc's HlcIdGenerator, and
 * the `IdForge-HLC` header: a caller's timestamp is merged before its IDs are minted, and the
 * answer carries this node's, so HLC IDs across the cluster sort after what the caller saw.
 */

import { NotReadyError, type SnowflakeStats } from 'idforge';
import type { NodeGenerator, NodeGeneratorFactory, NodeGeneratorInit } from 'idforge/coord';
import { formatHlc, HlcIdGenerator, parseHlc } from 'idforge/hlc';

function noGene(gene: unknown): void {
  if (gene !== undefined) throw new RangeError('HLC IDs: expected no gene (layout hlc has none)');
}

/** One HLC ID generator as a node's generator (the node fences it through `admit`). */
class HlcNodeGenerator implements NodeGenerator {
  readonly gen: HlcIdGenerator;
  readonly nodeFields: Readonly<Record<string, number>>;
  #lastId = -1n;

  constructor(gen: HlcIdGenerator, fields: Readonly<Record<string, number>>) {
    this.gen = gen;
    this.nodeFields = fields;
  }

  next(gene?: unknown): bigint {
    noGene(gene);
    const id = this.gen.next();
    this.#lastId = id;
    return id;
  }

  batch(count: number, gene?: unknown): bigint[] {
    noGene(gene);
    const ids = this.gen.batch(count);
    if (ids.length > 0) this.#lastId = ids[ids.length - 1]!;
    return ids;
  }

  get stats(): SnowflakeStats {
    const s = this.gen.stats;
    const layout = this.gen.layout;
    return {
      issued: s.issued,
      exhaustionWaits: s.waits,
      rollbackWaits: 0,
      // The node records its high-water mark from the last ID's tick (its l).
      lastTick: this.#lastId < 0n ? -1 : Number(this.#lastId >> layout.timeField.shiftBig),
    };
  }
}

/**
 * The HLC of one service process: it builds the node's generator on each lease and keeps the
 * clock's state across them (a lease lost and taken again must not forget what was received).
 */
export class ServiceHlc {
  readonly #maxDriftMs: number;
  #current: HlcNodeGenerator | null = null;

  constructor(maxDriftMs: number) {
    this.#maxDriftMs = maxDriftMs;
  }

  /** The generator factory of the `hlc` node. */
  readonly factory: NodeGeneratorFactory = (init: NodeGeneratorInit) => {
    // A lease lost and taken again starts from the state before: what was received counts.
    const previous = this.#current?.gen.last ?? null;
    const gen = new HlcIdGenerator({
      node: init.fields.node!,
      clock: init.clock,
      maxDriftMs: this.#maxDriftMs,
      admit: init.admit,
      ...(previous === null ? {} : { initial: previous }),
    });
    this.#current = new HlcNodeGenerator(gen, init.fields);
    return this.#current;
  };

  /**
   * Merges a caller's header value before its IDs are minted. Throws `InvalidIdError` (400)
   * for text that is not an HLC timestamp, `HlcDriftError` (400) for one too far ahead.
   * Before the node's first lease (the service listens only after it), `NotReadyError`.
   */
  receive(header: string): void {
    const remote = parseHlc(header);
    const g = this.#current;
    if (g === null) throw new NotReadyError('the hlc node has not leased a worker ID yet');
    g.gen.receive(remote);
  }

  /** This node's HLC as header text (the latest issued or received), or null before any. */
  header(): string | null {
    const last = this.#current?.gen.last;
    return last === undefined || last.l === 0 ? null : formatHlc(last);
  }
}
