// The CLI is a user of idforge like any other (issue 9 §4): every file under src/cli imports
// only the public entry points, the CLI's own io/args/formats and node: modules; no
// command imports another command (main.ts alone gathers them).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cliDir = join(root, 'src/cli');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every import and re-export specifier, type-only and dynamic ones included. */
function specifiers(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const m of src.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'";]*?from\s*['"]([^'"]+)['"]/g))
    found.push(m[1]!);
  for (const m of src.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) found.push(m[1]!);
  for (const m of src.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(m[1]!);
  return found;
}

const ENTRY_POINTS = [
  'core/index.ts',
  'coord/index.ts',
  'sequences/index.ts',
  'stores/index.ts',
  'service/index.ts',
  'bench/index.ts',
  'public/index.ts',
  'hlc/index.ts',
  'shard/index.ts',
];
const CLI_OWN = ['cli/io.ts', 'cli/args.ts', 'cli/formats.ts', 'cli/prompt.ts', 'cli/keys.ts'];

test('src/cli imports only the public entry points, io/args/formats and node: modules', () => {
  const all = files(cliDir);
  assert.ok(all.length >= 10, 'the CLI files are found');
  const wrong: string[] = [];
  for (const f of all) {
    const from = relative(root, f);
    for (const spec of specifiers(f)) {
      if (spec.startsWith('node:')) continue;
      if (!spec.startsWith('.')) {
        wrong.push(`${from} imports the package "${spec}"`);
        continue;
      }
      const target = relative(join(root, 'src'), resolve(dirname(f), spec).replace(/\.js$/, '.ts'));
      const isCommand = target.startsWith('cli/commands/');
      if (ENTRY_POINTS.includes(target) || CLI_OWN.includes(target)) continue;
      if (isCommand && from === 'src/cli/main.ts') continue;
      wrong.push(
        isCommand
          ? `${from} imports the command ${target} (commands never import each other)`
          : `${from} imports ${target}, not a public entry point`,
      );
    }
  }
  assert.deepEqual(wrong, []);
});

test('the CLI reads no process.env: the environment comes in through io', () => {
  for (const f of files(cliDir)) {
    assert.doesNotMatch(readFileSync(f, 'utf8'), /process\.env/, relative(root, f));
  }
});
