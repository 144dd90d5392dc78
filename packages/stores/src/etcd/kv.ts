/**
 * The etcd key layout of the lease store and small builders over the raw etcd v3 RPCs
 * (`etcd3`'s KVClient and LeaseClient), shared by {@link EtcdLeaseStore}. Raw RPCs rather than
 * etcd3's high-level `Lease` (which keeps itself alive in the background) because a lease here
 * must live exactly as long as its node renews it, and must be renewable by ID from any client.
 *
 * Keys, under the namespace prefix `/NAME/` (workers as decimal numbers):
 *
 *   /NAME/lease/<worker>              JSON {@link LeaseValue}   attached to the holder's etcd lease
 *   /NAME/mark/<worker>               decimal unix ms           no etcd lease: survives holders
 *   /NAME/claim/<worker>/<instance>   the instance ID           attached to the claimant's etcd lease
 */
// Buffer is Node's: the declarations name @types/node, for projects whose TypeScript does not
// load it by itself (TypeScript 6 and later default to `types: []`).
/// <reference types="node" preserve="true" />
import type { LeaseClient } from 'etcd3';
import type {
  EtcdCallOptions,
  EtcdClient,
  EtcdKeyValue,
  EtcdRangeRequest,
  EtcdRangeResponse,
  EtcdRequestOp,
  EtcdTxnResponse,
} from '../driver-types.js';

/** gRPC call options (a deadline), as etcd3's clients take them. */
export type CallOptions = EtcdCallOptions;

/** What the lease key of a worker ID holds. */
export interface LeaseValue {
  readonly instanceId: string;
  readonly host: string;
  readonly pid: number;
  readonly startedAtMs: number;
  /** The TTL in whole seconds the holder asked for; a renewal with another TTL re-grants. */
  readonly ttlS: number;
  readonly clockMs: number | null;
  readonly lastIssuedMs: number | null;
  /** The mark when the lease was granted (absent: none, or an older value): the release's floor. */
  readonly grantMarkMs?: number | null;
}

/** The keys of one namespace. */
export class EtcdKeys {
  readonly prefix: string;
  readonly leases: string;
  readonly marks: string;

  constructor(namespace: string) {
    this.prefix = `/${namespace}/`;
    this.leases = `${this.prefix}lease/`;
    this.marks = `${this.prefix}mark/`;
  }

  lease(workerId: number): string {
    return `${this.leases}${workerId}`;
  }

  mark(workerId: number): string {
    return `${this.marks}${workerId}`;
  }

  /** The prefix of every claim on a worker ID (the trailing slash keeps 1 apart from 10). */
  claims(workerId: number): string {
    return `${this.prefix}claim/${workerId}/`;
  }

  claim(workerId: number, instanceId: string): string {
    return `${this.claims(workerId)}${instanceId}`;
  }

  /** The worker ID in a lease or mark key. */
  workerIdOf(key: Buffer, under: string): number {
    return Number(key.toString().slice(under.length));
  }
}

/** The smallest key greater than every key that starts with `prefix` (etcd's range_end). */
export function prefixEnd(prefix: string): Buffer {
  const end = Buffer.from(prefix);
  end[end.length - 1]! += 1; // prefixes here end in '/', never 0xff
  return end;
}

export function rangeOp(key: string): EtcdRequestOp {
  return { request_range: { key: Buffer.from(key) } };
}

/** A range over every key that starts with `prefix`. */
export function prefixRange(prefix: string, keysOnly = false): EtcdRangeRequest {
  return { key: Buffer.from(prefix), range_end: prefixEnd(prefix), keys_only: keysOnly };
}

export function prefixOp(prefix: string, keysOnly = false): EtcdRequestOp {
  return { request_range: prefixRange(prefix, keysOnly) };
}

export function putOp(key: string, value: string, lease: string | null = null): EtcdRequestOp {
  return {
    request_put: {
      key: Buffer.from(key),
      value: Buffer.from(value),
      ...(lease === null ? {} : { lease }),
    },
  };
}

/** Deletes one key; with `prevKv`, the answer carries the deleted key-value. */
export function deleteOp(key: string, prevKv = false): EtcdRequestOp {
  return { request_delete_range: { key: Buffer.from(key), prev_kv: prevKv } };
}

/** The range response at `index` of a transaction. */
export function rangeAt(txn: EtcdTxnResponse, index: number): EtcdRangeResponse {
  const r = txn.responses[index]?.response_range;
  if (r === undefined) throw new Error(`etcd transaction: expected a range response at ${index}`);
  return r;
}

/** The first key-value of the range response at `index`, or null. */
export function kvAt(txn: EtcdTxnResponse, index: number): EtcdKeyValue | null {
  return rangeAt(txn, index).kvs[0] ?? null;
}

/** A key's mod revision for a compare: '0' when the key does not exist. */
export function modRevision(kv: EtcdKeyValue | null): string {
  return kv === null ? '0' : kv.mod_revision;
}

/** The mark stored in a mark key-value, or null. */
export function markOf(kv: EtcdKeyValue | null): number | null {
  if (kv === null) return null;
  const mark = Number(kv.value.toString());
  if (!Number.isSafeInteger(mark)) throw new Error(`malformed mark at ${kv.key.toString()}`);
  return mark;
}

/** Parses a lease value; throws naming the key when it is not one (a hand-edited store). */
export function leaseValueOf(kv: EtcdKeyValue): LeaseValue {
  try {
    const v = JSON.parse(kv.value.toString()) as LeaseValue;
    if (typeof v.instanceId === 'string' && typeof v.ttlS === 'number') return v;
  } catch {
    // reported below
  }
  throw new Error(`malformed lease value at ${kv.key.toString()}`);
}

/**
 * Sends one keep-alive for an etcd lease and resolves its remaining TTL in seconds: 0 or less
 * when the lease no longer exists (expired or revoked).
 */
export async function keepAliveOnce(
  client: EtcdClient['leaseClient'],
  leaseId: string,
  options: CallOptions,
): Promise<number> {
  // etcd3's own type inside, for its stream's events (driver-types.ts)
  const stream = await (client as LeaseClient).leaseKeepAlive(options);
  try {
    // Listeners stay attached after the answer: a later 'error' (the stream closing) must not
    // go unhandled, and settling a settled promise does nothing.
    return await new Promise<number>((resolve, reject) => {
      stream.on('data', (res) => resolve(Number(res.TTL)));
      stream.on('error', reject);
      stream.on('end', () => reject(new Error('etcd keep-alive stream ended without an answer')));
      stream.write({ ID: leaseId });
    });
  } finally {
    stream.end();
  }
}
