// The LeaseStore contract (./lease-store.ts) on every backend the registry lists for leases,
// each opened by its registry opener on a fresh, empty location of its fixture
// (test/helpers/backend-fixtures.ts). What is particular to one backend is in
// lease-store-<backend>-specific.test.ts; the HTTP lease store, not a backend, in
// lease-store-http.test.ts.
import { forEachBackend } from '../helpers/backend-fixtures.js';
import { leaseStoreContract } from './lease-store.js';

await forEachBackend('leases', (backend, fx) => {
  const open = async (url: string) => {
    const store = await backend.open.leases!(url, {});
    await store.migrate();
    return store;
  };
  const freshUrl = () => fx.freshUrl('lease');
  leaseStoreContract(backend.name, {
    open: () => open(freshUrl()),
    shortTtlMs: fx.traits.shortTtlMs,
    skip: fx.skip,
    clockless: fx.traits.clockless,
    ...(fx.traits.blocking ? { processes: { freshUrl, open } } : {}),
  });
});
