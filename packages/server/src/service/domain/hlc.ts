/**
 * HLC IDs in the service (docs/hlc.md): a node of layout `hlc` (its own worker-ID lease, mark
 * and fence, like every Snowflake node) whose generator comes from idforge/hlc's
 * HlcNodeClock, and the `IdForge-HLC` header: a caller's timestamp is merged before its IDs
 * are minted, and the answer carries this node's, so HLC IDs across the cluster sort after
 * what the caller saw.
 */
import type { NodeGeneratorFactory } from 'idforge/coord';
import { formatHlc, HlcNodeClock, parseHlc } from 'idforge/hlc';

/**
 * The HLC of one service process, in the header's text form: the node's clock keeps its
 * state across leases (a lease lost and taken again must not forget what was received).
 */
export class ServiceHlc {
  readonly #clock: HlcNodeClock;

  constructor(maxDriftMs: number) {
    this.#clock = new HlcNodeClock({ maxDriftMs });
  }

  /** The generator factory of the `hlc` node. */
  get factory(): NodeGeneratorFactory {
    return this.#clock.factory;
  }

  /**
   * Merges a caller's header value before its IDs are minted. Throws `InvalidIdError` (400)
   * for text that is not an HLC timestamp, `HlcDriftError` (400) for one too far ahead.
   * Before the node's first lease (the service listens only after it), `NotReadyError`.
   */
  receive(header: string): void {
    this.#clock.receive(parseHlc(header));
  }

  /** This node's HLC as header text (the latest issued or received), or null before any. */
  header(): string | null {
    const last = this.#clock.last;
    return last === null || last.l === 0 ? null : formatHlc(last);
  }
}
