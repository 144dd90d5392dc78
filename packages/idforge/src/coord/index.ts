/**
 * idforge/coord: worker-ID leases and clock high-water marks for Snowflake nodes. Stores are
 * opened with `openLeaseStore` from @idforge/stores; this layer never imports a driver. This
 * file re-exports only, by name (see docs/architecture.md).
 */
// Shared with other layers, so defined in the core: every store port's failure, and the
// not-ready refusal idforge/hlc's node clock throws too.
export { NotReadyError, StoreUnavailableError } from '../core/internal.js';
export {
  BehindMarkError,
  ClockSkewError,
  DuplicateWorkerError,
  LeaseLostError,
  NoFreeWorkerError,
} from './errors.js';
export {
  checkSkew,
  type FleetClock,
  measureSkew,
  type PeerSkew,
  type SkewOptions,
} from './fleet-check.js';
export {
  type LeaseCounters,
  type LeaseEvents,
  LeaseKeeper,
  type LeaseKeeperSettings,
} from './lease-keeper.js';
export type {
  LargeRollbackPolicy,
  NodeGenerator,
  NodeGeneratorFactory,
  NodeGeneratorInit,
} from './node-options.js';
export type {
  Lease,
  LeaseOwner,
  LeaseRecord,
  LeaseRequest,
  LeaseStore,
  RenewReport,
  RenewResult,
} from './ports.js';
export {
  createSnowflakeNode,
  type NodeLogger,
  type NodeMetrics,
  type NodeReadiness,
  SnowflakeNode,
  type SnowflakeNodeOptions,
  type WorkerSwitch,
} from './snowflake-node.js';
export { ceilToTick, markAfterTick, waitForMark } from './watermark.js';
