// The CLI is a user of idforge like any other (issue 9 §4): every file under the CLIs (packages/idforge/src/cli, packages/server/src/cli) imports
// only the public entry points, the CLI's own io/args/formats and node: modules; no
// command imports another command (main.ts alone gathers them).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

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

// The library's CLI (packages/idforge/src/cli) reaches the library by relative path, the
// server's (packages/server/src/cli) the other packages by name.
const ENTRY_POINTS = [
  'core/index.ts',
  'uuid/index.ts',
  'ulid/index.ts',
  'ksuid/index.ts',
  'snowflake/index.ts',
  'wire/index.ts',
  'coord/index.ts',
  'sequences/index.ts',
  'bench/index.ts',
  'public/index.ts',
  'hlc/index.ts',
  'shard/index.ts',
  'sql/index.ts',
  'service/index.ts',
];
const CLI_OWN = [
  'cli/io.ts',
  'cli/args.ts',
  'cli/formats.ts',
  'cli/prompt.ts',
  'cli/keys.ts',
  'cli/host.ts',
  'cli/main.ts',
  'cli/progress.ts',
  'cli/seq-format.ts',
  'cli/version.ts',
  'cli/log-format.ts',
];
const PACKAGES =
  /^(idforge(\/(uuid|ulid|ksuid|snowflake|wire|coord|sequences|bench|public|hlc|shard|sql|cli))?|@idforge\/stores)$/;
const GATHERERS = ['cli/main.ts', 'cli/index.ts'];

test('the CLIs import only the public entry points, their own io/args/formats and node: modules', () => {
  const wrong: string[] = [];
  let count = 0;
  for (const pkg of ['idforge', 'server']) {
    const src = join(root, 'packages', pkg, 'src');
    for (const f of files(join(src, 'cli'))) {
      count++;
      const from = relative(src, f);
      for (const spec of specifiers(f)) {
        if (spec.startsWith('node:')) continue;
        if (!spec.startsWith('.')) {
          if (pkg === 'server' && PACKAGES.test(spec)) continue;
          wrong.push(`${pkg}/${from} imports the package "${spec}"`);
          continue;
        }
        const target = relative(src, resolve(dirname(f), spec).replace(/\.js$/, '.ts'));
        const isCommand = target.startsWith('cli/commands/');
        if (ENTRY_POINTS.includes(target) || CLI_OWN.includes(target)) continue;
        if (isCommand && GATHERERS.includes(from)) continue;
        wrong.push(
          isCommand
            ? `${pkg}/${from} imports the command ${target} (commands never import each other)`
            : `${pkg}/${from} imports ${target}, not a public entry point`,
        );
      }
    }
  }
  assert.ok(count >= 16, 'the CLI files are found');
  assert.deepEqual(wrong, []);
});

test('the CLI reads no process.env: the environment comes in through io', () => {
  for (const pkg of ['idforge', 'server']) {
    for (const f of files(join(root, 'packages', pkg, 'src/cli'))) {
      assert.doesNotMatch(readFileSync(f, 'utf8'), /process\.env/, relative(root, f));
    }
  }
});
