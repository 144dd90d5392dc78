/**
 * How failures reach a client: every error answers `{"error":{"code","message"}}` with a status.
 * IdforgeError codes answer with their category's status (ERROR_CATEGORY, declared with the
 * codes), which docs/errors.md's HTTP column gives (a test keeps the two equal);
 * the service's own codes (request, auth, limits) are listed in docs/service.md.
 */
import {
  ERROR_CATEGORY,
  type ErrorCategory,
  type ErrorCodeValue,
  IdforgeError,
  UnknownTagError,
} from 'idforge';

/** The HTTP status of each error category (AIP-193's mapping, and 410 for a withdrawn key). */
export const CATEGORY_STATUS: Readonly<Record<ErrorCategory, number>> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  gone: 410,
  internal: 500,
  upstream: 502,
  unavailable: 503,
};

/** The HTTP status of each IdforgeError code (docs/errors.md, "HTTP status"): its category's. */
export const CODE_STATUS: Readonly<Record<ErrorCodeValue, number>> = Object.fromEntries(
  Object.entries(ERROR_CATEGORY).map(([code, category]) => [code, CATEGORY_STATUS[category]]),
) as Record<ErrorCodeValue, number>;

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
