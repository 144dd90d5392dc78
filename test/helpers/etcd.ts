// A client of the etcd fixture's server (test/helpers/backend-fixtures.ts) for a test file's
// own use: to look at or change the keys and etcd leases a store under test leaves, on a
// connection the store never shares.
import { after } from 'node:test';
import { Etcd3 } from 'etcd3';
import { parseEtcdUrl } from '../../packages/stores/src/etcd/connect.js';
import type { BackendFixture } from './backend-fixtures.js';

/**
 * A client of `fx`'s server, closed after the file's tests; null when they skip (no server).
 * Call at the top level of a test file.
 */
export function etcdClientOf(fx: BackendFixture): Etcd3 | null {
  if (fx.skip !== false) return null;
  const client = new Etcd3({ hosts: [...parseEtcdUrl(fx.server!.url).hosts] });
  after(() => client.close());
  return client;
}
