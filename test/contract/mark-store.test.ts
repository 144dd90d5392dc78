// The DurableMarkStore contract (./mark-store.ts) on every backend the registry lists for
// marks, each on fresh locations of its fixture (test/helpers/backend-fixtures.ts). A SQL
// server that is absent, silent or stalls, and the URLs and namespaces it refuses, are in
// sql-server-outage.ts.
import { forEachBackend } from '../helpers/backend-fixtures.js';
import { markStoreContract } from './mark-store.js';

await forEachBackend('marks', (backend, fx) => {
  markStoreContract(backend.name, {
    freshUrl: () => fx.freshUrl('marks'),
    skip: fx.skip,
    processes: fx.traits.blocking,
  });
});
