// The DurableMarkStore contract (./mark-store.ts) on every backend the registry lists for
// marks, each on fresh locations of its fixture (test/helpers/backend-fixtures.ts). What is
// particular to one backend is in mark-store-<backend>-specific.test.ts.
import { forEachBackend } from '../helpers/backend-fixtures.js';
import { markStoreContract } from './mark-store.js';

await forEachBackend('marks', (backend, fx) => {
  markStoreContract(backend.name, {
    freshUrl: () => fx.freshUrl('marks'),
    skip: fx.skip,
    processes: fx.traits.blocking,
  });
});
