// The SegmentStore contract (./segment-store.ts) on every backend the registry lists for
// segments, each opened by its registry opener on a fresh, empty location of its fixture
// (test/helpers/backend-fixtures.ts). What is particular to one backend is in
// segment-store-<backend>-specific.test.ts.
import { forEachBackend } from '../helpers/backend-fixtures.js';
import { segmentStoreContract } from './segment-store.js';

await forEachBackend('segments', (backend, fx) => {
  const open = async (url: string, migrate = true) => {
    const store = await backend.open.segments!(url, { autoMigrate: false });
    if (migrate) await store.migrate();
    return store;
  };
  const freshUrl = () => fx.freshUrl('seg');
  segmentStoreContract(backend.name, {
    open: () => open(freshUrl()),
    openUnmigrated: () => open(freshUrl(), false),
    skip: fx.skip,
    ...(fx.traits.blocking ? { processes: { freshUrl, open: (url: string) => open(url) } } : {}),
  });
});
