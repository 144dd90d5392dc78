/**
 * {@link LeaseStore} on etcd (v3 API, gRPC, via the `etcd3` client; tested on etcd 3.4).
 * Keys are laid out in ./kv.ts under the namespace prefix `/NAME/`.
 *
 * Atomicity: every change is one etcd transaction whose compares are the whole condition:
 * a grant requires the lease key's create revision to be 0 (no live holder) and the mark key's
 * mod revision to be the one read (so raising the mark to the max is exact, retried on a
 * conflict); a renewal or release requires the lease key's mod revision to be the one read,
 * whose value named this instance. etcd serialises transactions through Raft, so this holds
 * across processes and hosts.
 *
 * Expiry is etcd's: the lease key and the claim key are attached to an etcd lease granted with
 * TTL = ceil(ttlMs / 1000) s, and etcd's leader deletes them when it expires (by its own
 * monotonic clock; a leader change only extends leases). Renewal sends one keep-alive, which
 * restarts the granted TTL; a renewal with another TTL grants a new etcd lease and moves the
 * keys to it in the same transaction. etcd raises TTLs below its minimum (about 2 s with
 * default settings) to that minimum: a lease may last longer than asked, never shorter.
 *
 * etcd has no clock a client can read: {@link EtcdLeaseStore.serverTimeMs} resolves null and
 * list() reports `storeClockMs: null`.
 */
import type { Etcd3, ITxnResponse } from 'etcd3';
import type {
  Lease,
  LeaseRecord,
  LeaseRequest,
  LeaseStore,
  RenewReport,
  RenewResult,
} from 'idforge/coord';
import { Backoff } from 'idforge/internal';
import { storeCall } from '../call.js';
import type { EtcdKeyValue } from '../driver-types.js';
import { callerAddress, OWNED, type Ownership } from '../owned.js';
import { redactOwnUrl } from '../redact.js';
import { storeError } from '../store-error.js';
import {
  connectEtcd,
  type EtcdClientOptions,
  type EtcdStoreOptions,
  NAMESPACE,
} from './connect.js';
import {
  type CallOptions,
  deleteOp,
  EtcdKeys,
  keepAliveOnce,
  kvAt,
  type LeaseValue,
  leaseValueOf,
  markOf,
  modRevision,
  prefixOp,
  prefixRange,
  putOp,
  rangeAt,
  rangeOp,
} from './kv.js';
import { listLeases } from './list.js';
import { etcdRules, etcdSite } from './rules.js';

/** Transactions retried after a conflicting write before giving up (conflicts are rare). */
const MAX_CONFLICTS = 16;

/**
 * Waits before the next attempt of a transaction that lost a compare (another writer won):
 * jittered and growing, so writers racing for one key do not collide again in lockstep.
 */
function conflictPause(): (attempt: number) => Promise<void> {
  const backoff = new Backoff({ initialMs: 2, maxMs: 50 });
  return (attempt) =>
    attempt === 0 ? Promise.resolve() : new Promise((r) => setTimeout(r, backoff.next()));
}

/**
 * The lease store on etcd (an etcd3 `Etcd3` client). Two ways to build it, as every idforge store:
 * on the application's own client, `new EtcdLeaseStore({ client, namespace })`, which `close()`
 * leaves open (the caller closes it); or from a URL with {@link openEtcdLeaseStore}, whose client
 * the store opened and `close()` closes.
 */
export class EtcdLeaseStore implements LeaseStore {
  readonly backend = 'etcd';
  readonly address: string;
  readonly #client: Etcd3;
  readonly #keys: EtcdKeys;
  readonly #timeoutMs: number;
  readonly #owned: boolean;
  #closed = false;

  /**
   * A store on `options.client`, the caller's (see {@link EtcdClientOptions}): `close()`
   * leaves that client open, unless {@link openEtcdLeaseStore} opened it. `timeoutMs` bounds
   * each whole operation: past it the operation rejects with StoreUnavailableError and its
   * calls are cancelled. Throws `RangeError` for a malformed namespace or timeout.
   */
  constructor(options: EtcdClientOptions & Ownership) {
    const namespace = options.namespace ?? 'idforge';
    if (typeof namespace !== 'string' || !NAMESPACE.test(namespace)) {
      throw new RangeError(`etcd namespace: expected 1-100 of [A-Za-z0-9._-], got "${namespace}"`);
    }
    const timeoutMs = options.timeoutMs ?? 5000;
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
      throw new RangeError(`timeoutMs: expected a positive integer, got ${timeoutMs}`);
    }
    this.#client = options.client as Etcd3; // an etcd3 client: its own type inside (driver-types.ts)
    this.address = callerAddress('etcd', options.address);
    this.#keys = new EtcdKeys(namespace);
    this.#timeoutMs = timeoutMs;
    this.#owned = options[OWNED] === true;
  }

  /**
   * Runs one operation under one deadline of running time (storeCall), also given to the
   * client as the call's own; every failure becomes the typed store error.
   */
  #op<T>(operation: string, fn: (call: CallOptions) => Promise<T>): Promise<T> {
    const ms = this.#timeoutMs;
    return storeCall(
      etcdSite(this.address),
      operation,
      async () => {
        if (this.#closed) throw new Error('the store is closed');
        return fn({ deadline: Date.now() + ms });
      },
      ms,
    );
  }

  #txn(call: CallOptions, ops: Parameters<Etcd3['kv']['txn']>[0]): Promise<ITxnResponse> {
    return this.#client.kv.txn(ops, call);
  }

  /** One round trip, to check that the server answers. */
  ping(operation: string): Promise<void> {
    return this.#op(operation, async (call) => {
      await this.#client.maintenance.status(call);
    });
  }

  /** Nothing to create: keys need no schema. Checks that the server answers. */
  migrate(): Promise<void> {
    return this.ping('migrate');
  }

  acquire(request: LeaseRequest): Promise<Lease | null> {
    return this.#op('acquire', async (call) => {
      const k = this.#keys;
      const snapshot = await this.#client.kv.range(prefixRange(k.leases, true), call);
      const held = new Set(snapshot.kvs.map((kv) => k.workerIdOf(kv.key, k.leases)));
      let free = request.min;
      while (free <= request.max && held.has(free)) free++;
      if (free > request.max) return null;
      const ttlS = ttlSeconds(request.ttlMs);
      const { ID: leaseId } = await this.#client.leaseClient.leaseGrant({ TTL: ttlS }, call);
      try {
        for (let id = free; id <= request.max; id++) {
          if (held.has(id)) continue;
          const lease = await this.#grant(id, leaseId, ttlS, request, call);
          if (lease !== null) return lease;
        }
      } catch (error) {
        void this.#revoke(leaseId, { deadline: Date.now() + this.#timeoutMs });
        throw error;
      }
      await this.#revoke(leaseId, call);
      return null;
    });
  }

  /** Takes `workerId` for the request if it has no live holder; null if it has one. */
  async #grant(
    workerId: number,
    leaseId: string,
    ttlS: number,
    request: LeaseRequest,
    call: CallOptions,
  ): Promise<Lease | null> {
    const k = this.#keys;
    const o = request.owner;
    const value: LeaseValue = {
      instanceId: o.instanceId,
      host: o.host,
      pid: o.pid,
      startedAtMs: o.startedAtMs,
      ttlS,
      clockMs: request.clockMs,
      lastIssuedMs: null,
    };
    const markKey = { key: Buffer.from(k.mark(workerId)) };
    let markKv: EtcdKeyValue | null = (await this.#client.kv.range(markKey, call)).kvs[0] ?? null;
    const pause = conflictPause();
    for (let attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
      await pause(attempt);
      const previousMarkMs = markOf(markKv);
      const markMs = Math.max(previousMarkMs ?? Number.NEGATIVE_INFINITY, request.reserveMarkMs);
      const txn = await this.#txn(call, {
        compare: [
          { key: Buffer.from(k.lease(workerId)), target: 'Create', create_revision: 0 },
          { ...markKey, target: 'Mod', mod_revision: modRevision(markKv) },
        ],
        success: [
          putOp(
            k.lease(workerId),
            JSON.stringify({ ...value, grantMarkMs: previousMarkMs }),
            leaseId,
          ),
          putOp(k.claim(workerId, o.instanceId), o.instanceId, leaseId),
          ...(markMs === previousMarkMs ? [] : [putOp(k.mark(workerId), String(markMs))]),
        ],
        failure: [rangeOp(k.lease(workerId)), rangeOp(k.mark(workerId))],
      });
      const holder = txn.succeeded ? null : kvAt(txn, 0);
      // The lease key on our own etcd lease: an earlier attempt of this same transaction was
      // applied although its answer was lost (a retry on another host); it saw this same mark.
      if (txn.succeeded || holder?.lease === leaseId) {
        return { workerId, instanceId: o.instanceId, previousMarkMs, markMs };
      }
      if (holder !== null) return null;
      markKv = kvAt(txn, 1);
    }
    throw new Error(`the mark of worker ID ${workerId} kept changing (${MAX_CONFLICTS} conflicts)`);
  }

  renew(lease: Lease, report: RenewReport): Promise<RenewResult> {
    return this.#op('renew', async (call) => {
      const k = this.#keys;
      const w = lease.workerId;
      const pause = conflictPause();
      for (let attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
        await pause(attempt);
        const read = await this.#txn(call, {
          success: [rangeOp(k.lease(w)), rangeOp(k.mark(w)), prefixOp(k.claims(w))],
        });
        const leaseKv = kvAt(read, 0);
        const current = leaseKv === null ? null : leaseValueOf(leaseKv);
        if (leaseKv === null || current?.instanceId !== lease.instanceId) {
          return { held: false, claimants: claimantsOf(read, 2) };
        }
        const markKv = kvAt(read, 1);
        const ttlS = ttlSeconds(report.ttlMs);
        let leaseId = leaseKv.lease;
        // Keep the etcd lease alive when the TTL is unchanged; else move to a new one (also for
        // a lease key put by hand without an etcd lease: lease '0').
        if (ttlS === current.ttlS && leaseId !== '0') {
          if ((await keepAliveOnce(this.#client.leaseClient, leaseId, call)) <= 0) continue;
        } else {
          leaseId = (await this.#client.leaseClient.leaseGrant({ TTL: ttlS }, call)).ID;
        }
        const previousMarkMs = markOf(markKv);
        const markMs = Math.max(previousMarkMs ?? Number.NEGATIVE_INFINITY, report.reserveMarkMs);
        const value: LeaseValue = {
          ...current,
          ttlS,
          clockMs: report.clockMs,
          lastIssuedMs: report.lastIssuedMs,
        };
        const txn = await this.#txn(call, {
          compare: [
            { key: Buffer.from(k.lease(w)), target: 'Mod', mod_revision: leaseKv.mod_revision },
            { key: Buffer.from(k.mark(w)), target: 'Mod', mod_revision: modRevision(markKv) },
          ],
          success: [
            putOp(k.lease(w), JSON.stringify(value), leaseId),
            putOp(k.claim(w, lease.instanceId), lease.instanceId, leaseId),
            prefixOp(k.claims(w)),
            ...(markMs === previousMarkMs ? [] : [putOp(k.mark(w), String(markMs))]),
          ],
        });
        if (leaseId !== leaseKv.lease)
          await this.#revoke(txn.succeeded ? leaseKv.lease : leaseId, call);
        if (txn.succeeded) return { held: true, claimants: claimantsOf(txn, 2) };
      }
      throw new Error(`the lease of worker ID ${w} kept changing (${MAX_CONFLICTS} conflicts)`);
    });
  }

  release(lease: Lease, finalMarkMs: number | null): Promise<void> {
    return this.#op('release', async (call) => {
      const k = this.#keys;
      const w = lease.workerId;
      const pause = conflictPause();
      for (let attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
        await pause(attempt);
        const leaseKv = (await this.#client.kv.range({ key: Buffer.from(k.lease(w)) }, call))
          .kvs[0];
        if (leaseKv === undefined || leaseValueOf(leaseKv).instanceId !== lease.instanceId) {
          // Not (or no longer) ours: only this instance's claim goes, with its etcd lease.
          const del = await this.#txn(call, {
            success: [deleteOp(k.claim(w, lease.instanceId), true)],
          });
          const claim = del.responses[0]?.response_delete_range.prev_kvs[0];
          if (claim !== undefined) await this.#revoke(claim.lease, call);
          return;
        }
        // Never below the mark found at grant: it guards earlier holders' IDs.
        const floor = leaseValueOf(leaseKv).grantMarkMs ?? null;
        const mark = finalMarkMs === null ? null : Math.max(finalMarkMs, floor ?? finalMarkMs);
        const txn = await this.#txn(call, {
          compare: [
            { key: Buffer.from(k.lease(w)), target: 'Mod', mod_revision: leaseKv.mod_revision },
          ],
          success: [
            deleteOp(k.lease(w)),
            deleteOp(k.claim(w, lease.instanceId)),
            ...(mark === null ? [] : [putOp(k.mark(w), String(mark))]),
          ],
        });
        if (txn.succeeded) {
          await this.#revoke(leaseKv.lease, call); // nothing is attached to it any more
          return;
        }
      }
      throw new Error(`the lease of worker ID ${w} kept changing (${MAX_CONFLICTS} conflicts)`);
    });
  }

  /** Live leases, ordered by worker ID: see ./list.ts (expiry from etcd's lease TTLs). */
  list(): Promise<LeaseRecord[]> {
    return this.#op('list', (call) => listLeases(this.#client, this.#keys, call));
  }

  readMark(workerId: number): Promise<number | null> {
    return this.#op('readMark', async (call) => {
      const r = await this.#client.kv.range({ key: Buffer.from(this.#keys.mark(workerId)) }, call);
      return markOf(r.kvs[0] ?? null);
    });
  }

  /** Always null: etcd exposes no clock to clients. */
  serverTimeMs(): Promise<number | null> {
    return Promise.resolve(null);
  }

  close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      if (this.#owned) this.#client.close();
    }
    return Promise.resolve();
  }

  /**
   * Revokes an etcd lease that nothing the caller relies on is attached to any more; never
   * rejects: if it fails (the lease is gone, the server is slow), the lease expires by itself
   * within its TTL.
   */
  async #revoke(leaseId: string, call: CallOptions): Promise<void> {
    if (this.#closed || leaseId === '0') return;
    try {
      await this.#client.leaseClient.leaseRevoke({ ID: leaseId }, call);
    } catch {
      // see above
    }
  }
}

/** The whole seconds of an etcd lease for a TTL in ms (at least 1; etcd may raise it). */
function ttlSeconds(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000));
}

/** The instance IDs of the claim keys in the range response at `index`, sorted. */
function claimantsOf(txn: ITxnResponse, index: number): string[] {
  return rangeAt(txn, index)
    .kvs.map((kv) => kv.value.toString())
    .sort();
}

/**
 * Connects to etcd and checks that it answers (one status call), then returns the lease store
 * under the namespace. Rejects with RangeError for a malformed URL or namespace, and with
 * StoreUnavailableError (operation 'connect') when no member answers within connectTimeoutMs.
 * The store's every later operation is bounded by the same timeout.
 */
export async function openEtcdLeaseStore(
  url: string,
  options: EtcdStoreOptions = {},
): Promise<LeaseStore> {
  const { client, namespace, timeoutMs } = await connectEtcd(url, options);
  const store = new EtcdLeaseStore({
    client,
    address: redactOwnUrl(url, etcdRules),
    namespace,
    timeoutMs,
    [OWNED]: true,
  });
  try {
    await store.ping('connect');
  } catch (error) {
    await store.close();
    throw storeError(etcdSite(store.address), 'connect', error);
  }
  return store;
}
