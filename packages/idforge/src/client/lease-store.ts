/**
 * `httpLeaseStore(options)`: a `LeaseStore` (idforge/coord) over the service's lease routes
 * (`/v1/worker-leases`, a token of scope `lease`), so that a process runs
 * `createSnowflakeNode({ store: httpLeaseStore(...) })` with no credentials for the store
 * itself. The service forwards each call to its own lease store; the store decides, as for a
 * node on it directly. Failover across `urls` is the client's (servers.ts): round robin, the
 * next server at once when one fails, a back-off per failed server.
 *
 * Errors: every server failing a call (network, no answer within `timeoutMs`, 5xx, 429) is the
 * port's `StoreUnavailableError` (backend 'http', the URLs as address, the operation, the
 * client's `ServiceUnavailableError` as cause), which the node's keeper retries as any store's;
 * a refused token (`ServiceAuthError`), a refused request (`ServiceRejectedError`) or an answer
 * that breaks the contract (`ServiceResponseError`) are thrown as they are: no retry helps.
 *
 * Timing (docs/client.md, "Leases over HTTP"): a call takes at most urls.length x timeoutMs,
 * and the node's deadline is counted from when it sent the renewal, so fencing holds whatever
 * the network does; for renewals to land in time, keep urls.length x timeoutMs well under
 * ttlMs - guardMs - renewEveryMs (with the node's defaults, 10 s TTL: 4.6 s).
 */

import type {
  Lease,
  LeaseRecord,
  LeaseRequest,
  LeaseStore,
  RenewReport,
  RenewResult,
} from '../coord/ports.js';
import { StoreUnavailableError } from '../core/internal.js';
import { ServiceUnavailableError } from './errors.js';
import { clockParser, leaseParser, listParser, markParser, renewParser } from './lease-wire.js';
import { resolveOptions } from './options.js';
import { ServerPool, type ServerStats, type ServiceRequest } from './servers.js';

/** Options of {@link httpLeaseStore}. Times in milliseconds. */
export interface HttpLeaseStoreOptions {
  /** Base URLs of the service's nodes, all on the same lease store. Required. */
  readonly urls: readonly string[];
  /** A token of scope `lease` (the service's `"scopes": ["lease"]`). Default: none. */
  readonly token?: string;
  /** Per request, answer and body included. Default 1000. */
  readonly timeoutMs?: number;
  /** First back-off of a failed server. Default 500. */
  readonly probeMs?: number;
  /** The fetch to use. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Monotonic ms, for the back-off only. Default `performance.now`. */
  readonly now?: () => number;
}

const KNOWN = ['urls', 'token', 'timeoutMs', 'probeMs', 'fetch', 'now'];

/** The lease store of `httpLeaseStore`; also reports its servers' state. */
export interface HttpLeaseStore extends LeaseStore {
  /** Each server's state and counters (requests, failures). */
  stats(): ServerStats[];
}

class HttpStore implements HttpLeaseStore {
  readonly backend = 'http';
  readonly address: string;
  readonly #pool: ServerPool;

  constructor(pool: ServerPool, urls: readonly string[]) {
    this.#pool = pool;
    this.address = urls.join(',');
  }

  stats(): ServerStats[] {
    return this.#pool.stats();
  }

  /** Runs `req`; every server failing is the port's StoreUnavailableError. */
  async #call<T>(operation: string, req: ServiceRequest<T>): Promise<T> {
    try {
      return await this.#pool.request(req);
    } catch (e) {
      if (!(e instanceof ServiceUnavailableError)) throw e;
      throw new StoreUnavailableError(this.backend, this.address, operation, e);
    }
  }

  /** The service's store is migrated by whoever runs the service: nothing to do here. */
  async migrate(): Promise<void> {}

  acquire(r: LeaseRequest): Promise<Lease | null> {
    const { owner: o } = r;
    return this.#call('acquire', {
      method: 'POST',
      path: '/v1/worker-leases',
      operation: 'POST /v1/worker-leases',
      body: {
        min: r.min,
        max: r.max,
        ttlMs: r.ttlMs,
        instanceId: o.instanceId,
        host: o.host,
        pid: o.pid,
        startedAtMs: o.startedAtMs,
        clockMs: r.clockMs,
        reserveMarkMs: r.reserveMarkMs,
      },
      parse: leaseParser(r.min, r.max, o.instanceId),
    });
  }

  renew(lease: Lease, report: RenewReport): Promise<RenewResult> {
    return this.#call('renew', {
      method: 'POST',
      path: `/v1/worker-leases/${lease.workerId}/renew`,
      operation: 'POST /v1/worker-leases/{workerId}/renew',
      body: { instanceId: lease.instanceId, ...report },
      parse: renewParser,
    });
  }

  async release(lease: Lease, finalMarkMs: number | null): Promise<void> {
    await this.#call('release', {
      method: 'POST',
      path: `/v1/worker-leases/${lease.workerId}/release`,
      operation: 'POST /v1/worker-leases/{workerId}/release',
      body: { instanceId: lease.instanceId, finalMarkMs },
      parse: () => undefined,
    });
  }

  list(): Promise<LeaseRecord[]> {
    const operation = 'GET /v1/worker-leases';
    return this.#call('list', {
      method: 'GET',
      path: '/v1/worker-leases',
      operation,
      parse: listParser,
    });
  }

  readMark(workerId: number): Promise<number | null> {
    return this.#call('readMark', {
      method: 'GET',
      path: `/v1/worker-leases/${workerId}/mark`,
      operation: 'GET /v1/worker-leases/{workerId}/mark',
      parse: markParser(workerId),
    });
  }

  serverTimeMs(): Promise<number | null> {
    const operation = 'GET /v1/worker-leases/clock';
    return this.#call('serverTimeMs', {
      method: 'GET',
      path: '/v1/worker-leases/clock',
      operation,
      parse: clockParser,
    });
  }

  /** Aborts requests in flight and refuses more. Leases are not released: the node does that. */
  async close(): Promise<void> {
    this.#pool.close();
  }
}

/**
 * A `LeaseStore` over the service's lease routes: see the module comment. Throws
 * `TypeError`/`RangeError` ("httpLeaseStore options.NAME: expected X, got Y") for bad options;
 * holds per-server state, safe to share in a process; close() it after the node.
 */
export function httpLeaseStore(options: HttpLeaseStoreOptions): HttpLeaseStore {
  const resolved = resolveOptions(options, 'httpLeaseStore', KNOWN, 1000);
  return new HttpStore(new ServerPool(resolved), resolved.urls);
}
