// The floor plan of @idforge/stores (issue 9 §2) and the import picture of the packages: no
// circle in or across them (the CLI included), every backend folder laid out alike, the entry re-exporting by name only, and no
// server driver imported statically (they are optional peer dependencies, loaded lazily).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { workspaceSources } from '../../scripts/workspace-sources.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const stores = join(root, 'packages/stores/src');
const sources = workspaceSources();
const packages = ['idforge', 'stores', 'server'].map((d) => join(root, 'packages', d, 'src'));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/**
 * Static imports and re-exports (not dynamic `import()`); `import type` too when `types` (a
 * circle of types is still two files that cannot be understood apart).
 */
function staticImports(file: string, types = false): string[] {
  const src = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of src.matchAll(
    /(?:^|\n)\s*(import|export)(\s+type\b)?[^'";]*?from\s*['"]([^'"]+)['"]/g,
  )) {
    if (types || m[2] === undefined) found.push(m[3]!);
  }
  return found;
}

test('no import circle in the packages, across them included (static imports, types included)', () => {
  const graph = new Map<string, string[]>();
  for (const f of packages.flatMap((p) => files(p))) {
    graph.set(
      f,
      staticImports(f, true).flatMap((s) => {
        if (s.startsWith('.')) return [resolve(dirname(f), s).replace(/\.js$/, '.ts')];
        const url = sources.get(s);
        return url === undefined ? [] : [fileURLToPath(url)];
      }),
    );
  }
  const state = new Map<string, 'open' | 'done'>();
  const visit = (f: string, path: string[]) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') {
      const cycle = path
        .slice(path.indexOf(f))
        .concat(f)
        .map((p) => relative(root, p));
      assert.fail(`import circle: ${cycle.join(' -> ')}`);
    }
    state.set(f, 'open');
    for (const g of graph.get(f) ?? []) visit(g, [...path, f]);
    state.set(f, 'done');
  };
  for (const f of graph.keys()) visit(f, []);
});

test('every backend folder has connect.ts and per-port files, and no open.ts', () => {
  const ports = [
    'lease-store.ts',
    'segment-store.ts',
    'mark-store.ts',
    'counter-store.ts',
    'ticket-server.ts',
    'bench-engine.ts',
    'backfill-target.ts',
  ];
  for (const backend of ['sqlite', 'postgres', 'mysql', 'redis', 'etcd', 'file', 'leveldb']) {
    const names = readdirSync(join(stores, backend));
    assert.ok(names.includes('connect.ts'), `${backend}/connect.ts`);
    assert.ok(!names.includes('open.ts'), `${backend}/open.ts must not exist`);
    const own = names.filter((n) => ports.includes(n));
    assert.ok(own.length > 0, `${backend} implements a port`);
    for (const port of own) {
      const src = readFileSync(join(stores, backend, port), 'utf8');
      assert.match(src, /^export class \w+/m, `${backend}/${port} exports its class`);
      assert.match(src, /^export (async )?function open\w+\(/m, `${backend}/${port} exports open…`);
    }
  }
  assert.deepEqual(
    readdirSync(stores)
      .filter((n) => statSync(join(stores, n)).isDirectory())
      .sort(),
    ['etcd', 'file', 'leveldb', 'mysql', 'postgres', 'redis', 'sqlite'],
  );
});

test('@idforge/stores index.ts re-exports by name only; url.ts is a leaf', () => {
  const index = readFileSync(join(stores, 'index.ts'), 'utf8');
  assert.doesNotMatch(index, /export \*/);
  const body = index.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').trim();
  assert.match(body, /^(export (type )?\{[^}]*\} from '[^']+';\s*)+$/);
  assert.deepEqual(staticImports(join(stores, 'url.ts')), []);
});

test('server drivers are never imported statically: only import type, and import() in connect.ts', () => {
  const drivers = /^(pg|mysql2(\/promise)?|ioredis|etcd3|better-sqlite3|classic-level)$/;
  for (const f of packages.flatMap((p) => files(p))) {
    for (const spec of staticImports(f)) {
      assert.doesNotMatch(spec, drivers, `${relative(root, f)} imports "${spec}" statically`);
    }
    const dynamic = [...readFileSync(f, 'utf8').matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)];
    for (const m of dynamic) {
      if (drivers.test(m[1]!))
        assert.match(f, /packages\/stores\/src\/\w+\/connect\.ts$/, relative(root, f));
    }
  }
});
