// The CounterStore contract (./counter-store.ts) on every backend the registry lists for
// counters, each opened by its registry opener on fresh locations of its fixture
// (test/helpers/backend-fixtures.ts). What is particular to one backend is in
// counter-store-<backend>-specific.test.ts.
import { forEachBackend } from '../helpers/backend-fixtures.js';
import { counterStoreContract } from './counter-store.js';

await forEachBackend('counters', (backend, fx) => {
  const freshUrl = () => fx.freshUrl('ctr');
  counterStoreContract(backend.name, {
    open: async (url = freshUrl()) =>
      fx.keep(await backend.open.counters!(url, { connectTimeoutMs: 2000 })),
    freshUrl,
    skip: fx.skip,
  });
});
