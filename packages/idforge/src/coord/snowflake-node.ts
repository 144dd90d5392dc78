/**
 * A Snowflake node: the core generator, a worker-ID lease and the clock high-water mark.
 *
 *   createSnowflakeNode()  acquire a free worker ID ─▶ fleet clock check ─▶ wait until the
 *                          clock is past the ID's mark (or fail) ─▶ ready
 *   node.next()            synchronous; each new tick is admitted only if it ends before the
 *                          lease deadline and starts before the persisted mark reservation
 *   background             renew lease + reservation together; on loss stop, re-acquire
 *   node.close()           release the lease and set the exact final mark
 *
 * The class composes parts with one job each:
 *
 *   node-lease.ts       the current lease's keeper, loss and duplicate claims, re-acquisition
 *   node-fence.ts       the checks before each new tick (deadline, reservation, floor, ...)
 *   node-marks.ts       the mark to wait out, this process's own marks, the exact final mark
 *   node-switch.ts      another worker ID after a large clock step back
 *   node-activation.ts  start, and from a lease to a generator (and back)
 *   node-status.ts      readiness, metrics and the waits on readiness
 *   node-parts.ts       the wiring of the parts
 */
import { ClockRollbackError, type Layout, type SnowflakeGeneOptions } from '../core/index.js';
import {
  type NodeSettings,
  resolveNodeOptions,
  type SnowflakeNodeOptions,
} from './node-options.js';
import { type NodeParts, nodeParts } from './node-parts.js';
import {
  batchWhenReady,
  type NodeMetrics,
  type NodeReadiness,
  readinessOf,
  waitReady,
} from './node-status.js';
import type { WorkerSwitch } from './node-switch.js';

export type { NodeLogger, SnowflakeNodeOptions } from './node-options.js';
export type { NodeMetrics, NodeReadiness } from './node-status.js';
export type { WorkerSwitch } from './node-switch.js';

/**
 * Acquires a worker ID from `options.store` and returns a node that issues Snowflake IDs
 * under it. Rejects with `StoreUnavailableError` (store down: backend and address named),
 * `NoFreeWorkerError` (range full after `acquireTimeoutMs`), `ClockSkewError` (the fleet
 * check) or `BehindMarkError` (the clock is behind the worker ID's mark by more than
 * `markToleranceMs`); in the last two cases the lease is released again.
 */
export async function createSnowflakeNode(options: SnowflakeNodeOptions): Promise<SnowflakeNode> {
  const node = new SnowflakeNode(resolveNodeOptions(options));
  await node._start();
  return node;
}

/**
 * Issues IDs under a leased worker ID; see {@link createSnowflakeNode}. Holds state and
 * background timers (unref'd); call close() on shutdown. One instance per process and
 * worker ID; synchronous issue path, safe within one JavaScript thread.
 */
export class SnowflakeNode {
  readonly #p: NodeParts;

  /** @internal Use {@link createSnowflakeNode}. */
  constructor(settings: NodeSettings) {
    this.#p = nodeParts(settings);
    settings.signal?.addEventListener('abort', () => void this.close(), { once: true });
  }

  /** @internal */
  _start(): Promise<void> {
    return this.#p.activation.start();
  }

  /** The leased worker ID, or null while none is held. */
  get workerId(): number | null {
    return this.#p.activation.generator === null
      ? null
      : (this.#p.lease.keeper.lease?.workerId ?? null);
  }

  get layout(): Layout {
    return this.#p.settings.layout;
  }

  /** Whether a next() now would be admitted, and why not. Cheap: no I/O. */
  get readiness(): NodeReadiness {
    return readinessOf({
      layout: this.#p.settings.layout,
      nowMs: this.#p.clock.now(),
      status: this.#p.status,
      keeper: this.#p.lease.keeper,
      issuing: this.#p.activation.generator !== null,
      switching: this.#p.switcher.refusal(),
      duplicate: this.#p.lease.duplicate !== null,
      pastMark: (tickStartMs, reservedMs) => this.#p.marks.pastMark(tickStartMs, reservedMs),
    });
  }

  /**
   * The next ID. Throws `NotReadyError`, `LeaseLostError`, `DuplicateWorkerError`, or as the
   * generator. `gene`: on a layout with a gene field, as `SnowflakeGenerator.next(gene)`
   * (`{ geneFrom: userId }` shards the ID with its user; none draws a random gene).
   */
  next(gene?: SnowflakeGeneOptions): bigint {
    const g = this.#p.activation.generator;
    if (g === null) throw this.#p.status.notReady();
    if (this.#p.settings.onLargeRollback === 'refuse') return g.next(gene);
    try {
      return g.next(gene);
    } catch (error) {
      throw error instanceof ClockRollbackError ? this.#p.switcher.onRollback(error) : error;
    }
  }

  /** {@link next} as a decimal string. */
  nextString(gene?: SnowflakeGeneOptions): string {
    return this.next(gene).toString();
  }

  /** `count` IDs in increasing order (all with `gene`); throws as {@link next}. */
  batch(count: number, gene?: SnowflakeGeneOptions): bigint[] {
    const g = this.#p.activation.generator;
    if (g === null) throw this.#p.status.notReady();
    if (this.#p.settings.onLargeRollback === 'refuse') return g.batch(count, gene);
    try {
      return g.batch(count, gene);
    } catch (error) {
      throw error instanceof ClockRollbackError ? this.#p.switcher.onRollback(error) : error;
    }
  }

  /** The last switch of worker ID after a large clock step back, or null when none. */
  get lastSwitch(): WorkerSwitch | null {
    return this.#p.switcher.last;
  }

  /** {@link batch}, waiting up to `waitMs` (default readyTimeoutMs) for readiness first. */
  batchAsync(
    count: number,
    waitMs = this.#p.settings.readyTimeoutMs,
    gene?: SnowflakeGeneOptions,
  ): Promise<bigint[]> {
    const batch = () => this.batch(count, gene);
    return batchWhenReady(
      () => this.#p.clock.now(),
      batch,
      (ms) => this.whenReady(ms),
      waitMs,
    );
  }

  /**
   * Resolves once the node can issue; rejects after `timeoutMs` with the reason (the last
   * error, or `NotReadyError`), or at once when closed.
   */
  whenReady(timeoutMs = this.#p.settings.readyTimeoutMs): Promise<void> {
    const now = () => this.#p.clock.now();
    return waitReady({ status: this.#p.status, now, readiness: () => this.readiness }, timeoutMs);
  }

  /** Counters for metrics (a snapshot). */
  get metrics(): NodeMetrics {
    const c = this.#p.lease.keeper.counters;
    const g = this.#p.activation.generator?.stats;
    return {
      workerId: this.workerId,
      issued: this.#p.activation.issued,
      leasesAcquired: c.acquired,
      acquireRefusals: c.refusals,
      renewals: c.renewals,
      renewalFailures: c.renewalFailures,
      leasesLost: c.lost,
      duplicatesDetected: c.duplicates,
      fencedRefusals: this.#p.fence.refusals,
      exhaustionWaits: g?.exhaustionWaits ?? 0,
      rollbackWaits: g?.rollbackWaits ?? 0,
      workerSwitches: this.#p.switcher.count,
    };
  }

  /**
   * Stops issuing, releases the lease and records the exact final mark (node-marks.ts).
   * Idempotent. Rejects as the store's release does (`StoreUnavailableError`): the lease then
   * expires by itself after ttlMs, and the reservation stays in the store.
   */
  async close(): Promise<void> {
    if (this.#p.status.closed) return;
    this.#p.status.closed = true;
    this.#p.activation.retire();
    await this.#p.lease.release();
  }
}
