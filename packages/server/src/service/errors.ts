/**
 * How failures reach a client: every error answers `{"error":{"code","message"}}` with a status.
 * IdforgeError codes map as docs/errors.md's HTTP column says (a test keeps the two equal);
 * the service's own codes (request, auth, limits) are listed in docs/service.md.
 */
import { IdforgeError, UnknownTagError } from 'idforge';

/** The HTTP status of each IdforgeError code (docs/errors.md, "HTTP status"). */
export const CODE_STATUS: Readonly<Record<string, number>> = {
  IDF_CLOCK_ROLLBACK: 503,
  IDF_EPOCH_HORIZON: 503,
  IDF_MONOTONIC_OVERFLOW: 503,
  IDF_INVALID_ID: 400,
  IDF_INVALID_LAYOUT: 500,
  IDF_STORE_UNAVAILABLE: 503,
  IDF_STORE_NOT_MIGRATED: 503,
  IDF_STORE_AUTH: 503,
  IDF_STORE_PATH: 500,
  IDF_DRIVER_MISSING: 500,
  IDF_NO_FREE_WORKER: 503,
  IDF_LEASE_LOST: 503,
  IDF_NOT_READY: 503,
  IDF_BEHIND_MARK: 503,
  IDF_CLOCK_SKEW: 503,
  IDF_DUPLICATE_WORKER: 503,
  IDF_UNKNOWN_TAG: 404,
  IDF_TAG_EXISTS: 409,
  IDF_SEQUENCE_EXHAUSTED: 503,
  IDF_COUNTER_REGRESSED: 503,
  IDF_CLOCK_STALLED: 503,
  IDF_BENCH_TARGET_IN_USE: 500,
  IDF_BACKFILL_NO_KEY: 500,
  IDF_BACKFILL_TABLE: 500,
  IDF_PUBLIC_ID_INVALID: 404,
  IDF_PUBLIC_KEY_RETIRED: 410,
  IDF_PUBLIC_KEYS_INVALID: 500,
  IDF_HLC_DRIFT: 400,
  IDF_HLC_COUNTER_OVERFLOW: 503,
};

/** Codes of the service itself (not IdforgeError classes): request, auth and limits. */
export const ServiceCode = {
  BAD_REQUEST: 'IDF_BAD_REQUEST',
  UNAUTHORIZED: 'IDF_UNAUTHORIZED',
  FORBIDDEN: 'IDF_FORBIDDEN',
  NOT_FOUND: 'IDF_NOT_FOUND',
  REQUEST_TIMEOUT: 'IDF_REQUEST_TIMEOUT',
  RATE_LIMITED: 'IDF_RATE_LIMITED',
  OVERLOADED: 'IDF_OVERLOADED',
  NO_SEQUENCES: 'IDF_NO_SEQUENCES',
  INTERNAL: 'IDF_INTERNAL',
} as const;

/** An unknown tag, or a request the service refused itself: nothing a store did. */
export function isCallerError(error: unknown): boolean {
  return (
    error instanceof UnknownTagError ||
    error instanceof HttpError ||
    error instanceof RangeError ||
    error instanceof TypeError
  );
}

/** An error the service raises itself, with its status. */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: string;
  constructor(statusCode: number, code: string, message: string) {
    super(message);
    this.name = 'HttpError';
    this.statusCode = statusCode;
    this.code = code;
  }
}

export const badRequest = (message: string) => new HttpError(400, ServiceCode.BAD_REQUEST, message);
export const notFound = (message: string) => new HttpError(404, ServiceCode.NOT_FOUND, message);

/** The JSON body of an error answer. */
export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string };
}

/**
 * The service code of a 4xx that carries no code of its own (Fastify's, a plugin's, Node's):
 * the status keeps its meaning (403 is IDF_FORBIDDEN, never IDF_BAD_REQUEST); any other 4xx
 * (400, 413, 414, 415, 417, 431...) is a request to fix.
 */
export function codeOfStatus(status: number): string {
  switch (status) {
    case 401:
      return ServiceCode.UNAUTHORIZED;
    case 403:
      return ServiceCode.FORBIDDEN;
    case 404:
      return ServiceCode.NOT_FOUND;
    case 408:
      return ServiceCode.REQUEST_TIMEOUT;
    case 429:
      return ServiceCode.RATE_LIMITED;
    default:
      return ServiceCode.BAD_REQUEST;
  }
}

/** Status, code and message of any error that reaches a route. */
export function describeFailure(error: unknown): { status: number; code: string; message: string } {
  if (error instanceof HttpError)
    return { status: error.statusCode, code: error.code, message: error.message };
  if (error instanceof IdforgeError) {
    return { status: CODE_STATUS[error.code] ?? 500, code: error.code, message: error.message };
  }
  const e = error as { statusCode?: number; code?: string; message?: string; validation?: unknown };
  if (e?.validation !== undefined)
    return { status: 400, code: ServiceCode.BAD_REQUEST, message: String(e.message) };
  // Fastify's own errors carry their status (some are RangeErrors: 413 body too large).
  const own = typeof e?.statusCode === 'number' && e.statusCode >= 400 ? e.statusCode : undefined;
  if (own === undefined && (e instanceof RangeError || e instanceof TypeError)) {
    return { status: 400, code: ServiceCode.BAD_REQUEST, message: e.message };
  }
  const status = own ?? 500;
  if (status < 500) return { status, code: codeOfStatus(status), message: String(e.message) };
  return {
    status,
    code: ServiceCode.INTERNAL,
    message: status === 500 ? 'internal error (see the server log)' : String(e.message),
  };
}
