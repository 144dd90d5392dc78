/**
 * idforge/client: the HTTP client of the idforge service (docs/client.md). Round robin over
 * the service's nodes, failover within a call, a back-off per failed node, and per-tag
 * double-buffered sequences whose warm path is synchronous. Imports only the core. Its error
 * classes are its own (`./errors.ts`), exported here: `ServiceUnavailableError`,
 * `ServiceAuthError`, `ServiceRejectedError`, `ServiceResponseError`, `ClientClosedError`.
 */
export { type ClientStats, createClient, type IdforgeClient } from './client.js';
export {
  ClientClosedError,
  type ServerFailure,
  type ServiceAnswer,
  ServiceAuthError,
  ServiceRejectedError,
  ServiceResponseError,
  ServiceUnavailableError,
} from './errors.js';
export { type HttpLeaseStore, type HttpLeaseStoreOptions, httpLeaseStore } from './lease-store.js';
export {
  type ClientOptions,
  ID_SCHEMES,
  type IdRequestOptions,
  type IdScheme,
} from './options.js';
export type { ClientSequence, SequenceStats } from './sequence.js';
export type { ServerStats } from './servers.js';
