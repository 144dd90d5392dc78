/**
 * `idforge/stores`: where idforge keeps leases, marks, segments, counters and tickets. Opening
 * by URL goes through the switchboard (open.ts), which imports a driver only when its scheme is
 * used. This file re-exports only, by name.
 */
export {
  closeTicketServers,
  lazyTicketServer,
  migrateStore,
  type OpenedSequence,
  type OpenSequenceOptions,
  type OpenStoreOptions,
  openCounterStore,
  openLeaseStore,
  openMarkStore,
  openSegmentStore,
  openSequence,
  openTicketServer,
  openTicketServers,
  setupTicketServers,
  type TicketServerOptions,
} from './open.js';
export type { PlannableTicketServer } from './ticket-common.js';
export { redactUrl, storeScheme } from './url.js';
