/**
 * The live leases of an etcd lease store, for {@link EtcdLeaseStore.list}. `expiresAtMs` is
 * this host's clock plus the remaining TTL etcd reports for each lease (whole seconds, rounded
 * down): the duration is measured by the store; only its conversion to a unix time uses the
 * local clock. The alternative, an expiry time written into the value by the holder, would be
 * the holder's clock, which the port rules out. The cost is one TTL look-up per live lease.
 */
import type { LeaseRecord } from 'idforge/coord';
import type { EtcdClient, EtcdKeyValue } from '../driver-types.js';
import { type CallOptions, type EtcdKeys, leaseValueOf, markOf, prefixOp, rangeAt } from './kv.js';

/** At most this many lease TTL look-ups at once. */
const TTL_LOOKUPS = 32;

/** Live leases under `keys`, with their marks, ordered by worker ID. */
export async function listLeases(
  client: EtcdClient,
  keys: EtcdKeys,
  call: CallOptions,
): Promise<LeaseRecord[]> {
  const read = await client.kv.txn(
    { success: [prefixOp(keys.leases), prefixOp(keys.marks)] },
    call,
  );
  const marks = new Map<number, number | null>(
    rangeAt(read, 1).kvs.map((kv) => [keys.workerIdOf(kv.key, keys.marks), markOf(kv)]),
  );
  const kvs = rangeAt(read, 0).kvs;
  const ttls: number[] = [];
  for (let i = 0; i < kvs.length; i += TTL_LOOKUPS) {
    const batch = kvs.slice(i, i + TTL_LOOKUPS).map((kv) => ttlOf(client, kv, call));
    ttls.push(...(await Promise.all(batch)));
  }
  const now = Date.now();
  const records: LeaseRecord[] = [];
  kvs.forEach((kv, i) => {
    const ttl = ttls[i]!;
    if (ttl < 0) return; // expired since the read
    const v = leaseValueOf(kv);
    const workerId = keys.workerIdOf(kv.key, keys.leases);
    records.push({
      workerId,
      instanceId: v.instanceId,
      host: v.host,
      pid: v.pid,
      startedAtMs: v.startedAtMs,
      expiresAtMs: now + ttl * 1000,
      markMs: marks.get(workerId) ?? null,
      lastIssuedMs: v.lastIssuedMs,
      clockMs: v.clockMs,
      storeClockMs: null, // etcd has no clock clients can read
    });
  });
  return records.sort((a, b) => a.workerId - b.workerId);
}

/**
 * Remaining whole seconds of the etcd lease a key is attached to: negative when the lease is
 * gone; Infinity for a key put by hand without one (it never expires).
 */
async function ttlOf(client: EtcdClient, kv: EtcdKeyValue, call: CallOptions): Promise<number> {
  if (kv.lease === '0') return Number.POSITIVE_INFINITY;
  const r = await client.leaseClient.leaseTimeToLive({ ID: kv.lease }, call);
  return Number(r.TTL);
}
