/**
 * The activation part of a Snowflake node: from a lease to a generator and back.
 *
 *   start     fleet clock check ─▶ acquire a worker ID ─▶ activate; on failure the lease
 *             goes back with its mark as it was
 *   activate  wait out the worker ID's mark (or, too far behind, switch worker ID) ─▶ reserve
 *             ahead (the first renewal) ─▶ build the generator, whose admit is the fence
 *   retire    drop the generator; the end of its last tick becomes this process's own mark
 *
 * The generator exists only while the current keeper holds a lease: every path that clears
 * the lease (loss, close, failed re-acquisition, switch) retires it first or synchronously.
 */
import { type Clock, SnowflakeGenerator } from '../core/index.js';
import { Backoff, NotReadyError, StoreUnavailableError } from '../core/internal.js';
import { BehindMarkError } from './errors.js';
import { checkSkew, measureSkew } from './fleet-check.js';
import type { NodeLease } from './node-lease.js';
import type { NodeMarks } from './node-marks.js';
import type { NodeGenerator, NodeSettings } from './node-options.js';
import type { NodeStatus } from './node-status.js';
import type { WorkerSwitcher } from './node-switch.js';
import type { Lease } from './ports.js';
import { sleep } from './sleep.js';
import { waitForMark } from './watermark.js';

/** The parts activation works with. */
export interface ActivationParts {
  readonly status: NodeStatus;
  readonly lease: NodeLease;
  readonly marks: NodeMarks;
  readonly switcher: WorkerSwitcher;
  /** The fence, the generator's admit (node-fence.ts). */
  readonly admit: (tickStartMs: number) => void;
}

export class NodeActivation {
  readonly #s: NodeSettings;
  readonly #clock: Clock;
  readonly #p: ActivationParts;
  #gen: NodeGenerator | null = null;
  /** IDs issued by the generators retired before the current one. */
  #issuedBefore = 0;

  constructor(s: NodeSettings, clock: Clock, parts: ActivationParts) {
    this.#s = s;
    this.#clock = clock;
    this.#p = parts;
  }

  /** The generator of the current lease; null while none is activated. */
  get generator(): NodeGenerator | null {
    return this.#gen;
  }

  /** IDs issued under every lease so far. */
  get issued(): number {
    return this.#issuedBefore + (this.#gen?.stats.issued ?? 0);
  }

  /** The start of createSnowflakeNode: rejects as it documents, after releasing the lease. */
  async start(): Promise<void> {
    const s = this.#s;
    this.#stopIfAborted();
    // acquireTimeoutMs bounds the whole start: a full range and a store that is down alike.
    const until = this.#clock.now() + s.acquireTimeoutMs;
    // The fleet check runs before acquiring, so a refused node leaves no trace in the store.
    if (s.maxSkewMs !== Number.POSITIVE_INFINITY) await this.#checkFleet(until);
    this.#stopIfAborted();
    const keeper = this.#p.lease.keeper;
    const lease = await keeper.acquire(Math.max(0, until - this.#clock.now()), s.signal);
    try {
      this.#stopIfAborted();
      await this.activate(lease);
      this.#stopIfAborted();
    } catch (error) {
      this.retire();
      await this.#p.lease.release().catch(() => undefined);
      throw error;
    }
  }

  /** Measures the fleet's clocks, retrying a store that is down until `until`. */
  async #checkFleet(until: number): Promise<void> {
    const s = this.#s;
    const backoff = new Backoff({ initialMs: s.retryMs, maxMs: s.retryMs * 8 });
    for (;;) {
      try {
        const fleet = await measureSkew(s.store, this.#clock, {
          selfInstanceId: '',
          observeMs: s.renewEveryMs + 500,
        });
        // Peers off the store's clock are reported; only this node's own offset refuses it.
        for (const warning of checkSkew(fleet, s.maxSkewMs)) s.logger.warn(`idforge: ${warning}`);
        return;
      } catch (error) {
        const left = until - this.#clock.now();
        if (!(error instanceof StoreUnavailableError) || left <= 0) throw error;
        await sleep(Math.min(backoff.next(), left));
      }
    }
  }

  /**
   * Waits out the mark (bounded), then builds the generator for the leased worker ID. Throws
   * NotReadyError when a worker switch replaced the keeper meanwhile (the switch stands).
   */
  async activate(lease: Lease): Promise<void> {
    const s = this.#s;
    const p = this.#p;
    const keeper = p.lease.keeper;
    keeper.start();
    const mark = p.marks.markOf(lease);
    let wait: number;
    try {
      wait = waitForMark(s.layout, lease.workerId, mark, this.#clock.now(), s.markToleranceMs);
    } catch (error) {
      // Too far behind the mark to wait: with the switch, another worker ID instead.
      if (!(error instanceof BehindMarkError) || !(await p.switcher.fromMark(error))) throw error;
      return;
    }
    p.marks.enter(mark);
    if (wait > 0) {
      s.logger.warn(
        `idforge: worker ID ${lease.workerId}: the clock is ${wait} ms behind its high-water ` +
          'mark; waiting before issuing',
      );
      await sleep(wait, s.signal);
      this.#stopIfAborted();
    }
    // The grant reserved nothing ahead (a node refused here must not push the mark up for the
    // next holder): reserve now, before the first ID.
    if (!(await keeper.renewNow())) throw new NotReadyError('the lease was lost at start');
    if (keeper !== p.lease.keeper) throw new NotReadyError('a worker switch took over meanwhile');
    this.#build(lease);
  }

  /** Builds the generator for `lease`'s worker ID, admitting each new tick through the fence. */
  #build(lease: Lease): void {
    const s = this.#s;
    const init = {
      layout: s.layout,
      fields: { ...s.fields, [s.workerField]: lease.workerId },
      clock: this.#clock,
      toleranceMs: s.toleranceMs,
      warnYears: s.warnYears,
      onWarning: (m: string) => s.logger.warn(m),
      admit: this.#p.admit,
    };
    this.#gen = s.generator === undefined ? new SnowflakeGenerator(init) : s.generator(init);
    this.#p.status.lastError = null;
    s.logger.info(
      `idforge: worker ID ${lease.workerId} (${s.workerField} of layout "${s.layout.name}") ` +
        `leased from ${s.store.backend} store ${s.store.address} as instance ${lease.instanceId}, ` +
        `range ${s.min}..${s.max}`,
    );
  }

  /**
   * Throws when the start must end: the abort signal fired (its reason, an AbortError by
   * default) or close() was called meanwhile. The caller releases what was leased.
   */
  #stopIfAborted(): void {
    this.#s.signal?.throwIfAborted();
    if (this.#p.status.closed) throw new NotReadyError('the node was closed during its start');
  }

  /** Tick start of the last ID issued under the current lease (unix ms); null before one. */
  lastIssuedMs(): number | null {
    const tick = this.#gen?.stats.lastTick ?? -1;
    const layout = this.#s.layout;
    return tick < 0 ? null : layout.epochMs + tick * layout.unitMs;
  }

  /** Drops the generator, recording the end of its last tick as this process's own mark. */
  retire(): void {
    const gen = this.#gen;
    if (gen === null) return;
    this.#issuedBefore += gen.stats.issued;
    const last = this.lastIssuedMs();
    if (last !== null) this.#p.marks.record(gen.nodeFields[this.#s.workerField]!, last);
    this.#gen = null;
  }
}
