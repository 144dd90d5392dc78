/**
 * {@link LeaseStore} in one plain local file, for nodes without a coordination service: the
 * clock high-water marks (and leases and claims, as in the SQLite store's three tables) are one
 * JSON document (./state-file.ts). Every change is read-modify-write under an exclusive lock
 * file, committed by an fsynced rename, so several processes on one host never share a worker
 * ID, a crash never leaves a torn file, and a mark is durable once the call resolves. Expiry is
 * measured on the host's wall clock, which every process of the host shares.
 *
 * The URL's namespace is a key inside the file: several fleets or test runs may share one file.
 * Not for several hosts: the lock relies on pids and O_EXCL, which a network file system does
 * not make safe.
 */

import type { IdforgeError } from 'idforge';
import type {
  Lease,
  LeaseRecord,
  LeaseRequest,
  LeaseStore,
  RenewReport,
  RenewResult,
} from 'idforge/coord';
import { redactOwnUrl } from '../redact.js';
import { storeError } from '../store-error.js';
import { checkStorePath, storePathFailure } from '../store-path.js';
import { type FileStoreOptions, parseFileUrl, STALE_LOCK_MS } from './connect.js';
import { fileRules, fileSite } from './rules.js';
import {
  dict,
  emptyNamespace,
  type NamespaceState,
  type StateDocument,
  StateFile,
} from './state-file.js';

/** Drops every lease and claim that expired at or before `now`. */
function purge(ns: NamespaceState, now: number): void {
  for (const [id, lease] of Object.entries(ns.leases)) {
    if (lease.expiresAtMs <= now) delete ns.leases[id];
  }
  for (const [id, claims] of Object.entries(ns.claims)) {
    for (const [instance, expiresAtMs] of Object.entries(claims)) {
      if (expiresAtMs <= now) delete claims[instance];
    }
    if (Object.keys(claims).length === 0) delete ns.claims[id];
  }
}

function setClaim(ns: NamespaceState, workerId: number, instanceId: string, expiresAtMs: number) {
  const key = String(workerId);
  const claims = ns.claims[key] ?? dict<number>();
  claims[instanceId] = expiresAtMs;
  ns.claims[key] = claims;
}

function claimants(ns: NamespaceState, workerId: number): string[] {
  return Object.keys(ns.claims[String(workerId)] ?? {}).sort();
}

/** Adapts a {@link StateFile}; opened by {@link openFileLeaseStore} below. */
export class FileLeaseStore implements LeaseStore {
  readonly backend = 'file';
  readonly address: string;
  /** The key of this store's state inside the file. */
  readonly namespace: string;
  readonly #file: StateFile;
  readonly #now: () => number;
  #closed = false;

  /** `now` is the store's clock (default `Date.now`); tests inject one to expire leases. */
  constructor(file: StateFile, address: string, namespace: string, now: () => number = Date.now) {
    this.#file = file;
    this.address = address;
    this.namespace = namespace;
    this.#now = now;
  }

  #fail(operation: string, cause: unknown): IdforgeError {
    return storeError(fileSite(this.address), operation, cause);
  }

  /** Runs `change` on this namespace (created if missing) under the file's lock. */
  async #change<T>(operation: string, change: (ns: NamespaceState, now: number) => T): Promise<T> {
    if (this.#closed) throw this.#fail(operation, new Error('the store is closed'));
    try {
      return await this.#file.update((doc: StateDocument) => {
        const ns = doc.namespaces[this.namespace] ?? emptyNamespace();
        doc.namespaces[this.namespace] = ns;
        return change(ns, this.#now());
      });
    } catch (error) {
      throw this.#fail(operation, error);
    }
  }

  /** Reads this namespace as last committed, without the lock. */
  #read<T>(operation: string, read: (ns: NamespaceState, now: number) => T): Promise<T> {
    try {
      if (this.#closed) throw new Error('the store is closed');
      const ns = this.#file.read().namespaces[this.namespace] ?? emptyNamespace();
      return Promise.resolve(read(ns, this.#now()));
    } catch (error) {
      return Promise.reject(this.#fail(operation, error));
    }
  }

  /** Creates the file and this namespace in it if missing. */
  migrate(): Promise<void> {
    return this.#change('migrate', () => undefined);
  }

  acquire(request: LeaseRequest): Promise<Lease | null> {
    return this.#change('acquire', (ns, now): Lease | null => {
      purge(ns, now);
      let workerId = -1;
      for (let id = request.min; id <= request.max; id++) {
        if (ns.leases[String(id)] === undefined) {
          workerId = id;
          break;
        }
      }
      if (workerId < 0) return null;
      const key = String(workerId);
      const o = request.owner;
      const previous = ns.marks[key];
      ns.leases[key] = {
        instanceId: o.instanceId,
        host: o.host,
        pid: o.pid,
        startedAtMs: o.startedAtMs,
        expiresAtMs: now + request.ttlMs,
        lastIssuedMs: null,
        clockMs: request.clockMs,
        storeClockMs: now,
        grantMarkMs: previous ?? null,
      };
      const markMs = Math.max(previous ?? Number.NEGATIVE_INFINITY, request.reserveMarkMs);
      ns.marks[key] = markMs;
      setClaim(ns, workerId, o.instanceId, now + request.ttlMs);
      return { workerId, instanceId: o.instanceId, previousMarkMs: previous ?? null, markMs };
    });
  }

  renew(lease: Lease, report: RenewReport): Promise<RenewResult> {
    return this.#change('renew', (ns, now): RenewResult => {
      purge(ns, now);
      const key = String(lease.workerId);
      const entry = ns.leases[key];
      const held = entry !== undefined && entry.instanceId === lease.instanceId;
      if (held) {
        entry.expiresAtMs = now + report.ttlMs;
        entry.lastIssuedMs = report.lastIssuedMs;
        entry.clockMs = report.clockMs;
        entry.storeClockMs = now;
        const mark = ns.marks[key];
        if (mark !== undefined) ns.marks[key] = Math.max(mark, report.reserveMarkMs);
        setClaim(ns, lease.workerId, lease.instanceId, now + report.ttlMs);
      }
      return { held, claimants: claimants(ns, lease.workerId) };
    });
  }

  release(lease: Lease, finalMarkMs: number | null): Promise<void> {
    return this.#change('release', (ns) => {
      const key = String(lease.workerId);
      const entry = ns.leases[key];
      const claims = ns.claims[key];
      if (claims !== undefined) {
        delete claims[lease.instanceId];
        if (Object.keys(claims).length === 0) delete ns.claims[key];
      }
      if (entry === undefined || entry.instanceId !== lease.instanceId) return;
      delete ns.leases[key];
      // Exactly the holder's final mark, never below the mark found at grant: that one guards
      // earlier holders' IDs, which this holder cannot vouch for.
      if (finalMarkMs !== null && ns.marks[key] !== undefined) {
        ns.marks[key] = Math.max(finalMarkMs, entry.grantMarkMs ?? finalMarkMs);
      }
    });
  }

  list(): Promise<LeaseRecord[]> {
    return this.#read('list', (ns, now) =>
      Object.entries(ns.leases)
        .filter(([, l]) => l.expiresAtMs > now)
        .map(([id, l]) => ({
          workerId: Number(id),
          instanceId: l.instanceId,
          host: l.host,
          pid: l.pid,
          startedAtMs: l.startedAtMs,
          expiresAtMs: l.expiresAtMs,
          markMs: ns.marks[id] ?? null,
          lastIssuedMs: l.lastIssuedMs,
          clockMs: l.clockMs,
          storeClockMs: l.storeClockMs,
        }))
        .sort((a, b) => a.workerId - b.workerId),
    );
  }

  readMark(workerId: number): Promise<number | null> {
    return this.#read('readMark', (ns) => ns.marks[String(workerId)] ?? null);
  }

  serverTimeMs(): Promise<number | null> {
    return Promise.resolve(this.#now());
  }

  /** Waits for this store's queued changes; later calls reject. Leases are not released. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#file.drain();
  }
}

/**
 * Checks that the file's directory exists, that its lock can be taken within `connectTimeoutMs`
 * and that the file, if present, is an idforge file store; resolves a {@link LeaseStore} (not
 * yet migrated: `migrate()` creates the file, though any change would). Rejects with
 * `RangeError` for a malformed URL, namespace or timeout, with `StorePathError` for a missing
 * directory, a directory as the path, no permission, or a missing file with `create: false`,
 * and with `StoreUnavailableError` ('file', the URL, 'connect') otherwise: lock timeout, a file
 * that is not a store.
 */
export async function openFileLeaseStore(
  url: string,
  options: FileStoreOptions = {},
): Promise<LeaseStore> {
  const { path, namespace } = parseFileUrl(url, options.namespace);
  const timeoutMs = options.connectTimeoutMs ?? 5000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`connectTimeoutMs: expected a positive number, got ${timeoutMs}`);
  }
  const address = redactOwnUrl(url, fileRules);
  checkStorePath('file', path, options.create ?? true);
  const file = new StateFile(path, { timeoutMs, staleMs: STALE_LOCK_MS });
  try {
    await file.update(() => undefined);
  } catch (error) {
    throw storePathFailure('file', path, error) ?? storeError(fileSite(address), 'connect', error);
  }
  return new FileLeaseStore(file, address, namespace);
}
