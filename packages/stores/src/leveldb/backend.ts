/** LevelDB (classic-level): a key-value engine for `idforge bench db` only, never a store. */
import type { Backend } from '../backend.js';
import { leveldbRules } from './rules.js';

export const leveldbBackend: Backend = {
  ...leveldbRules,
  title: 'LevelDB',
  form: 'leveldb:DIR',
  drivers: ['classic-level'],
  open: {
    bench: async (url) => (await import('./bench-engine.js')).openLevelBenchEngine(url),
  },
};
