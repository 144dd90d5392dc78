// The LeaseStore contract on httpLeaseStore (idforge/client), not a backend of the registry, so
// run here rather than by lease-store.test.ts: against the real service over real HTTP. For
// each fresh store, the service's app (buildApp) is built over a fresh schema of the PostgreSQL
// fixture (test/helpers/backend-fixtures.ts) and listens on a socket of its own; the client
// reaches it with a `lease` token. The service's own Snowflake node holds its lease in another
// store (the test service's SQLite file), so the namespace starts empty as the suite requires.
import { after } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { httpLeaseStore } from '../../packages/idforge/src/client/index.js';
import type { LeaseStore } from '../../packages/idforge/src/coord/ports.js';
import { buildApp } from '../../packages/server/src/service/index.js';
import { openLeaseStore } from '../../packages/stores/src/open.js';
import { fixtureOf } from '../helpers/backend-fixtures.js';
import { openTestService } from '../helpers/service.js';
import { leaseStoreContract } from './lease-store.js';

export const LEASE_TOKEN = 'contract-lease-token-0123456789';
const fx = await fixtureOf('postgres');
const { skip } = fx;
const service =
  skip === false
    ? await openTestService({
        tokens: [{ name: 'fn-pool', token: LEASE_TOKEN, scopes: ['lease'] }],
      })
    : null;

after(() => service?.close());

/** A fresh, migrated namespace behind a listening app, and the HTTP store over it. */
async function open(): Promise<LeaseStore> {
  const direct = await openLeaseStore(fx.freshUrl('http'));
  await direct.migrate();
  const app: FastifyInstance = await buildApp({ ...service!.deps, leaseStore: direct });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  // The contract is about answers, not the client's 1 s default: 16 concurrent acquires on a
  // busy 2-core machine (the server in this process) took longer than that to be answered.
  const store = httpLeaseStore({ urls: [base], token: LEASE_TOKEN, timeoutMs: 10_000 });
  return {
    backend: store.backend,
    address: store.address,
    migrate: () => store.migrate(),
    acquire: (r) => store.acquire(r),
    renew: (l, r) => store.renew(l, r),
    release: (l, m) => store.release(l, m),
    list: () => store.list(),
    readMark: (w) => store.readMark(w),
    serverTimeMs: () => store.serverTimeMs(),
    async close() {
      await store.close();
      await app.close();
      await direct.close();
    },
  };
}

leaseStoreContract('http (service over postgres)', { open, shortTtlMs: 500, skip });
