// The workspace packages' entry points and the source file behind each: one table, read from
// the packages' own package.json (`exports`: ./dist/X.js is compiled from ./src/X.ts), for
// dev-hooks.mjs and for the tests that run the docs' examples or check the entry points.
import { readFileSync } from 'node:fs';

const root = new URL('../', import.meta.url);

/** Every package entry ('idforge', 'idforge/coord', '@idforge/stores', ...) -> source URL. */
export function workspaceSources() {
  const { workspaces } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  const sources = new Map();
  for (const folder of workspaces) {
    const base = new URL(`${folder}/`, root);
    const pkg = JSON.parse(readFileSync(new URL('package.json', base), 'utf8'));
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const file = typeof target === 'string' ? target : target.default;
      if (!file.startsWith('./dist/')) continue;
      const source = file.replace(/^\.\/dist\//, './src/').replace(/\.js$/, '.ts');
      sources.set(pkg.name + subpath.slice(1), new URL(source, base).href);
    }
  }
  return sources;
}
