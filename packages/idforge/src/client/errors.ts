/**
 * Operational errors of `idforge/client`, the HTTP client of the idforge service. Part of the
 * one catalogue: every code is documented with its fix in `docs/errors.md` (a test keeps the
 * two in step). A file of their own: recognising one loads no HTTP code.
 *
 * They are raised in the caller's process, never by the service: a server's own error reaches
 * the caller inside one of them (`serverCode`, `serverMessage`). No message, field or cause
 * ever carries the bearer token: base URLs with credentials are refused at construction, and
 * the token travels only in the Authorization header.
 */
import { IdforgeError } from '../core/index.js';

/** Why one server did not serve a request, as listed by {@link ServiceUnavailableError}. */
export interface ServerFailure {
  /** The server's base URL, as configured (normalised, never with credentials). */
  readonly url: string;
  /** Human-readable: "connect ECONNREFUSED 127.0.0.1:8080", "HTTP 503 IDF_NOT_READY: ...". */
  readonly reason: string;
  /** The HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** The server's error code, when it answered with one. */
  readonly serverCode: string | undefined;
  /** Whether this request tried it (false: skipped, it failed recently and is backing off). */
  readonly tried: boolean;
}

/**
 * No server of the list served the request: each one that was tried failed with a network
 * error, a timeout, a 5xx or a 429, and the others were backing off after a recent failure.
 * `failures` names every server with its reason; `retryAfterMs` is the shortest Retry-After
 * a rate-limiting server asked for, when one did. Nothing was issued to the caller; a server
 * may have allocated numbers whose answer never arrived (a gap, never a duplicate).
 */
export class ServiceUnavailableError extends IdforgeError {
  /** What was asked: "GET /v1/ids/uuidv7", "POST /v1/sequences/orders/segments". */
  readonly operation: string;
  readonly failures: readonly ServerFailure[];
  readonly retryAfterMs: number | undefined;

  constructor(
    operation: string,
    failures: readonly ServerFailure[],
    retryAfterMs?: number,
    cause?: unknown,
  ) {
    const n = failures.length;
    const detail = failures.map((f) => `${f.url}: ${f.reason}`).join('; ');
    const wait = retryAfterMs === undefined ? '' : ` A server asked to wait ${retryAfterMs} ms.`;
    super(
      'IDF_SERVICE_UNAVAILABLE',
      `no idforge server served ${operation} (${n === 1 ? 'its only server' : `all ${n}`}): ` +
        `${detail}. Check that the service is running and reachable at these URLs; the ` +
        `client tries a failed server again after a back-off.${wait}`,
      { cause },
    );
    this.operation = operation;
    this.failures = failures;
    this.retryAfterMs = retryAfterMs;
  }
}

/** What a server said when it refused a request: its status, code and message. */
export interface ServiceAnswer {
  /** The base URL of the server that answered. */
  readonly url: string;
  readonly operation: string;
  readonly status: number;
  /** The `error.code` of the body (`IDF_UNKNOWN_TAG`, `IDF_BAD_REQUEST`, ...), if it had one. */
  readonly serverCode: string | undefined;
  /** The `error.message` of the body, or the start of a body that was not an idforge error. */
  readonly serverMessage: string;
}

function answered(a: ServiceAnswer): string {
  const code = a.serverCode === undefined ? '' : ` ${a.serverCode}`;
  return `${a.url} answered ${a.operation} with HTTP ${a.status}${code}: ${a.serverMessage}`;
}

/**
 * A server refused the request itself, in an idforge error body (400 bad input, 404 unknown
 * tag or scheme, or another 4xx but 401, 403 and 429). Another server would refuse it too, so the client neither
 * retries nor fails over. `serverCode` and `serverMessage` are the server's own words.
 */
export class ServiceRejectedError extends IdforgeError {
  readonly url: string;
  readonly operation: string;
  readonly status: number;
  readonly serverCode: string | undefined;
  readonly serverMessage: string;

  constructor(answer: ServiceAnswer) {
    super(
      'IDF_SERVICE_REJECTED',
      `${answered(answer)}. The request is invalid for the service (a tag not created, a ` +
        'scheme it does not serve, a count above its limit): retrying cannot help.',
    );
    this.url = answer.url;
    this.operation = answer.operation;
    this.status = answer.status;
    this.serverCode = answer.serverCode;
    this.serverMessage = answer.serverMessage;
  }
}

/**
 * A server refused the token, in an idforge error body: 401 (none sent, malformed or unknown)
 * or 403 (valid, but not for this scheme or tag). Every server shares the token configuration, so the client neither
 * retries nor fails over.
 */
export class ServiceAuthError extends IdforgeError {
  readonly url: string;
  readonly operation: string;
  readonly status: number;
  readonly serverCode: string | undefined;
  readonly serverMessage: string;

  constructor(answer: ServiceAnswer) {
    const fix =
      answer.status === 403
        ? 'the token is valid but not for this scheme or tag: use a token scoped to it'
        : 'pass the token the service was configured with (createClient({ token }))';
    super('IDF_SERVICE_AUTH', `${answered(answer)}. ${fix}.`);
    this.url = answer.url;
    this.operation = answer.operation;
    this.status = answer.status;
    this.serverCode = answer.serverCode;
    this.serverMessage = answer.serverMessage;
  }
}

/**
 * A server answered with a body that breaks the service's contract: not JSON, the wrong
 * shape, an ID that is not of the scheme asked for, a number outside 0 .. 2^63 - 1, a segment
 * below one already received, a redirect. Nothing of that answer is handed out. `reason`
 * says what was wrong. The client does not fail over: a URL pointing at something other than
 * the idforge service must be fixed, not hidden.
 */
export class ServiceResponseError extends IdforgeError {
  readonly url: string;
  readonly operation: string;
  readonly status: number;
  readonly reason: string;

  constructor(url: string, operation: string, status: number, reason: string) {
    super(
      'IDF_SERVICE_RESPONSE',
      `${url} answered ${operation} (HTTP ${status}) with a response the idforge service never ` +
        `sends: ${reason}. Check that this URL is the idforge service's (not a proxy's or ` +
        "another service's) and that client and service versions match.",
    );
    this.url = url;
    this.operation = operation;
    this.status = status;
    this.reason = reason;
  }
}

/** The client was closed: calls after `close()` and requests in flight at `close()` reject. */
export class ClientClosedError extends IdforgeError {
  readonly operation: string;

  constructor(operation: string) {
    super(
      'IDF_CLIENT_CLOSED',
      `the idforge client is closed: ${operation} was not served. Create a new client, or ` +
        'close it only after its last call.',
    );
    this.operation = operation;
  }
}
