/**
 * What the LevelDB bench engine knows of its backend without the registry (backend.ts,
 * `BackendRules`): its scheme (`leveldb:DIR`). None of classic-level's errors means anything
 * but "unavailable" to idforge (the bench holds no tables to migrate and no credentials).
 */
import type { BackendRules, Classify } from '../backend.js';
import type { CallSite } from '../store-error.js';

export const leveldbRules: BackendRules = { name: 'leveldb', url: { path: true } };

export const classifyLeveldb: Classify = () => null;

/** A call to the leveldb store at `address` (redacted), for its errors. */
export function leveldbSite(address: string): CallSite {
  return { backend: leveldbRules.name, address, classify: classifyLeveldb };
}
