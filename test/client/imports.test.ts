// idforge/client runs wherever fetch does: its sources import only each other, the core's
// barrels (its public barrel, idforge/wire's contract, and the internal barrel for the store
// failure every port shares) and the double buffer it shares with the segment buffer: no
// node: module, no package, no other layer. Its barrel names its exports.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = join(root, 'packages/idforge/src/client');

test('idforge/client imports only itself, the core barrels, the shared double buffer and the lease port types', () => {
  const core = ['core/index.js', 'core/internal.js', 'wire/index.js'].map((f) =>
    join(root, 'packages/idforge/src', f),
  );
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  assert.ok(files.includes('index.ts'));
  for (const f of files) {
    const src = readFileSync(join(dir, f), 'utf8');
    const specs = [...src.matchAll(/(?:^|\n)\s*(?:import|export)[^'";]*?from\s*['"]([^'"]+)['"]/g)]
      .map((m) => m[1]!)
      .concat([...src.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]!));
    for (const spec of specs) {
      const target = resolve(dir, spec);
      // The lease port's types (httpLeaseStore implements LeaseStore): type-only, gone once built.
      const port =
        target === join(root, 'packages/idforge/src/coord/ports.js') &&
        src.includes(`import type {`) &&
        new RegExp(`import type \\{[^}]*\\} from '${spec}'`).test(src);
      // The double buffer shared with the segment buffer (browser-safe: test/core/architecture).
      const shared = target === join(root, 'packages/idforge/src/sequences/double-buffer.js');
      const ok = spec.startsWith('./') || core.includes(target) || port || shared;
      assert.ok(ok, `${relative(root, join(dir, f))} imports "${spec}"`);
    }
    assert.doesNotMatch(src, /\bprocess\.\w|\brequire\(|\bBuffer\./, f);
  }
});

test('the client barrel lists its exports by name', () => {
  const src = readFileSync(join(dir, 'index.ts'), 'utf8');
  assert.doesNotMatch(src, /export \*/);
});
