/**
 * `idforge/stores`: where idforge keeps leases, marks, segments, counters and tickets. Opening
 * by URL goes through the switchboard (open.ts), which imports a driver only when its scheme is
 * used. This file re-exports only, by name.
 */
export {
  migrateStore,
  type OpenStoreOptions,
  openCounterStore,
  openLeaseStore,
  openMarkStore,
  openSegmentStore,
} from './open.js';
export { type OpenedSequence, type OpenSequenceOptions, openSequence } from './open-sequence.js';
export {
  closeTicketServers,
  lazyTicketServer,
  openTicketServer,
  openTicketServers,
  type PlannableTicketServer,
  setupTicketServers,
  type TicketServerOptions,
} from './tickets-open.js';
export { redactUrl, storeScheme } from './url.js';
