/**
 * What kind of failure each error code is, declared once for every code: the service answers
 * with the HTTP status of the category (@idforge/server's CATEGORY_STATUS), and an application
 * can branch on the category instead of listing codes. The record's type makes it total: a
 * new code in ErrorCode does not compile until it has a category. Kept apart from errors.ts so
 * that throwing one error does not carry this table into a browser bundle.
 */
import type { ErrorCodeValue } from './errors.js';

/**
 * - `invalid`: the input is wrong; fix the request, retrying it unchanged fails again.
 * - `unauthorized` / `forbidden`: no valid credentials / not allowed to do this.
 * - `not-found`: what was named does not exist (a tag, a public ID that decodes to nothing).
 * - `conflict`: it exists already.
 * - `gone`: it existed and was withdrawn (a retired key version).
 * - `upstream`: a server this process called answered outside its contract.
 * - `unavailable`: a dependency or this node cannot serve now; retry later or elsewhere.
 * - `internal`: the deployment is misconfigured or broken; an operator must act.
 */
export type ErrorCategory =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'gone'
  | 'upstream'
  | 'unavailable'
  | 'internal';

export const ERROR_CATEGORY: Readonly<Record<ErrorCodeValue, ErrorCategory>> = {
  IDF_CLOCK_ROLLBACK: 'unavailable',
  IDF_EPOCH_HORIZON: 'unavailable',
  IDF_MONOTONIC_OVERFLOW: 'unavailable',
  IDF_INVALID_ID: 'invalid',
  IDF_INVALID_LAYOUT: 'internal',
  IDF_STORE_UNAVAILABLE: 'unavailable',
  IDF_NO_FREE_WORKER: 'unavailable',
  IDF_LEASE_LOST: 'unavailable',
  IDF_NOT_READY: 'unavailable',
  IDF_BEHIND_MARK: 'unavailable',
  IDF_CLOCK_SKEW: 'unavailable',
  IDF_DUPLICATE_WORKER: 'unavailable',
  IDF_UNKNOWN_TAG: 'not-found',
  IDF_TAG_EXISTS: 'conflict',
  IDF_SEQUENCE_EXHAUSTED: 'unavailable',
  IDF_COUNTER_REGRESSED: 'unavailable',
  IDF_GAP_FREE_TIMEOUT: 'unavailable',
  IDF_CLOCK_STALLED: 'unavailable',
  IDF_DRIVER_MISSING: 'internal',
  IDF_STORE_NOT_MIGRATED: 'unavailable',
  IDF_STORE_AUTH: 'unavailable',
  IDF_STORE_PATH: 'internal',
  IDF_SERVICE_UNAVAILABLE: 'unavailable',
  // The calling application sent a request the service refuses, or holds a bad token: its own
  // fault, not its caller's.
  IDF_SERVICE_REJECTED: 'internal',
  IDF_SERVICE_AUTH: 'internal',
  IDF_SERVICE_RESPONSE: 'upstream',
  IDF_CLIENT_CLOSED: 'unavailable',
  IDF_BENCH_TARGET_IN_USE: 'internal',
  IDF_BENCH_REPORT_WRITE: 'internal',
  IDF_BACKFILL_NO_KEY: 'internal',
  IDF_BACKFILL_TABLE: 'internal',
  // A public ID that does not decode names nothing: "not found", never a hint that it was close.
  IDF_PUBLIC_ID_INVALID: 'not-found',
  IDF_PUBLIC_KEY_RETIRED: 'gone',
  IDF_PUBLIC_KEYS_INVALID: 'internal',
  IDF_HLC_DRIFT: 'invalid',
  IDF_HLC_COUNTER_OVERFLOW: 'unavailable',
  // Two minters configured with one node: an operator must give each its own.
  IDF_NODE_IN_USE: 'internal',
};
