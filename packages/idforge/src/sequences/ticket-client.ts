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
import { IdforgeError } from '../core/index.js';
import { StoreUnavailableError } from '../core/internal.js';
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
        if (!isServerFailure(e)) throw e;
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

  /**
   * The error when no server answered: when every server failed for one cause with a code of
   * its own (not set up, credentials refused, not migrated), that error, which names its fix;
   * else `StoreUnavailableError` naming each server with its backend and reason. Back-off
   * timing is the client's business, not the caller's: it is in stats(), not in the message.
   */
  #allDown(): IdforgeError {
    const causes = this.#states.map((s) => s.lastError).filter((e) => e !== null);
    const first = causes[0];
    if (
      causes.length === this.#states.length &&
      first instanceof IdforgeError &&
      !(first instanceof StoreUnavailableError) &&
      causes.every((e) => e instanceof IdforgeError && e.code === first.code)
    ) {
      return first;
    }
    const detail = this.#states
      .map((s) => {
        const why = s.lastError === null ? 'not tried (failed recently)' : shortReason(s.lastError);
        return `${s.server.backend} at ${s.server.address}: ${why}`;
      })
      .join('; ');
    const backends = [...new Set(this.#states.map((s) => s.server.backend))].join(',');
    const addresses = this.#states.map((s) => s.server.address).join(', ');
    const n = this.#states.length;
    const message =
      `no ticket server of "${this.name}" answered (${n === 1 ? 'its only server' : `all ${n}`}): ` +
      `${detail}. Check that ${n === 1 ? 'the server is' : 'the servers are'} running and reachable.`;
    const cause = new AggregateError(causes, message);
    return new StoreUnavailableError(backends, addresses, `ticket "${this.name}"`, cause, message);
  }
}

/**
 * A failure of one server that another may not share: unreachable, or a store error with a
 * code of its own (sequence not set up there, credentials, not migrated). Exhaustion and
 * misuse are not: they are passed on at once.
 */
function isServerFailure(e: unknown): boolean {
  return (
    e instanceof StoreUnavailableError ||
    (e instanceof IdforgeError &&
      (e.code === 'IDF_UNKNOWN_TAG' ||
        e.code === 'IDF_STORE_AUTH' ||
        e.code === 'IDF_STORE_NOT_MIGRATED'))
  );
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
