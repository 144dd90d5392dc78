/**
 * The client side of Flickr's ticket servers: N {@link TicketServer}s set up with increment N
 * and offsets 1..N, asked in turn (round robin), so that load is shared and any one of them
 * may be down without stopping anyone.
 *
 * Uniqueness is by construction: server i only ever issues i, i + N, i + 2N, ... (its own
 * residue), and each server's sequence only moves up, also across crashes when the server is
 * durable (see docs/sequences-tickets.md). The client adds no state that uniqueness depends on.
 *
 * Order: each server's tickets increase, the merged stream does NOT. Two servers drift apart
 * (one may be thousands ahead, or was down for an hour), so a ticket taken later can be smaller
 * than one taken earlier. Use segment sequences if you need increasing numbers per process.
 *
 * Failover: a server that fails a request (`StoreUnavailableError`) is marked down and the same
 * request is retried at once on the next server in turn, so a request succeeds while any
 * server is up. A down server is skipped until its back-off passes (retryAfterMs, doubled after
 * each failed probe up to maxRetryAfterMs); then the next request probes it (one probe at a
 * time; the request falls through to the others if the probe fails) and a success brings it
 * back. When no server could answer, the request rejects with `StoreUnavailableError` naming
 * every server, after at most one attempt per server (each bounded by that server's timeouts);
 * when every server is in back-off it rejects at once without trying. Other errors
 * (`RangeError`, `SequenceExhaustedError`) are passed on unchanged and never fail over.
 *
 * Holds per-server state; safe to share within a process; no timers.
 */
import { StoreUnavailableError } from '../core/index.js';
import type { TicketServer } from './ports.js';

/** What a ticket client offers: one ticket, or several (one round trip per ticket). */
export interface TicketSource {
  next(): Promise<bigint>;
  nextBatch(count: number): Promise<bigint[]>;
}

/** Options of {@link TicketClient}. */
export interface TicketClientOptions {
  /** First back-off of a server that failed, ms. Default 500. */
  readonly retryAfterMs?: number;
  /** Largest back-off, ms. Default 10000. */
  readonly maxRetryAfterMs?: number;
  /** Requests of one nextBatch in flight at once. Default 8. */
  readonly batchConcurrency?: number;
  /** Monotonic milliseconds. Default performance.now. */
  readonly now?: () => number;
  /** Told when a server goes down or comes back (for logs). */
  readonly onStateChange?: (event: TicketServerEvent) => void;
}

export interface TicketServerEvent {
  readonly address: string;
  readonly state: 'down' | 'up';
  /** The failure that took it down. */
  readonly error?: unknown;
}

/** Counters and state of one server, as returned by {@link TicketClient.stats}. */
export interface TicketServerStats {
  readonly backend: string;
  readonly address: string;
  readonly up: boolean;
  /** Tickets this server issued to this client. */
  readonly tickets: number;
  /** Requests to it that failed. */
  readonly failures: number;
  /** Requests it failed that another server then served. */
  readonly failovers: number;
}

interface ServerState {
  readonly server: TicketServer;
  up: boolean;
  probing: boolean;
  retryAt: number;
  backoffMs: number;
  lastError: unknown;
  tickets: number;
  failures: number;
  failovers: number;
}

export class TicketClient implements TicketSource {
  /** The sequence this client takes tickets of. */
  readonly name: string;
  readonly #states: ServerState[];
  readonly #retryAfterMs: number;
  readonly #maxRetryAfterMs: number;
  readonly #batchConcurrency: number;
  readonly #now: () => number;
  readonly #onStateChange: (event: TicketServerEvent) => void;
  #cursor = 0;

  /**
   * `servers` in plan order (server i has offset i); the client does not own them (close them
   * yourself). Throws `RangeError` for no servers or a bad option.
   */
  constructor(servers: readonly TicketServer[], name: string, options: TicketClientOptions = {}) {
    if (servers.length === 0)
      throw new RangeError('servers: expected at least one ticket server, got none');
    this.name = name;
    this.#retryAfterMs = positive('retryAfterMs', options.retryAfterMs ?? 500);
    this.#maxRetryAfterMs = positive('maxRetryAfterMs', options.maxRetryAfterMs ?? 10_000);
    this.#batchConcurrency = positive('batchConcurrency', options.batchConcurrency ?? 8);
    if (!Number.isInteger(this.#batchConcurrency)) {
      throw new RangeError(`batchConcurrency: expected an integer, got ${this.#batchConcurrency}`);
    }
    this.#now = options.now ?? (() => performance.now());
    this.#onStateChange = options.onStateChange ?? (() => {});
    this.#states = servers.map((server) => ({
      server,
      up: true,
      probing: false,
      retryAt: 0,
      backoffMs: 0,
      lastError: null,
      tickets: 0,
      failures: 0,
      failovers: 0,
    }));
  }

  /** The next ticket, from the next server in turn that answers. See the class comment. */
  async next(): Promise<bigint> {
    const n = this.#states.length;
    const start = this.#cursor;
    this.#cursor = (start + 1) % n;
    const failed: ServerState[] = [];
    for (let i = 0; i < n; i++) {
      const s = this.#states[(start + i) % n]!;
      const probe = !s.up;
      if (probe) {
        if (s.probing || this.#now() < s.retryAt) continue;
        s.probing = true;
      }
      try {
        const ticket = await s.server.next(this.name);
        s.tickets++;
        if (!s.up) this.#markUp(s);
        for (const f of failed) f.failovers++;
        return ticket;
      } catch (e) {
        if (!(e instanceof StoreUnavailableError)) throw e;
        s.failures++;
        failed.push(s);
        this.#markDown(s, e, probe);
      } finally {
        if (probe) s.probing = false;
      }
    }
    throw this.#allDown();
  }

  /**
   * `count` tickets (an integer >= 0), one request each, up to batchConcurrency at once, in the
   * order they arrived (not sorted). Rejects like {@link next} as soon as one request fails;
   * tickets already taken by the batch are then lost (gaps, never duplicates).
   */
  async nextBatch(count: number): Promise<bigint[]> {
    if (!Number.isInteger(count) || count < 0) {
      throw new RangeError(`count: expected an integer >= 0, got ${count}`);
    }
    const out: bigint[] = [];
    let started = 0;
    let failed = false;
    const worker = async () => {
      while (started < count && !failed) {
        started++;
        try {
          out.push(await this.next());
        } catch (e) {
          failed = true;
          throw e;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(count, this.#batchConcurrency) }, worker));
    return out;
  }

  /** Per server, in the order given: state and counters since construction. */
  stats(): TicketServerStats[] {
    return this.#states.map((s) => ({
      backend: s.server.backend,
      address: s.server.address,
      up: s.up,
      tickets: s.tickets,
      failures: s.failures,
      failovers: s.failovers,
    }));
  }

  #markDown(s: ServerState, error: unknown, probe: boolean): void {
    s.lastError = error;
    if (s.up) {
      s.up = false;
      s.backoffMs = this.#retryAfterMs;
      s.retryAt = this.#now() + s.backoffMs;
      this.#onStateChange({ address: s.server.address, state: 'down', error });
    } else if (probe) {
      // Only a failed probe doubles the back-off: requests that were in flight when the
      // server died all fail together and must not push it to the maximum at once.
      s.backoffMs = Math.min(2 * s.backoffMs, this.#maxRetryAfterMs);
      s.retryAt = this.#now() + s.backoffMs;
    }
  }

  #markUp(s: ServerState): void {
    s.up = true;
    s.backoffMs = 0;
    s.lastError = null;
    this.#onStateChange({ address: s.server.address, state: 'up' });
  }

  #allDown(): StoreUnavailableError {
    const now = this.#now();
    const causes = this.#states.map((s) => s.lastError).filter((e) => e !== null);
    const detail = this.#states
      .map((s) => {
        const why = s.lastError === null ? 'no answer' : shortReason(s.lastError);
        const wait = Math.max(0, Math.ceil(s.retryAt - now));
        return `${s.server.address}: ${why} (next probe in ${wait} ms)`;
      })
      .join('; ');
    const backends = [...new Set(this.#states.map((s) => s.server.backend))].join('+');
    const addresses = this.#states.map((s) => s.server.address).join(', ');
    const cause = new AggregateError(
      causes,
      `every ticket server of "${this.name}" is down: ${detail}`,
    );
    return new StoreUnavailableError(backends, addresses, `ticket "${this.name}"`, cause);
  }
}

/** The driver's words for a StoreUnavailableError (its own message repeats the address). */
export function shortReason(error: unknown): string {
  const inner = error instanceof StoreUnavailableError ? error.cause : error;
  return inner instanceof Error ? inner.message : String(inner);
}

function positive(name: string, value: number): number {
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new RangeError(`${name}: expected a positive number, got ${String(value)}`);
  }
  return value;
}
