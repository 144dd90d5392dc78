/**
 * How failures reach a client: every error answers `{"error":{"code","message"}}` (the wire
 * contract's ServiceErrorBody) with the HTTP status of the code's category. IdforgeError codes
 * have theirs declared with the codes (ERROR_CATEGORY), and docs/errors.md's HTTP column gives
 * the status (a test keeps the two equal); the service's own codes (request, auth, limits) have
 * theirs declared below, beside the codes, and are listed in docs/service.md.
 */
import {
  ClockRollbackError,
  ERROR_CATEGORY,
  type ErrorCategory,
  ErrorCode,
  type ErrorCodeValue,
  IdforgeError,
} from 'idforge';
import { UnknownTagError } from 'idforge/sequences';
import type { ServiceErrorBody } from 'idforge/wire';
import { PRINTABLE_PATTERN, PRINTABLE_WORDS } from './schemas.js';

/**
 * The categories of the service's answers: the library's, and three only the HTTP edge gives: a
 * caller over its rate (`rate-limited`: retry after Retry-After), a request not received
 * whole in time (`request-timeout`: send it at once) and a method the route does not answer
 * (`method-not-allowed`: HEAD on a route that mints, which would mint and drop what it minted).
 */
export type ServiceCategory =
  | ErrorCategory
  | 'rate-limited'
  | 'request-timeout'
  | 'method-not-allowed';

/** The HTTP status of each category (AIP-193's mapping, and 410 for a withdrawn key). */
export const CATEGORY_STATUS: Readonly<Record<ServiceCategory, number>> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  'method-not-allowed': 405,
  'request-timeout': 408,
  conflict: 409,
  gone: 410,
  'rate-limited': 429,
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
  METHOD_NOT_ALLOWED: 'IDF_METHOD_NOT_ALLOWED',
  REQUEST_TIMEOUT: 'IDF_REQUEST_TIMEOUT',
  RATE_LIMITED: 'IDF_RATE_LIMITED',
  OVERLOADED: 'IDF_OVERLOADED',
  NO_SEQUENCES: 'IDF_NO_SEQUENCES',
  INTERNAL: 'IDF_INTERNAL',
} as const;
export type ServiceCodeValue = (typeof ServiceCode)[keyof typeof ServiceCode];

/**
 * The category of each service code, so its status: total by its type (a new code does not
 * compile without one). docs/service.md's status column is the category's (a test checks).
 */
export const SERVICE_CATEGORY = {
  IDF_BAD_REQUEST: 'invalid',
  IDF_UNAUTHORIZED: 'unauthorized',
  IDF_FORBIDDEN: 'forbidden',
  IDF_NOT_FOUND: 'not-found',
  IDF_METHOD_NOT_ALLOWED: 'method-not-allowed',
  IDF_REQUEST_TIMEOUT: 'request-timeout',
  IDF_RATE_LIMITED: 'rate-limited',
  IDF_OVERLOADED: 'unavailable',
  IDF_NO_SEQUENCES: 'not-found',
  IDF_INTERNAL: 'internal',
} as const satisfies Readonly<Record<ServiceCodeValue, ServiceCategory>>;

/** Every code a client can read in an answer: the library's errors' and the service's own. */
export type AnswerCode = ErrorCodeValue | ServiceCodeValue;

/** The category of any code an answer carries. */
export function categoryOf(code: AnswerCode): ServiceCategory {
  return code in SERVICE_CATEGORY
    ? SERVICE_CATEGORY[code as ServiceCodeValue]
    : ERROR_CATEGORY[code as ErrorCodeValue];
}

/** The HTTP status of any code an answer carries: its category's. */
export function statusOf(code: AnswerCode): number {
  return CATEGORY_STATUS[categoryOf(code)];
}

/** The JSON text of an error answer (what every route, hook and handler sends). */
export function errorJson(code: string, message: string): string {
  const body: ServiceErrorBody = { error: { code, message } };
  return JSON.stringify(body);
}

/** An unknown tag, or a request the service refused itself: nothing a store did. */
export function isCallerError(error: unknown): boolean {
  return (
    error instanceof UnknownTagError ||
    error instanceof HttpError ||
    error instanceof RangeError ||
    error instanceof TypeError
  );
}

/**
 * An error the service raises itself: a code a client can read and its message; the status
 * is the code's category's ({@link statusOf}).
 */
export class HttpError extends Error {
  readonly statusCode: number;
  readonly code: AnswerCode;
  constructor(code: AnswerCode, message: string) {
    super(message);
    this.name = 'HttpError';
    this.code = code;
    this.statusCode = statusOf(code);
  }
}

export const badRequest = (message: string) => new HttpError(ServiceCode.BAD_REQUEST, message);
export const notFound = (message: string) => new HttpError(ServiceCode.NOT_FOUND, message);

/** The JSON body of an error answer (the wire contract's, in idforge's core/wire.ts). */
export type ErrorBody = ServiceErrorBody;

/**
 * The service code of a 4xx that carries no code of its own (Fastify's, a plugin's, Node's):
 * the status keeps its meaning (403 is IDF_FORBIDDEN, never IDF_BAD_REQUEST); any other 4xx
 * (400, 413, 414, 415, 417, 431...) is a request to fix.
 */
export function codeOfStatus(status: number): ServiceCodeValue {
  switch (status) {
    case 401:
      return ServiceCode.UNAUTHORIZED;
    case 403:
      return ServiceCode.FORBIDDEN;
    case 404:
      return ServiceCode.NOT_FOUND;
    case 405:
      return ServiceCode.METHOD_NOT_ALLOWED;
    case 408:
      return ServiceCode.REQUEST_TIMEOUT;
    case 429:
      return ServiceCode.RATE_LIMITED;
    default:
      return ServiceCode.BAD_REQUEST;
  }
}

/** What a failure answers: its status, code and message. */
export interface Failure {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

const failure = (code: AnswerCode, message: string): Failure => ({
  status: statusOf(code),
  code,
  message,
});

/** A caller's value in a message: JSON (control characters escaped), clipped to 24 characters. */
export function shown(value: unknown): string {
  const v = typeof value === 'string' && value.length > 24 ? `${value.slice(0, 24)}…` : value;
  return JSON.stringify(v) ?? String(v);
}

/** What Ajv (with `verbose`, see app.ts) says of the first failure of a schema. */
interface AjvFailure {
  readonly keyword?: string;
  readonly instancePath?: string;
  readonly params?: Record<string, unknown>;
  readonly data?: unknown;
  readonly parentSchema?: { readonly properties?: Record<string, unknown> };
}

/**
 * Ajv's message in words that name what is wrong, in one place for every route (and the fast
 * lane, which hands refusals to the routes): an unknown parameter or property by name, with a
 * near miss and the names there are; a value outside an enum with the allowed values; a query
 * parameter given more than once as that (Ajv says "must be integer" of `count=1&count=2`,
 * which the querystring parser made an array); a pattern that has words in them.
 */
function validationMessage(e: { message?: string; validation?: unknown }): string {
  const first = (Array.isArray(e.validation) ? e.validation[0] : undefined) as
    | AjvFailure
    | undefined;
  const context = String((e as { validationContext?: unknown }).validationContext ?? 'body');
  const at = `${context}${first?.instancePath ?? ''}`;
  switch (first?.keyword) {
    case 'additionalProperties':
      return unknownName(at, context, first);
    case 'enum':
      return `${at} must be one of ${allowed(first)}; got ${shown(first.data)}`;
    case 'type':
      if (context === 'querystring' && Array.isArray(first.data)) {
        const n = first.data.length;
        return `${at} is given ${n === 2 ? 'twice' : `${n} times`}: give it once`;
      }
      break;
    case 'pattern':
      if (first.params?.pattern === PRINTABLE_PATTERN) return `${at} ${PRINTABLE_WORDS}`;
      break;
  }
  return String(e.message);
}

/** The values an enum allows, as a list. */
function allowed(f: AjvFailure): string {
  const values = f.params?.allowedValues;
  return Array.isArray(values) ? values.join(', ') : String(values);
}

/** A name the schema does not have: named, with a near miss, and the names it has. */
function unknownName(at: string, context: string, f: AjvFailure): string {
  const name = String(f.params?.additionalProperty);
  const names = Object.keys(f.parentSchema?.properties ?? {});
  const [what, whats] =
    context === 'querystring' ? ['parameter', 'parameters'] : ['property', 'properties'];
  const near = nearest(name, names);
  const guess = near === undefined ? '' : ` (did you mean ${shown(near)}?)`;
  const list = names.length === 0 ? `it takes no ${whats}` : `its ${whats} are ${names.join(', ')}`;
  return `${at} has no ${what} ${shown(name)}${guess}; ${list}`;
}

/** The name closest to `given` within two edits (case ignored), if one is. */
export function nearest(given: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const n of names) {
    const d = editDistance(given.toLowerCase(), n.toLowerCase());
    if (d < bestD) [best, bestD] = [n, d];
  }
  return best;
}

/** Levenshtein distance, with a swap of two neighbours as one edit (`stpe` is `step`'s). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    const up = d[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * Status, code and message of any error that reaches a route. An error of the service or the
 * library answers with its code's status; Fastify's and its plugins' own (a 413, a 404 under
 * /docs) keep their status, with the service code of it ({@link codeOfStatus}); schema
 * failures and misuse (`RangeError`, `TypeError`) are the caller's: IDF_BAD_REQUEST; anything
 * else is IDF_INTERNAL, and a 500 says only that (never the error's own message).
 */
export function describeFailure(error: unknown): Failure {
  if (error instanceof HttpError) return failure(error.code, error.message);
  if (error instanceof IdforgeError) {
    const status = CODE_STATUS[error.code] ?? statusOf(ServiceCode.INTERNAL);
    return { status, code: error.code, message: error.message };
  }
  const e = error as { statusCode?: number; code?: string; message?: string; validation?: unknown };
  if (e?.validation !== undefined) return failure(ServiceCode.BAD_REQUEST, validationMessage(e));
  // Fastify's own errors carry their status (some are RangeErrors: 413 body too large).
  const own = typeof e?.statusCode === 'number' && e.statusCode >= 400 ? e.statusCode : undefined;
  if (own === undefined && (e instanceof RangeError || e instanceof TypeError)) {
    return failure(ServiceCode.BAD_REQUEST, e.message);
  }
  const status = own ?? statusOf(ServiceCode.INTERNAL);
  if (status < 500) return { status, code: codeOfStatus(status), message: String(e.message) };
  return {
    status,
    code: ServiceCode.INTERNAL,
    message: status === 500 ? 'internal error (see the server log)' : String(e.message),
  };
}

/**
 * A failure of a Leaf route as Leaf answers it: 500 with a text body, whatever the cause; auth
 * failures keep their status (Leaf has no auth). `cause` is the failure as the other routes
 * answer it: its status says whether it is the server's (500 or more: logged, as theirs are)
 * or the caller's (an unknown tag, 404 elsewhere, is 500 here only because Leaf says so).
 */
export function leafFailure(error: unknown): {
  readonly status: number;
  readonly body: string;
  readonly cause: Failure;
} {
  const f = describeFailure(error);
  return {
    status: f.status === 401 || f.status === 403 ? f.status : 500,
    body: `${f.code}: ${f.message}`,
    cause: f,
  };
}

/**
 * The failures of a store (counted by backend and operation in `idforge_store_errors_total`),
 * by code: the store errors' classes are @idforge/stores', which the service opens only
 * through its composition root; the codes are the one catalogue's.
 */
const STORE_FAILURES: ReadonlySet<string> = new Set([
  ErrorCode.STORE_UNAVAILABLE,
  ErrorCode.STORE_NOT_MIGRATED,
  ErrorCode.STORE_AUTH,
  ErrorCode.STORE_PATH,
]);

/** The series a failure moves (metrics.ts's ServiceMetrics, which imports this module). */
export interface FailureCounts {
  storeError(backend: string, operation: string): void;
  rollbackRefused(): void;
}

/** What a failed request tells the metrics: a store failure, a clock rollback refused. */
export function countFailure(metrics: FailureCounts, error: unknown): void {
  if (error instanceof IdforgeError && STORE_FAILURES.has(error.code)) {
    const e = error as { backend?: string; operation?: string };
    metrics.storeError(e.backend ?? 'unknown', e.operation ?? 'unknown');
  }
  if (error instanceof ClockRollbackError) metrics.rollbackRefused();
}

/** Where a failure of the server's own (500 or more) is logged: the app's logger. */
export interface FailureLog {
  error(fields: { code: string; route: string | undefined }, message: string): void;
}

/** A failed request's answer in the documented shape: status, JSON body, whether to say Retry-After. */
export interface FailureAnswer {
  readonly status: number;
  readonly body: string;
  /** A 503 or 429: `Retry-After: 1`, unless the rate limit set the seconds left in its window. */
  readonly retryAfter: boolean;
}

/**
 * The answer to a request of `route` that failed with `error`, logged (500 or more) and
 * counted ({@link countFailure}): what the errors plugin's handler and the fast lane send.
 */
export function failureAnswer(
  metrics: FailureCounts,
  log: FailureLog | undefined,
  route: string | undefined,
  error: unknown,
): FailureAnswer {
  const f = describeFailure(error);
  if (f.status >= 500) log?.error({ code: f.code, route }, f.message);
  countFailure(metrics, error);
  const retryAfter = f.status === 503 || f.status === 429;
  return { status: f.status, body: errorJson(f.code, f.message), retryAfter };
}

/**
 * The answer of a Leaf route of `route` that failed with `error` ({@link leafFailure}), a
 * failure of the server's own logged: what the Leaf routes and the fast lane send, as text.
 */
export function leafFailureAnswer(
  log: FailureLog | undefined,
  route: string,
  error: unknown,
): { readonly status: number; readonly body: string } {
  const f = leafFailure(error);
  const c = f.cause;
  if (c.status >= 500) log?.error({ code: c.code, route }, c.message);
  return f;
}
