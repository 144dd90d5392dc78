/** Options of a Snowflake node, validated once at construction (docs/architecture.md). */
import {
  type Clock,
  getLayout,
  isLayout,
  type Layout,
  type SnowflakeGeneOptions,
  type SnowflakeStats,
} from '../core/index.js';
import { rangeError, typeError } from '../core/internal.js';
import type { LeaseOwner, LeaseStore } from './ports.js';

/** Where a node logs. Default: standard error. */
export interface NodeLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/**
 * What a node issues IDs with. The core `SnowflakeGenerator` is one; a generator of another
 * kind over the same layout (idforge/hlc's HLC IDs) is another. It must call `admit` before
 * the first ID of each new tick and issue nothing the admit refused: that is the fencing
 * (node-fence.ts lists its checks).
 */
export interface NodeGenerator {
  /** `gene`: for a layout with a gene field (SnowflakeGenerator's); others refuse one. */
  next(gene?: SnowflakeGeneOptions): bigint;
  batch(count: number, gene?: SnowflakeGeneOptions): bigint[];
  readonly stats: SnowflakeStats;
  readonly nodeFields: Readonly<Record<string, number>>;
}

/** What a {@link NodeGeneratorFactory} is given each time the node (re)acquires a worker ID. */
export interface NodeGeneratorInit {
  readonly layout: Layout;
  /** Every node field's value, the leased worker ID included. */
  readonly fields: Readonly<Record<string, number>>;
  readonly clock: Clock;
  readonly toleranceMs: number;
  readonly warnYears: number;
  readonly onWarning: (message: string) => void;
  /** Call before the first ID of each new tick (its start in unix ms); it throws to refuse. */
  readonly admit: (tickStartMs: number) => void;
}

/** Builds the generator of a node; called once per worker-ID lease the node activates. */
export type NodeGeneratorFactory = (init: NodeGeneratorInit) => NodeGenerator;

/** Options of `createSnowflakeNode`. Times in ms. */
export interface SnowflakeNodeOptions {
  /** The lease store (see `openLeaseStore`). Required. */
  readonly store: LeaseStore;
  /** A layout or a preset name. Default 'default'. */
  readonly layout?: Layout | string;
  /**
   * The node field that carries the leased worker ID. Default: the layout's only node field
   * not given in `fields` (default: node; twitter-2010 with fields {datacenter}: worker).
   */
  readonly workerField?: string;
  /** Fixed values of the other node fields (twitter-2010: { datacenter: 1 }). */
  readonly fields?: Readonly<Record<string, number>>;
  /** A specific worker ID, or an inclusive range [min, max]. Default: the whole field. */
  readonly workerIds?: number | readonly [number, number];
  /** Lease duration. Default 10000. */
  readonly ttlMs?: number;
  /** Renewal period. Default ttlMs / 3. */
  readonly renewEveryMs?: number;
  /** The node stops issuing this long before its lease could expire. Default max(ttlMs / 5, 2 ticks). */
  readonly guardMs?: number;
  /** How far ahead of the clock the mark is reserved. Default ttlMs (capped at the lease deadline). */
  readonly markWindowMs?: number;
  /** A clock behind the stored mark by up to this is waited out; more fails. Default 5000. */
  readonly markToleranceMs?: number;
  /** Refuse to start when the clock differs from a live peer's by more. Default 1000; Infinity skips. */
  readonly maxSkewMs?: number;
  /** Wait this long at start for a free worker ID or a store that is down. Default 0 (fail at once). */
  readonly acquireTimeoutMs?: number;
  /** Default wait of whenReady() and batchAsync(). Default 5000. */
  readonly readyTimeoutMs?: number;
  /** First retry delay after a failed renewal or acquisition; later ones back off (jittered, doubling, up to 8x). Default 250. */
  readonly retryMs?: number;
  /** Backward clock steps the generator waits out. Default 10. */
  readonly toleranceMs?: number;
  /** Warn when the layout has fewer years left. Default 10. */
  readonly warnYears?: number;
  /** The node's clock. Default the wall-anchored monotonic clock. */
  readonly clock?: Clock;
  readonly logger?: NodeLogger;
  /**
   * Closes the node (releasing its lease) when aborted. Aborted during createSnowflakeNode,
   * it ends the start (the wait for a worker ID or for the mark included): the promise
   * rejects with the signal's reason after releasing what was leased, the mark as it was.
   */
  readonly signal?: AbortSignal;
  /** Overrides of the lease owner record (tests). */
  readonly owner?: Partial<Pick<LeaseOwner, 'instanceId' | 'host' | 'pid'>>;
  /** Builds the generator for each leased worker ID. Default: the core SnowflakeGenerator. */
  readonly generator?: NodeGeneratorFactory;
  /**
   * What the node does when its clock steps back by more than it waits out (`toleranceMs`
   * while running; `markToleranceMs` behind a worker ID's mark at a grant). `'refuse'`
   * (default): refuse until the clock is past the last tick (ClockRollbackError) or fail with
   * BehindMarkError, as before. `'switch-worker'`: lease another worker ID whose mark is at
   * least `switchGuardMs` below the clock, release the old one with its exact mark, and go on
   * issuing under the new one; when no such worker ID is free, refuse as `'refuse'` does.
   * IDs after a switch may sort below those before it (uniqueness is kept, order across the
   * step is not): docs/coordination.md, "Large clock steps".
   */
  readonly onLargeRollback?: LargeRollbackPolicy;
  /** How far below the clock the mark of a worker ID switched to must be. Default 1000. */
  readonly switchGuardMs?: number;
}

/** See {@link SnowflakeNodeOptions.onLargeRollback}. */
export type LargeRollbackPolicy = 'refuse' | 'switch-worker';

/** The validated settings. */
export interface NodeSettings {
  readonly store: LeaseStore;
  readonly layout: Layout;
  readonly workerField: string;
  readonly fields: Readonly<Record<string, number>>;
  readonly min: number;
  readonly max: number;
  readonly ttlMs: number;
  readonly renewEveryMs: number;
  readonly guardMs: number;
  readonly markWindowMs: number;
  readonly markToleranceMs: number;
  readonly maxSkewMs: number;
  readonly acquireTimeoutMs: number;
  readonly readyTimeoutMs: number;
  readonly retryMs: number;
  readonly toleranceMs: number;
  readonly warnYears: number;
  readonly clock: Clock | undefined;
  readonly logger: NodeLogger;
  readonly signal: AbortSignal | undefined;
  readonly owner: Partial<Pick<LeaseOwner, 'instanceId' | 'host' | 'pid'>>;
  readonly generator: NodeGeneratorFactory | undefined;
  readonly onLargeRollback: LargeRollbackPolicy;
  readonly switchGuardMs: number;
}

const stderrLogger: NodeLogger = {
  info: (m) => console.error(m),
  warn: (m) => console.error(m),
  error: (m) => console.error(m),
};

function num(name: string, value: unknown, fallback: number, min: number, max = Infinity): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || Number.isNaN(v) || v < min || v > max) {
    throw rangeError(`createSnowflakeNode ${name}`, `a number in [${min}, ${max}]`, v);
  }
  return v;
}

function workerFieldOf(layout: Layout, options: SnowflakeNodeOptions): string {
  const fixed = Object.keys(options.fields ?? {});
  const names = layout.nodeFields.map((f) => f.name);
  if (options.workerField !== undefined) {
    if (!names.includes(options.workerField) || fixed.includes(options.workerField)) {
      throw rangeError(
        'createSnowflakeNode workerField',
        `a node field of layout "${layout.name}" (${names.join(', ')}) not also in fields`,
        options.workerField,
      );
    }
    return options.workerField;
  }
  const free = names.filter((n) => !fixed.includes(n));
  if (free.length !== 1) {
    throw new TypeError(
      `createSnowflakeNode: expected exactly one node field of layout "${layout.name}" left ` +
        `for the worker ID (fields fixes ${fixed.join(', ') || 'none'} of ${names.join(', ')}), ` +
        `got ${free.length}: set workerField and give the others in fields`,
    );
  }
  return free[0]!;
}

function factoryOf(value: unknown): NodeGeneratorFactory | undefined {
  if (value === undefined || typeof value === 'function') return value as NodeGeneratorFactory;
  throw typeError(
    'createSnowflakeNode generator',
    'a function (NodeGeneratorInit) => generator',
    value,
  );
}

/** Validates and fills in defaults; throws TypeError/RangeError naming the option. */
export function resolveNodeOptions(options: SnowflakeNodeOptions): NodeSettings {
  if (typeof options !== 'object' || options === null) {
    throw typeError('createSnowflakeNode options', 'an object', options);
  }
  const store = options.store;
  if (typeof store?.acquire !== 'function' || typeof store.renew !== 'function') {
    throw typeError('createSnowflakeNode store', 'a LeaseStore (see openLeaseStore)', store);
  }
  const l = options.layout ?? 'default';
  const layout = typeof l === 'string' ? getLayout(l) : l;
  if (!isLayout(layout))
    throw typeError('createSnowflakeNode layout', 'a Layout or a preset name', l);
  const workerField = workerFieldOf(layout, options);
  const fieldMax = layout.nodeFields.find((f) => f.name === workerField)!.mask;
  const ids = options.workerIds ?? [0, fieldMax];
  const [min, max] = typeof ids === 'number' ? [ids, ids] : ids;
  num('workerIds min', min, 0, 0, fieldMax);
  num('workerIds max', max, 0, min ?? 0, fieldMax);
  if (!Number.isInteger(min) || !Number.isInteger(max)) {
    throw rangeError('createSnowflakeNode workerIds', 'integers', ids);
  }
  const ttlMs = num('ttlMs', options.ttlMs, 10_000, 100);
  const guardMs = num('guardMs', options.guardMs, Math.max(ttlMs / 5, 2 * layout.unitMs), 0);
  if (guardMs < 2 * layout.unitMs || guardMs * 2 >= ttlMs) {
    throw rangeError(
      'createSnowflakeNode guardMs',
      `at least two ticks (${2 * layout.unitMs} ms) and under half of ttlMs (${ttlMs})`,
      guardMs,
    );
  }
  return {
    store,
    layout,
    workerField,
    fields: { ...(options.fields ?? {}) },
    min: min!,
    max: max!,
    ttlMs,
    renewEveryMs: num('renewEveryMs', options.renewEveryMs, ttlMs / 3, 10, ttlMs - guardMs),
    guardMs,
    markWindowMs: num('markWindowMs', options.markWindowMs, ttlMs, 2 * layout.unitMs),
    markToleranceMs: num('markToleranceMs', options.markToleranceMs, 5000, 0),
    maxSkewMs: num('maxSkewMs', options.maxSkewMs, 1000, 0),
    acquireTimeoutMs: num('acquireTimeoutMs', options.acquireTimeoutMs, 0, 0),
    readyTimeoutMs: num('readyTimeoutMs', options.readyTimeoutMs, 5000, 0),
    retryMs: num('retryMs', options.retryMs, 250, 1),
    toleranceMs: num('toleranceMs', options.toleranceMs, 10, 0),
    warnYears: num('warnYears', options.warnYears, 10, 0),
    clock: options.clock,
    logger: options.logger ?? stderrLogger,
    signal: options.signal,
    owner: options.owner ?? {},
    generator: factoryOf(options.generator),
    onLargeRollback: policyOf(options.onLargeRollback),
    switchGuardMs: num('switchGuardMs', options.switchGuardMs, 1000, 0),
  };
}

function policyOf(value: unknown): LargeRollbackPolicy {
  if (value === undefined || value === 'refuse' || value === 'switch-worker') {
    return value ?? 'refuse';
  }
  throw rangeError('createSnowflakeNode onLargeRollback', "'refuse' or 'switch-worker'", value);
}
