// The two bins from the sources, as tests run them in processes of their own:
// `node --import <loader> <bin> ...`, the loader resolving the TypeScript sources. Absolute
// paths, so a process started in another directory still finds them.
import { fileURLToPath } from 'node:url';

const source = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/** scripts/dev-loader.mjs, for node's --import. */
export const loader = source('scripts/dev-loader.mjs');

/** The bins' sources: the library's `idforge` and the server's `idforge-server`. */
export const BINS = {
  idforge: source('packages/idforge/src/bin/idforge.ts'),
  'idforge-server': source('packages/server/src/bin/idforge-server.ts'),
} as const;
