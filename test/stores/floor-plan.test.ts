// The floor plan of @idforge/stores (issue 9 §2) and the import picture of the packages: no
// circle in or across them (the CLI included; lazy import() counted, issue 35), every backend
// folder laid out alike, the entry re-exporting by name only, and no server driver imported
// statically (they are optional peer dependencies, loaded lazily).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { enginesWith } from '../../packages/idforge/src/core/engines.js';
import type { BackendPort } from '../../packages/stores/src/backend.js';
import { backends, backendsWith } from '../../packages/stores/src/backends.js';
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

/**
 * Every module `file` loads, statically or lazily: imports, re-exports, `import type` and
 * `import()` with a literal specifier (a descriptor reaches its adapters so), resolved to
 * source files (a relative path, or a workspace entry point); other packages are left out.
 */
function loads(file: string, src = readFileSync(file, 'utf8')): string[] {
  const specs = [
    ...src.matchAll(/(?:^|\n)\s*(?:import|export)(?:\s+type\b)?[^'";]*?from\s*['"]([^'"]+)['"]/g),
    ...src.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
  return specs.flatMap((s) => {
    if (s.startsWith('.')) return [resolve(dirname(file), s).replace(/\.js$/, '.ts')];
    const url = sources.get(s);
    return url === undefined ? [] : [fileURLToPath(url)];
  });
}

/**
 * The import circles of a graph: its strongly connected components of more than one file, or
 * of one file that loads itself (Tarjan's algorithm), each as its files in sorted order.
 */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) visit(w);
      if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = stack.splice(stack.indexOf(v));
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

test('the circle finder sees a circle closed by a lazy import(), and a type-only one', () => {
  const a = join(stores, 'a.ts');
  const b = join(stores, 'b.ts');
  const c = join(stores, 'c.ts');
  const graph = new Map([
    [a, loads(a, "import { b } from './b.js';")],
    [b, loads(b, "export const open = async () => (await import('./a.js')).a;")],
    [c, loads(c, "import type { C } from './c.js';")],
  ]);
  assert.deepEqual(circles(graph), [[a, b], [c]]);
});

test('no import circle in any package, nor across them: static, type-only and lazy import() alike', () => {
  const graph = new Map(packages.flatMap((p) => files(p)).map((f) => [f, loads(f)] as const));
  const found = circles(graph).map((c) => c.map((f) => relative(root, f)));
  for (const pkg of packages) {
    const name = relative(root, pkg);
    const mine = found.filter((c) => c.some((f) => f.startsWith(`${name}/`)));
    assert.deepEqual(
      mine.map((c) => `${c.length} files: ${c.join(', ')}`),
      [],
      `${name}: ${mine.length} import circles`,
    );
  }
});

/** The file of each port in a backend folder. */
const PORT_FILES: Record<BackendPort, string> = {
  leases: 'lease-store.ts',
  segments: 'segment-store.ts',
  counters: 'counter-store.ts',
  marks: 'mark-store.ts',
  tickets: 'ticket-server.ts',
  bench: 'bench-engine.ts',
  backfill: 'backfill-target.ts',
  sql: 'sql-functions.ts',
};

test('the registry lists every backend folder, and each folder holds what its descriptor opens', () => {
  const folders = readdirSync(stores)
    .filter((n) => statSync(join(stores, n)).isDirectory())
    .sort();
  assert.deepEqual(
    folders,
    backends()
      .map((b) => b.name)
      .sort(),
  );
  for (const backend of backends()) {
    const names = readdirSync(join(stores, backend.name));
    assert.ok(names.includes('connect.ts'), `${backend.name}/connect.ts`);
    assert.ok(names.includes('backend.ts'), `${backend.name}/backend.ts`);
    assert.ok(names.includes('rules.ts'), `${backend.name}/rules.ts`);
    assert.ok(!names.includes('open.ts'), `${backend.name}/open.ts must not exist`);
    const opened = (Object.keys(PORT_FILES) as BackendPort[]).filter(
      (p) => backend.open[p] !== undefined,
    );
    assert.deepEqual(
      names.filter((n) => Object.values(PORT_FILES).includes(n)).sort(),
      opened.map((p) => PORT_FILES[p]).sort(),
      `${backend.name}: one file per port its descriptor opens`,
    );
    for (const port of opened) {
      const src = readFileSync(join(stores, backend.name, PORT_FILES[port]), 'utf8');
      assert.match(src, /^export class \w+/m, `${backend.name}/${port} exports its class`);
      assert.match(
        src,
        /^export (async )?function open\w+\(/m,
        `${backend.name}/${port} exports open…`,
      );
    }
  }
});

test("the library's engines (core/engines.ts, which cannot import the registry) are the backends that open its ports", () => {
  const opening = (port: BackendPort) =>
    backendsWith(port)
      .map((b) => b.name)
      .sort();
  assert.deepEqual([...enginesWith('bench')].sort(), opening('bench'));
  assert.deepEqual([...enginesWith('backfill')].sort(), opening('backfill'));
  assert.deepEqual([...enginesWith('sqlFunctions')].sort(), opening('sql'));
  // planWriters plans the writers a ticket server is one of.
  assert.deepEqual([...enginesWith('writerPlan')].sort(), opening('tickets'));
});

test('the optional peer dependencies are the drivers the descriptors name', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'packages/stores/package.json'), 'utf8'));
  const drivers = [...new Set(backends().flatMap((b) => b.drivers))].sort();
  assert.deepEqual(Object.keys(pkg.peerDependencies).sort(), drivers);
  assert.deepEqual(Object.keys(pkg.peerDependenciesMeta).sort(), drivers);
});

test("docs/architecture.md's ports table names the backends the registry says implement each", () => {
  const doc = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const ports: Record<string, BackendPort> = {
    LeaseStore: 'leases',
    SegmentStore: 'segments',
    CounterStore: 'counters',
    DurableMarkStore: 'marks',
    PlannableTicketServer: 'tickets',
    BenchEngine: 'bench',
    BackfillTarget: 'backfill',
    SqlFunctionsTarget: 'sql',
  };
  for (const [name, port] of Object.entries(ports)) {
    const row = new RegExp(`^\\| \`${name}\`[^|]*\\|[^|]*\\| ([^|]+) \\|`, 'm').exec(doc);
    assert.ok(row, `docs/architecture.md has a row for ${name}`);
    assert.deepEqual(
      row[1]!.split(',').map((s) => s.trim()),
      backendsWith(port).map((b) => b.name),
      `${name}: implemented by`,
    );
  }
});

test('@idforge/stores index.ts re-exports by name only; url.ts, redact.ts, the registry, the descriptors and their rules load nothing else', () => {
  const index = readFileSync(join(stores, 'index.ts'), 'utf8');
  assert.doesNotMatch(index, /export \*/);
  const body = index.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').trim();
  assert.match(body, /^(export (type )?\{[^}]*\} from '[^']+';\s*)+$/);
  assert.deepEqual(staticImports(join(stores, 'url.ts')), ['./backends.js', './redact.js']);
  assert.deepEqual(staticImports(join(stores, 'redact.ts')), ['./backend.js']);
  assert.deepEqual(staticImports(join(stores, 'backend.ts')), []);
  for (const spec of staticImports(join(stores, 'backends.ts'))) {
    assert.match(spec, /^\.\/(backend|\w+\/backend)\.js$/, `backends.ts imports ${spec}`);
  }
  for (const backend of backends()) {
    for (const spec of staticImports(join(stores, backend.name, 'backend.ts'))) {
      assert.match(
        spec,
        /^(\.\.\/backend\.js|\.\/rules\.js|node:\w+)$/,
        `${backend.name}/backend.ts imports ${spec}`,
      );
    }
    // What its adapters import of their own backend: types of the shared leaves, nothing else.
    for (const spec of staticImports(join(stores, backend.name, 'rules.ts'), true)) {
      assert.match(
        spec,
        /^\.\.\/(backend|store-error)\.js$/,
        `${backend.name}/rules.ts imports ${spec}`,
      );
    }
    assert.deepEqual(staticImports(join(stores, backend.name, 'rules.ts')), []);
  }
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
