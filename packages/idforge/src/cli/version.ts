/**
 * The version of this package, read once from its package.json: `idforge --version` and
 * `idforge-server --version` print it. The file is two folders up from this module both in
 * the sources (src/cli/version.ts) and in the build (dist/cli/version.js), and every install
 * ships it.
 */
import { readFileSync } from 'node:fs';

const manifest = new URL('../../package.json', import.meta.url);

/** This package's version (`0.2.0`), as its package.json says. */
export const VERSION: string = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string })
  .version;
