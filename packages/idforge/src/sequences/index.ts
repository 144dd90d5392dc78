/**
 * idforge/sequences: central sequences (segments with double buffering, ticket servers,
 * Redis counters) behind one interface, and the rules every store of a sequence follows (a
 * tag, the largest value, setting ticket servers up). Stores are opened from @idforge/stores.
 * This file re-exports only, by name.
 */

// StoreUnavailableError: the failure every store port names, shared with coord (in the core).
export { DEFAULT_STORE_URL, RunningDeadline, StoreUnavailableError } from '../core/internal.js';
export {
  type CounterBlockSource,
  type CounterBlockSourceOptions,
  type CounterSourceStats,
  counterBlockSource,
} from './counter-source.js';
export {
  CounterRegressedError,
  GapFreeExhaustedError,
  GapFreeTimeoutError,
  SequenceExhaustedError,
  TagExistsError,
  UnknownTagError,
} from './errors.js';
export {
  type FormattedBatch,
  FormattedSequence,
  type FormattedSequenceOptions,
} from './formatted-sequence.js';
export {
  GapFreeSequence,
  type GapFreeSequenceOptions,
  type GapFreeStore,
} from './gap-free.js';
export {
  defineNumberFormat,
  describeFormat,
  type FormattedNumber,
  formatOfDescription,
  MAX_PATTERN_LENGTH,
  type NumberFormat,
  type NumberFormatOptions,
  type NumberPeriod,
  type ResetPeriod,
} from './number-format.js';
export {
  MAX_WRITERS,
  PLAN_CAVEAT,
  PLAN_DIALECTS,
  type PlanDialect,
  type PlanOptions,
  planWriters,
  type WriterPlan,
  type WriterPlanSet,
} from './plan.js';
export {
  type BlockSource,
  type CounterStore,
  type CreateTagOptions,
  type DurableMarkStore,
  MAX_SEQUENCE_VALUE,
  type NumberRange,
  type PlannableTicketServer,
  type Segment,
  type SegmentStore,
  type SegmentTag,
  type TicketServer,
} from './ports.js';
export { SegmentBuffer } from './segment-buffer.js';
export type {
  SegmentBufferOptions,
  SegmentBufferSnapshot,
  SegmentBufferStats,
  SegmentFetchEvent,
} from './segment-buffer-types.js';
export { openSegmentSequence, type SegmentSequenceOptions, type Sequence } from './sequence.js';
export {
  type CounterSourceOptions,
  counterSource,
  DEFAULT_COUNTER_BLOCK,
  type SequenceSource,
  segmentSource,
} from './sequence-source.js';
export { assertTag, assertTicketTag, MAX_TAG_LENGTH } from './tag.js';
export {
  shortReason,
  TicketClient,
  type TicketClientOptions,
  type TicketServerEvent,
  type TicketServerStats,
  type TicketSource,
} from './ticket-client.js';
export { setupTicketServers } from './ticket-setup.js';
