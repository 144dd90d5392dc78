/**
 * etcd connections for the idforge stores (etcd3), from a URL:
 *
 *   etcd://host[:port][,host[:port]...][?namespace=NAME]
 *
 * Port 2379 by default; several hosts are members of one cluster (a call that cannot reach one
 * is tried on the next). The namespace (default `idforge`) is the key prefix `/NAME/`, so
 * fleets and test runs sharing a cluster stay apart. Plain HTTP only: TLS and user names are
 * not supported yet (the URL is refused rather than silently connecting without them).
 */
import { loadDriver } from '../driver.js';
import type { EtcdClient, EtcdClientSettings, EtcdPolicy } from '../driver-types.js';
import { redactOwnUrl } from '../redact.js';
import { etcdRules } from './rules.js';

/** What an `etcd://` URL names. */
export interface EtcdUrl {
  /** `http://host:port` of each member. */
  readonly hosts: readonly string[];
  /** The `namespace` query parameter, or null. */
  readonly namespace: string | null;
}

/**
 * What the etcd store is built from when the application has its own etcd3 client:
 * `new EtcdLeaseStore({ client, namespace })`. The store never closes that client; the
 * application does, after `store.close()`. Calls are bounded by `timeoutMs` whatever the
 * client's own fault handling (idforge's clients try each member once, see clientOptions).
 */
export interface EtcdClientOptions {
  /** The caller's etcd3 client (see {@link EtcdClient}). */
  readonly client: EtcdClient;
  /** The key prefix `/NAME/`. Default `idforge`. */
  readonly namespace?: string;
  /** How the store names the cluster in errors. Default "etcd (the caller's client)". */
  readonly address?: string;
  /** Bound on each operation, in ms. Default 5000. */
  readonly timeoutMs?: number;
}

/** Options of the etcd store's `open…` function. */
export interface EtcdStoreOptions {
  /** Bound on connecting and on each operation, in ms. Default 5000. */
  readonly connectTimeoutMs?: number;
  /** Key prefix `/NAME/`; wins over the URL's `?namespace=`. Default `idforge`. */
  readonly namespace?: string;
}

export const NAMESPACE = /^[A-Za-z0-9._-]{1,100}$/;
const HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?$/;

/** Parses an `etcd://` URL; throws RangeError ("expected X, got Y") when malformed. */
export function parseEtcdUrl(url: string): EtcdUrl {
  const m = /^etcd:\/\/([^/?#]*)\/?(?:\?([^#]*))?$/i.exec(url);
  const shape = 'etcd://host:port[,host:port...][?namespace=NAME]';
  if (m === null)
    throw new RangeError(`store URL: expected ${shape}, got "${redactOwnUrl(url, etcdRules)}"`);
  const authority = m[1]!;
  if (authority.includes('@')) {
    throw new RangeError(
      `store URL: expected ${shape} without credentials (etcd authentication is not supported yet), got "${redactOwnUrl(url, etcdRules)}"`,
    );
  }
  const hosts = authority.split(',').map((h) => {
    const hm = HOST.exec(h);
    const port = Number(hm?.[2] ?? 2379);
    if (hm === null || port < 1 || port > 65535) {
      throw new RangeError(`store URL: expected host[:port] in ${shape}, got "${h}"`);
    }
    return `http://${hm[1]}:${port}`;
  });
  const params = new URLSearchParams(m[2] ?? '');
  for (const name of params.keys()) {
    if (name !== 'namespace') {
      throw new RangeError(`store URL: expected only the parameter namespace, got "${name}"`);
    }
  }
  return { hosts, namespace: params.get('namespace') };
}

/**
 * etcd3's defaults retry three times and open a 5 s circuit breaker per host after three
 * failures; here a failed call is tried once on each member and then fails, so a caller sees
 * the outage within its deadline and sees the recovery on its next call. Every unary call
 * carries a deadline (etcd3 1.1's `dialTimeout` is documented but unused).
 */
export function clientOptions(
  hosts: readonly string[],
  timeoutMs: number,
  isRecoverableError: (error: Error) => boolean,
): EtcdClientSettings {
  const signal = new AbortController().signal;
  // Async, like etcd3's own policies: its stream error handler calls
  // `faultHandling.execute(() => { throw error }).catch(...)`, and a synchronous throw there
  // escaped as an uncaught exception when a keep-alive stream's connection dropped.
  const passThrough = {
    execute: async <T>(fn: (ctx: { signal: AbortSignal }) => PromiseLike<T> | T) => fn({ signal }),
  } as unknown as EtcdPolicy;
  const eachHost = {
    async execute<T>(fn: (ctx: { signal: AbortSignal }) => PromiseLike<T> | T): Promise<T> {
      for (let attempt = 1; ; attempt++) {
        try {
          return await fn({ signal });
        } catch (error) {
          if (attempt >= hosts.length || !(error instanceof Error && isRecoverableError(error))) {
            throw error;
          }
        }
      }
    },
  } as unknown as EtcdPolicy;
  return {
    hosts: [...hosts],
    dialTimeout: timeoutMs,
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeoutMs }),
    faultHandling: { host: () => passThrough, global: eachHost },
  };
}

/**
 * A client for the members of `url` (not yet checked: the store pings it), its namespace and
 * its per-call timeout. Throws `RangeError` for a malformed URL, namespace or timeout; rejects
 * with `DriverMissingError` when etcd3 is not installed.
 */
export async function connectEtcd(
  url: string,
  options: EtcdStoreOptions = {},
): Promise<{ client: EtcdClient; namespace: string; timeoutMs: number }> {
  const parsed = parseEtcdUrl(url);
  const namespace = options.namespace ?? parsed.namespace ?? 'idforge';
  if (!NAMESPACE.test(namespace)) {
    throw new RangeError(`etcd namespace: expected 1-100 of [A-Za-z0-9._-], got "${namespace}"`);
  }
  const timeoutMs = options.connectTimeoutMs ?? 5000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(`connectTimeoutMs: expected a positive integer, got ${timeoutMs}`);
  }
  const { Etcd3, isRecoverableError } = await loadDriver('etcd3', 'etcd', () => import('etcd3'));
  const client = new Etcd3(clientOptions(parsed.hosts, timeoutMs, isRecoverableError));
  return { client, namespace, timeoutMs };
}
