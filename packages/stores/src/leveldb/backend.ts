/** LevelDB (classic-level): a key-value engine for `idforge bench db` only, never a store. */
import type { Backend } from '../backend.js';

export const leveldbBackend: Backend = {
  name: 'leveldb',
  title: 'LevelDB',
  form: 'leveldb:DIR',
  drivers: ['classic-level'],
  url: { path: true },
  open: {
    bench: async (url) => (await import('./bench-engine.js')).openLevelBenchEngine(url),
  },
};
