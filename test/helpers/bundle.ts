// Child processes of the tests, started without a TypeScript loader. A fixture run through
// `node --import scripts/dev-loader.mjs` spends a few tenths of a second on the loader's hooks
// and its compile cache for every module; the fault suites start hundreds of them. Bundled once
// per test process by esbuild (the compiler the loader uses), from the sources as they are now,
// a fixture starts in a fraction of that. Packages (drivers included) stay external and
// resolve from node_modules, so the bundle lives under node_modules/.cache.
//
// Not for entry points that find files next to their own module (the service's dashboard and
// package.json, the CLI's --version): those keep the loader.
import { mkdirSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { workspaceSources } from '../../scripts/workspace-sources.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cache = join(root, 'node_modules', '.cache', 'idforge-test');
const built = new Map<string, string>();

/**
 * The workspace packages (idforge, @idforge/stores, ...) bundled from their sources, as
 * dev-loader.mjs resolves them: a worker thread gets no loader on Node 20 (its --import and
 * register() hooks do not reach the worker's imports), and external they would load the
 * packages' dist/, an older build.
 */
function workspaceAliases(): Record<string, string> {
  const sources = workspaceSources() as Map<string, string>;
  return Object.fromEntries([...sources].map(([name, url]) => [name, fileURLToPath(url)]));
}

/**
 * The `node` arguments that run the TypeScript file `entry` (an absolute path):
 * `[bundle.mjs]`. Built on first use in this process; removed when it exits. With `workspace`,
 * the workspace packages are bundled from their sources too (for worker threads).
 */
export function tsEntry(entry: string, options: { workspace?: boolean } = {}): string[] {
  let out = built.get(entry);
  if (out === undefined) {
    mkdirSync(cache, { recursive: true });
    out = join(cache, `${basename(entry, '.ts')}-${process.pid}-${built.size}.mjs`);
    buildSync({
      entryPoints: [entry],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: `node${process.versions.node.split('.')[0]}`,
      packages: 'external',
      ...(options.workspace === true ? { alias: workspaceAliases() } : {}),
      logLevel: 'warning',
    });
    if (built.size === 0) process.once('exit', () => removeBundles());
    built.set(entry, out);
  }
  return [out];
}

function removeBundles(): void {
  for (const out of built.values()) rmSync(out, { force: true });
}
