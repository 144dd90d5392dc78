// The dependency arrows of docs/architecture.md, enforced on the sources: src/core imports nothing
// outside itself (no package, no node: module), the CLI reaches the core only through its
// public barrel, and only src/bin touches process-wide side effects.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const lib = join(root, 'packages/idforge/src');
const storesDir = join(root, 'packages/stores/src');
const server = join(root, 'packages/server/src');

/**
 * The core's entry points: its two barrels, and the per-scheme and wire entry points, each a
 * folder of one index.ts that re-exports core modules by name (idforge/uuid, idforge/ulid,
 * idforge/ksuid, idforge/snowflake, idforge/wire). Other layers may import any of them.
 */
const CORE_VIEWS = ['uuid', 'ulid', 'ksuid', 'snowflake', 'wire'];
const CORE_ENTRIES = new Set([
  join(lib, 'core/index.js'),
  join(lib, 'core/internal.js'),
  // The registry of schemes, for the layers that handle every scheme.
  join(lib, 'core/schemes/index.js'),
  ...CORE_VIEWS.map((v) => join(lib, v, 'index.js')),
]);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function imports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of src.matchAll(/(?:^|\n)\s*(?:import|export)[^'";]*?from\s*['"]([^'"]+)['"]/g)) {
    found.push(m[1]!);
  }
  for (const m of src.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of src.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  return found;
}

test('idforge/core imports only itself: no package and no node: module', () => {
  const core = join(lib, 'core');
  for (const f of files(core)) {
    for (const spec of imports(f)) {
      assert.ok(spec.startsWith('.'), `${relative(root, f)} imports "${spec}"`);
      const target = resolve(dirname(f), spec);
      assert.ok(target.startsWith(core), `${relative(root, f)} reaches outside core: "${spec}"`);
    }
    const src = readFileSync(f, 'utf8');
    assert.doesNotMatch(
      src,
      /\bprocess\.|\brequire\(/,
      `${relative(root, f)} uses process/require`,
    );
  }
});

test('the CLI uses the core through its public barrels only (idforge, idforge/schemes)', () => {
  for (const f of [...files(join(lib, 'cli')), ...files(join(server, 'cli'))]) {
    for (const spec of imports(f)) {
      if (!spec.startsWith('.')) {
        assert.ok(
          /^(node:|idforge(\/(cli|coord|sequences|bench|public|shard|sql|uuid|ulid|ksuid|snowflake|wire))?$|@idforge\/stores$)/.test(
            spec,
          ),
          `${relative(root, f)} imports package "${spec}"`,
        );
        continue;
      }
      const target = resolve(dirname(f), spec);
      if (target.includes(`${join(lib, 'core')}`)) {
        assert.ok(
          target === join(lib, 'core/index.js') || target === join(lib, 'core/schemes/index.js'),
          `${relative(root, f)} imports ${spec}`,
        );
      }
    }
  }
});

test('only the bin shim has process-wide side effects', () => {
  for (const dir of [join(lib, 'cli'), join(lib, 'core'), join(server, 'cli')]) {
    for (const f of files(dir)) {
      const src = readFileSync(f, 'utf8');
      assert.doesNotMatch(src, /process\.(exit|on|exitCode|argv)/, relative(root, f));
    }
  }
});

test('the core barrel is the only re-exporter of its layer', () => {
  for (const f of files(join(lib, 'core'))) {
    if (f.endsWith('src/core/index.ts') || f.endsWith('src/core/internal.ts')) continue;
    assert.doesNotMatch(readFileSync(f, 'utf8'), /^export \* from/m, relative(root, f));
  }
});

test('coord, sequences, bench and sql import the core barrels, their own files and node: only: no driver', () => {
  for (const layer of ['coord', 'sequences', 'bench', 'sql']) {
    const dir = join(lib, layer);
    for (const f of files(dir)) {
      for (const spec of imports(f)) {
        if (!spec.startsWith('.')) {
          assert.ok(spec.startsWith('node:'), `${relative(root, f)} imports package "${spec}"`);
          continue;
        }
        const target = resolve(dirname(f), spec);
        assert.ok(
          target.startsWith(dir) || CORE_ENTRIES.has(target),
          `${relative(root, f)} reaches outside its layer and the core barrels: "${spec}"`,
        );
      }
    }
  }
});

test('drivers are imported only under packages/stores', () => {
  const drivers = /^(pg|mysql2(\/promise)?|ioredis|etcd3|better-sqlite3|classic-level)$/;
  for (const f of [...files(lib), ...files(server)]) {
    for (const spec of imports(f)) {
      assert.doesNotMatch(spec, drivers, `${relative(root, f)} imports the driver "${spec}"`);
    }
  }
});

test('the public barrel lists its exports by name and exposes no unsafe* path or codec table', async () => {
  const src = readFileSync(join(lib, 'core/index.ts'), 'utf8');
  assert.doesNotMatch(src, /^export \* from/m, 'src/core/index.ts re-exports a whole file');
  const internalOnly = /^unsafe|_ALPHABET|_TABLE|^CROCKFORD_|^BASE62_|^BYTE_TO_HEX$|^HEX_VALUE$/;
  const guards = /^(assert[A-Z]|typeError$|rangeError$|describe$)/;
  const names = Object.keys(await import('../../packages/idforge/src/core/index.js'));
  for (const name of names) {
    assert.doesNotMatch(name, internalOnly, `the public barrel exports ${name}`);
    assert.doesNotMatch(name, guards, `the public barrel exports the guard ${name}`);
  }
  // 126 until issue 35 moved each layer's errors to the layer that throws them, each scheme's
  // extras to its own entry point (idforge/uuid, ulid, ksuid, snowflake) and the wire contract
  // to idforge/wire (docs/architecture.md, "The root and the per-scheme entry points").
  assert.ok(names.length <= 56, `${names.length} runtime exports in the root (keep it at most 56)`);
});

test('the per-scheme and wire entry points are views of the core: one index.ts re-exporting core modules by name', () => {
  for (const view of CORE_VIEWS) {
    const dir = join(lib, view);
    assert.deepEqual(readdirSync(dir), ['index.ts'], `idforge/${view}`);
    const src = readFileSync(join(dir, 'index.ts'), 'utf8');
    assert.doesNotMatch(src, /^export \* from/m, `idforge/${view} re-exports a whole file`);
    assert.doesNotMatch(src, /^(const|let|function|class) /m, `idforge/${view} defines code`);
    for (const spec of imports(join(dir, 'index.ts'))) {
      assert.ok(spec.startsWith('../core/'), `idforge/${view} imports "${spec}"`);
    }
  }
});

test('an error class is defined in the layer that throws it, the core keeping the shared ones', async () => {
  // The root exports the errors of generating and parsing; the classes of other layers are
  // exported by their own entry points (test/core/errors-doc.test.ts checks each is exported).
  const rootNames = Object.keys(await import('../../packages/idforge/src/core/index.js'));
  const rootErrors = rootNames.filter((n) => n.endsWith('Error')).sort();
  assert.deepEqual(rootErrors, [
    'ClockRollbackError',
    'ClockStalledError',
    'HorizonExceededError',
    'IdforgeError',
    'InvalidIdError',
    'InvalidLayoutError',
    'MonotonicOverflowError',
  ]);
  const coreErrors = files(join(lib, 'core'))
    .filter((f) => /\/errors[^/]*\.ts$/.test(f))
    .map((f) => relative(lib, f))
    .sort();
  assert.deepEqual(coreErrors, ['core/errors-shared.ts', 'core/errors.ts']);
});

interface Manifest {
  name: string;
  exports: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as Manifest;

test('idforge/internal is used by the sibling packages only, which pin idforge to the same version', () => {
  const library = manifest('idforge');
  for (const dir of ['stores', 'server']) {
    const pkg = manifest(dir);
    assert.equal(pkg.dependencies?.idforge, (library as unknown as { version: string }).version);
  }
  for (const f of files(lib)) {
    for (const spec of imports(f)) assert.notEqual(spec, 'idforge/internal', relative(root, f));
  }
  for (const f of files(server)) {
    for (const spec of imports(f)) assert.notEqual(spec, 'idforge/internal', relative(root, f));
  }
});

test('the library imports no other package of the workspace, and only @noble/ciphers besides node:', () => {
  for (const f of files(lib)) {
    for (const spec of imports(f)) {
      if (spec.startsWith('.') || spec.startsWith('node:')) continue;
      assert.match(spec, /^@noble\/ciphers\//, `${relative(root, f)} imports "${spec}"`);
    }
  }
});

test('no relative import crosses a package folder; every package a source imports is declared', () => {
  for (const dir of ['idforge', 'stores', 'server']) {
    const pkgRoot = join(root, 'packages', dir, 'src');
    const pkg = manifest(dir);
    const declared = new Set([
      pkg.name,
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}),
    ]);
    for (const f of files(pkgRoot)) {
      for (const spec of imports(f)) {
        if (spec.startsWith('.')) {
          const target = resolve(dirname(f), spec);
          assert.ok(target.startsWith(pkgRoot), `${relative(root, f)} reaches out: "${spec}"`);
          continue;
        }
        if (spec.startsWith('node:')) continue;
        const name = spec.startsWith('@')
          ? spec.split('/').slice(0, 2).join('/')
          : spec.split('/')[0]!;
        assert.ok(
          declared.has(name),
          `${relative(root, f)} imports "${spec}", not in ${dir}/package.json`,
        );
      }
    }
  }
});

test('stores reach the library through its entry points; never the server', () => {
  const allowed =
    /^(idforge(\/(internal|coord|sequences|bench|public|sql|uuid|ulid|ksuid|snowflake|wire))?|node:.*|pg|mysql2\/promise|ioredis|etcd3|better-sqlite3|classic-level)$/;
  for (const f of files(storesDir)) {
    for (const spec of imports(f)) {
      if (spec.startsWith('.')) continue;
      assert.match(spec, allowed, `${relative(root, f)} imports "${spec}"`);
    }
  }
});

test('service imports the public barrels of idforge, coord, sequences and hlc; stores only from its composition root', () => {
  const dir = join(server, 'service');
  // server.ts opens the stores; the settings (config/config.ts, config/config-values.ts) check
  // that a URL names a store able to hold what it is for.
  const roots = ['server.ts', 'config/config.ts', 'config/config-values.ts'].map((n) =>
    join(dir, n),
  );
  for (const f of files(dir)) {
    for (const spec of imports(f)) {
      if (spec.startsWith('.')) {
        assert.ok(
          resolve(dirname(f), spec).startsWith(dir),
          `${relative(root, f)} imports ${spec}`,
        );
        continue;
      }
      if (spec === '@idforge/stores') {
        assert.ok(roots.includes(f), `${relative(root, f)} imports the stores`);
        continue;
      }
      assert.doesNotMatch(
        spec,
        /^idforge\/(internal|cli|bin|client|public|bench|shard)$/,
        `${relative(root, f)} imports ${spec}`,
      );
    }
  }
});

/**
 * The browser-safe layers: relative imports stay in the layer or reach the core's barrels;
 * packages only as listed; no timer, `process` or `require`.
 */
const BROWSER_LAYERS = [
  { layer: 'public', packages: /^@noble\/ciphers\// },
  { layer: 'hlc', packages: null },
  { layer: 'shard', packages: null },
] as const;

for (const { layer, packages } of BROWSER_LAYERS) {
  test(`${layer} imports the core barrels and its own files${packages === null ? '' : ' and @noble/ciphers'} only: no node:, no driver (it runs in browsers)`, () => {
    const dir = join(lib, layer);
    const found = files(dir);
    assert.ok(found.length > 0, `idforge/${layer} has sources`);
    for (const f of found) {
      for (const spec of imports(f)) {
        if (!spec.startsWith('.')) {
          assert.ok(packages?.test(spec), `${relative(root, f)} imports "${spec}"`);
          continue;
        }
        const target = resolve(dirname(f), spec);
        assert.ok(
          target.startsWith(dir) || CORE_ENTRIES.has(target),
          `${relative(root, f)} reaches outside its layer and the core barrels: "${spec}"`,
        );
      }
      assert.doesNotMatch(
        readFileSync(f, 'utf8'),
        /\b(setTimeout|setInterval|setImmediate|process\.[a-z]|require\()/,
        `${relative(root, f)} uses a timer, process or require`,
      );
    }
  });
}

test('client imports the core barrels and its own files only: no node:, no package (it runs in browsers)', () => {
  const dir = join(lib, 'client');
  // The lease port's types (httpLeaseStore implements LeaseStore): type-only, gone once built.
  const ports = join(lib, 'coord/ports.js');
  // The double buffer it shares with the segment buffer: itself browser-safe (checked below).
  const shared = join(lib, 'sequences/double-buffer.js');
  for (const f of files(dir)) {
    const src = readFileSync(f, 'utf8');
    for (const spec of imports(f)) {
      assert.ok(spec.startsWith('.'), `${relative(root, f)} imports "${spec}"`);
      const target = resolve(dirname(f), spec);
      if (target === ports) {
        const typeOnly = new RegExp(`import type \\{[^}]*\\} from '${spec}'`);
        assert.match(src, typeOnly, `${relative(root, f)} imports the lease port's values`);
        continue;
      }
      assert.ok(
        target.startsWith(dir) || CORE_ENTRIES.has(target) || target === shared,
        `${relative(root, f)} reaches outside the client and the core barrels: "${spec}"`,
      );
    }
  }
});

test('the double buffer the client imports reaches the core barrels only, as the browser-safe layers', () => {
  const f = join(lib, 'sequences/double-buffer.ts');
  for (const spec of imports(f)) {
    const target = resolve(dirname(f), spec);
    assert.ok(CORE_ENTRIES.has(target), `${relative(root, f)} imports "${spec}"`);
  }
  assert.doesNotMatch(readFileSync(f, 'utf8'), /\b(process\.[a-z]|require\(|Buffer\.)/);
});

test('no package compares a backend name: a store is asked of the registry, an engine of core/engines.ts', async () => {
  const { backends } = await import('../../packages/stores/src/index.js');
  const names = backends()
    .flatMap((b) => [b.name, ...(b.aliases ?? []), ...(b.shownSchemes ?? [])])
    .join('|');
  const compared = new RegExp(
    `[!=]==\\s*'(${names})'|'(${names})'\\s*[!=]==|\\bcase\\s+'(${names})'\\s*:`,
  );
  // A backend's own folder (packages/stores/src/<name>/) is where it may name itself.
  const own = backends().map((b) => `${join(storesDir, b.name)}/`);
  const found: string[] = [];
  for (const file of [...files(lib), ...files(storesDir), ...files(server)]) {
    if (own.some((dir) => file.startsWith(dir))) continue;
    for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
      if (compared.test(line)) found.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
    }
  }
  assert.deepEqual(
    found,
    [],
    'ask the registry for a role (servesRole, backendOpens, sequenceKind), or an engine for its traits (ENGINES, enginesWith)',
  );
});
