/**
 * What the etcd adapter knows of its backend without the registry (backend.ts,
 * `BackendRules`): its scheme, the member list its URLs may hold, which of etcd3's errors are
 * refused credentials.
 */
import type { BackendRules, Classify } from '../backend.js';
import type { CallSite } from '../store-error.js';

export const etcdRules: BackendRules = { name: 'etcd', url: { memberList: true } };

const AUTH =
  /etcdserver: (authentication failed|invalid auth token|user name (is empty|not found))/;

export const classifyEtcd: Classify = ({ message }) =>
  typeof message === 'string' && AUTH.test(message) ? 'auth' : null;

/** A call to the etcd store at `address` (redacted), for its errors. */
export function etcdSite(address: string): CallSite {
  return { backend: etcdRules.name, address, classify: classifyEtcd };
}
