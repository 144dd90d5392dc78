/**
 * The servers of one client: round robin, failover within a call, and a back-off per failed
 * server (docs/client.md, "Failover").
 *
 * Each request starts at the next server in turn. A server that fails it (a network error, no
 * answer within `timeoutMs`, a 5xx, a 429, a 4xx that is not an idforge error) is marked down and the same request goes at once to
 * the next server. A down server is skipped until its back-off passes: `probeMs` after the
 * first failure, doubled after each failed probe up to 20 x `probeMs`, jittered (half the step
 * plus a random share of the other half, so clients that failed together do not probe
 * together), and at least a 429's Retry-After. Then the request whose turn reaches it probes it
 * (one probe at a time per server; the request falls through to the others if the probe fails)
 * and any answer from it brings it back. When no server served the request, it rejects with
 * `ServiceUnavailableError` naming every server and its reason, after at most one attempt per
 * server; when every server is backing off it rejects at once, without a request.
 *
 * A server's refusal of the request itself, in an idforge error body (401, 403:
 * `ServiceAuthError`; other 4xx: `ServiceRejectedError`), or a 2xx body that breaks the
 * contract (`ServiceResponseError`) is thrown at once: another server would say the same. A
 * 4xx without an idforge error body (a plain web server, a proxy) fails over like a 5xx. No timers: the back-off is a time
 * compared on the next request. Holds per-server state; safe to share within a process.
 */
import { HLC_HEADER } from '../wire/index.js';
import {
  ClientClosedError,
  type ServerFailure,
  ServiceAuthError,
  ServiceRejectedError,
  ServiceResponseError,
  ServiceUnavailableError,
} from './errors.js';
import type { ResolvedOptions } from './options.js';
import { errorBody, networkReason, retryAfter, snippet } from './wire.js';

const HLC_TEXT = /^[0-9a-f]{12}-[0-9a-f]{4}$/;

/** One request, the same for every server. */
export interface ServiceRequest<T> {
  readonly method: 'GET' | 'POST';
  /** Path and query under the base URL: `/v1/ids/ulid?count=5`. */
  readonly path: string;
  /** Named in errors: `GET /v1/ids/ulid`. */
  readonly operation: string;
  /** A JSON body (POST only). Default none. */
  readonly body?: unknown;
  /** Turns a 2xx JSON body into the result; calls `fail(reason)` when it breaks the contract. */
  readonly parse: (body: unknown, fail: (reason: string) => never) => T;
}

/** State and counters of one server, as returned by `client.stats()`. */
export interface ServerStats {
  readonly url: string;
  /** False while backing off after a failure. */
  readonly up: boolean;
  /** Requests sent to it (probes included). */
  readonly requests: number;
  /** Requests it failed (network error, timeout, 5xx, 429, a 4xx not from idforge). */
  readonly failures: number;
}

interface ServerState {
  readonly url: string;
  up: boolean;
  probing: boolean;
  /** Monotonic ms before which a down server is skipped. */
  retryAt: number;
  backoffMs: number;
  lastReason: string;
  requests: number;
  failures: number;
}

/** A failure of one server that another server may not share: fail over. */
class Unavailable {
  constructor(
    readonly reason: string,
    readonly cause: unknown,
    readonly status?: number,
    readonly serverCode?: string,
    readonly retryAfterMs?: number,
  ) {}
}

export class ServerPool {
  readonly #servers: ServerState[];
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  readonly #timeoutMs: number;
  readonly #probeMs: number;
  readonly #headers: Record<string, string>;
  /** One controller per request in flight: its timeout and close() abort it. */
  readonly #inFlight = new Set<AbortController>();
  #closed = false;
  #cursor = 0;
  /** The latest hybrid logical clock seen (formatHlc text: fixed width, so text order is time order). */
  #hlc: string | null = null;

  constructor(options: ResolvedOptions) {
    this.#servers = options.urls.map((url) => ({
      url,
      up: true,
      probing: false,
      retryAt: 0,
      backoffMs: 0,
      lastReason: '',
      requests: 0,
      failures: 0,
    }));
    this.#fetch = options.fetch;
    this.#now = options.now;
    this.#timeoutMs = options.timeoutMs;
    this.#probeMs = options.probeMs;
    this.#headers = { accept: 'application/json' };
    if (options.token !== undefined) this.#headers.authorization = `Bearer ${options.token}`;
  }

  /** Aborts every request in flight (they reject with `ClientClosedError`) and refuses more. */
  close(): void {
    this.#closed = true;
    for (const c of this.#inFlight) c.abort();
    this.#inFlight.clear();
  }

  /** The latest HLC timestamp this client observed, or null before any. */
  get hlc(): string | null {
    return this.#hlc;
  }

  /**
   * Merges an HLC timestamp (`formatHlc` text) into what this client forwards: the later of
   * the two is kept. Returns false, changing nothing, for text that is not one.
   */
  observeHlc(text: string | null): boolean {
    if (text === null || !HLC_TEXT.test(text)) return false;
    if (this.#hlc === null || text > this.#hlc) this.#hlc = text;
    return true;
  }

  stats(): ServerStats[] {
    return this.#servers.map((s) => ({
      url: s.url,
      up: s.up,
      requests: s.requests,
      failures: s.failures,
    }));
  }

  /** Sends `req` to the next server in turn, failing over as the module comment says. */
  async request<T>(req: ServiceRequest<T>): Promise<T> {
    if (this.#closed) throw new ClientClosedError(req.operation);
    const n = this.#servers.length;
    const start = this.#cursor;
    this.#cursor = (start + 1) % n;
    const failures: ServerFailure[] = [];
    const causes: unknown[] = [];
    let retryAfterMs: number | undefined;
    for (let i = 0; i < n; i++) {
      const s = this.#servers[(start + i) % n]!;
      const probe = !s.up;
      if (probe && (s.probing || this.#now() < s.retryAt)) {
        failures.push(failure(s.url, `not tried: failed recently (${s.lastReason})`, false));
        continue;
      }
      if (probe) s.probing = true;
      try {
        const value = await this.#attempt(s, req);
        if (!s.up) this.#markUp(s);
        return value;
      } catch (e) {
        if (!(e instanceof Unavailable)) {
          // The server answered (a refusal or a bad body): it is alive.
          if (!s.up && !(e instanceof ClientClosedError)) this.#markUp(s);
          throw e;
        }
        failures.push(failure(s.url, e.reason, true, e.status, e.serverCode));
        causes.push(e.cause);
        if (e.retryAfterMs !== undefined) {
          retryAfterMs = Math.min(retryAfterMs ?? e.retryAfterMs, e.retryAfterMs);
        }
        this.#markDown(s, e, probe);
      } finally {
        if (probe) s.probing = false;
      }
    }
    const cause = new AggregateError(causes, `every server failed ${req.operation}`);
    throw new ServiceUnavailableError(req.operation, failures, retryAfterMs, cause);
  }

  /** One request to one server: the parsed result, or Unavailable, or a typed error. */
  async #attempt<T>(s: ServerState, req: ServiceRequest<T>): Promise<T> {
    if (this.#closed) throw new ClientClosedError(req.operation);
    s.requests++;
    const { res, text } = await this.#send(s, req);
    const status = res.status;
    const fail = (reason: string): never => {
      throw new ServiceResponseError(s.url, req.operation, status, reason);
    };
    const hlc = res.headers.get(HLC_HEADER);
    if (hlc !== null && !this.observeHlc(hlc)) {
      fail(`its ${HLC_HEADER} header ${snippet(hlc)} is not an HLC timestamp (0123456789ab-0000)`);
    }
    if (status >= 200 && status < 300) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return fail(`the body is not JSON (${snippet(text)})`);
      }
      return req.parse(body, fail);
    }
    return notServed({ url: s.url, operation: req.operation, status }, res, text, fail);
  }

  /**
   * Sends `req` to `s`: the answer with its whole body within `timeoutMs`, else `Unavailable`
   * (a network error, no answer or body in time), or `ClientClosedError` after close().
   */
  async #send<T>(s: ServerState, req: ServiceRequest<T>): Promise<{ res: Response; text: string }> {
    // One controller and one cleared timer per request, not AbortSignal.any over a client-wide
    // signal: composites of a long-lived signal are retained (nodejs/node#55351, #54614).
    const ctrl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort();
    }, this.#timeoutMs);
    this.#inFlight.add(ctrl);
    let res: Response | undefined;
    try {
      res = await this.#fetch(s.url + req.path, {
        method: req.method,
        headers: this.#headersOf(req),
        ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
        redirect: 'manual',
        signal: ctrl.signal,
      });
      return { res, text: await res.text() };
    } catch (e) {
      if (this.#closed) throw new ClientClosedError(req.operation);
      if (timedOut) {
        const what = res === undefined ? 'no answer' : `no complete body (HTTP ${res.status})`;
        throw new Unavailable(`${what} within ${this.#timeoutMs} ms`, e);
      }
      throw new Unavailable(networkReason(e), e);
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(ctrl);
    }
  }

  #headersOf(req: ServiceRequest<unknown>): Record<string, string> {
    const h = this.#hlc === null ? this.#headers : { ...this.#headers, [HLC_HEADER]: this.#hlc };
    return req.body === undefined ? h : { ...h, 'content-type': 'application/json' };
  }

  #markDown(s: ServerState, e: Unavailable, probe: boolean): void {
    s.failures++;
    s.lastReason = e.reason;
    if (s.up) {
      s.up = false;
      s.backoffMs = this.#probeMs;
    } else if (probe) {
      s.backoffMs = Math.min(2 * s.backoffMs, 20 * this.#probeMs);
    } else {
      // A request in flight when the server went down: its back-off is already running, and
      // requests failing together must not push it to the maximum at once.
      return;
    }
    const jittered = s.backoffMs / 2 + (Math.random() * s.backoffMs) / 2;
    s.retryAt = this.#now() + Math.max(jittered, e.retryAfterMs ?? 0);
  }

  #markUp(s: ServerState): void {
    s.up = true;
    s.backoffMs = 0;
    s.lastReason = '';
  }
}

/**
 * A server's answer other than 2xx: a refusal of the request in an idforge error body (401/403
 * `ServiceAuthError`, other 4xx `ServiceRejectedError`), a failure of that server (429, 5xx, a
 * 4xx without an idforge error body: `Unavailable`, with its Retry-After), or a status outside
 * the contract (`fail`: a redirect, a 1xx).
 */
function notServed(
  at: { readonly url: string; readonly operation: string; readonly status: number },
  res: Response,
  text: string,
  fail: (reason: string) => never,
): never {
  const { status } = at;
  const { code, message } = errorBody(text);
  const answer = { ...at, serverCode: code };
  if (code === undefined && status >= 400 && status < 500) {
    // Not an idforge error (a plain web server's 404 page, a proxy's 401): nothing another
    // node would repeat, so fail over; only an idforge refusal stops the call.
    const reason = `HTTP ${status}: ${message}: is this URL an idforge service?`;
    throw new Unavailable(reason, new Error(reason), status);
  }
  if (status === 401 || status === 403) {
    throw new ServiceAuthError({ ...answer, serverMessage: message });
  }
  if (status === 429 || (status >= 500 && status < 600)) {
    const reason = `HTTP ${status}${code === undefined ? '' : ` ${code}`}: ${message}`;
    const cause = new Error(reason);
    throw new Unavailable(reason, cause, status, code, retryAfter(res.headers.get('retry-after')));
  }
  if (status >= 400 && status < 500) {
    throw new ServiceRejectedError({ ...answer, serverMessage: message });
  }
  return fail(
    status === 0 || (status >= 300 && status < 400)
      ? 'a redirect (list the URL the service answers on, not one that redirects)'
      : `an unexpected status ${status}`,
  );
}

function failure(
  url: string,
  reason: string,
  tried: boolean,
  status?: number,
  serverCode?: string,
): ServerFailure {
  return { url, reason, status, serverCode, tried };
}
