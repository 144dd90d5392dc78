// docs/architecture.md names the files where each behaviour lives; a name that no longer
// exists sends a reader to nothing (the issue-35 review found three: a test file that was
// never written, and two paths from before the packages split). Every file name in
// backticks must match a file of the repository: a path from the root, or from a package
// (`coord/ports.ts` is packages/idforge/src/coord/ports.ts), with `<name>` and `*` as
// wildcards for one path segment; a bare name must be some file's name.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const root = new URL('../..', import.meta.url).pathname;
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage']);

function files(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files(path, out);
    else out.push(relative(root, path));
  }
  return out;
}

/** The names in backticks that look like files: a dot and a known extension, no spaces. */
export function namedFiles(markdown: string): string[] {
  const names = new Set<string>();
  for (const [, name] of markdown.matchAll(/`([^`\s]+\.(?:ts|mjs|js|md|json|sh|sql|yml))`/g)) {
    if (name !== undefined && !name.startsWith('.') && !name.includes('://')) names.add(name);
  }
  return [...names];
}

/** `<name>` and `*` match one path segment, `{a,b}` one of its words; the rest is literal. */
function pattern(name: string): RegExp {
  const escaped = name
    .split(/(<[^>]+>|\*|\{[^}]+\})/)
    .map((part) => {
      if (part === '*' || /^<[^>]+>$/.test(part)) return '[^/]+';
      const literal = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
      if (/^\{[^}]+\}$/.test(part))
        return `(?:${part.slice(1, -1).split(',').map(literal).join('|')})`;
      return literal(part);
    })
    .join('');
  return new RegExp(`(^|/)${escaped}$`);
}

test('every file docs/architecture.md names exists', () => {
  const all = files(root);
  const text = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
  const names = namedFiles(text);
  assert.ok(names.length > 50, `found only ${names.length} file names: the pattern is wrong`);
  const missing = names.filter((name) => !all.some((file) => pattern(name).test(file)));
  assert.deepEqual(missing, [], 'named in docs/architecture.md but not in the repository');
});

test('the check finds a name that does not exist', () => {
  const all = files(join(root, 'packages/idforge/src/coord'));
  const names = namedFiles(
    '`coord/ports.ts`, `test/sql/install.test.ts`, `<name>/classify.ts`, `{coord,hlc}/ports.ts`, `{ports,sleep}.ts`',
  );
  assert.equal(names.length, 5);
  const found = names.filter((name) => all.some((file) => pattern(name).test(file)));
  assert.deepEqual(found, ['coord/ports.ts', '{coord,hlc}/ports.ts', '{ports,sleep}.ts']);
});

/**
 * The source paths a code file names (`src/sequences/counter-source.ts`,
 * `packages/server/src/service/http/drain.ts`): a path from the root must exist; a path `src/…`
 * written in a package's own code means that package's file, and in a test, script or
 * benchmark any package's.
 */
function stalePaths(file: string, text: string, exists: (path: string) => boolean): string[] {
  const own = /^packages\/([^/]+)\//.exec(file)?.[1];
  const stale: string[] = [];
  for (const [, path] of text.matchAll(
    /(?<![\w./-])((?:packages\/[\w-]+\/)?src\/[\w./-]+\.(?:ts|mjs))/g,
  )) {
    if (path === undefined) continue;
    const found = path.startsWith('packages/')
      ? exists(path)
      : own !== undefined
        ? exists(`packages/${own}/${path}`)
        : ['idforge', 'stores', 'server'].some((pkg) => exists(`packages/${pkg}/${path}`));
    if (!found) stale.push(`${file}: ${path}`);
  }
  return stale;
}

test('every source path named in the code, the tests, the scripts and benchmarks exists', () => {
  const all = files(root);
  const known = new Set(all);
  const code = all
    .filter((f) => f !== 'test/docs/architecture-paths.test.ts')
    .filter((f) => /\.(ts|mjs)$/.test(f) && /^(packages\/[^/]+\/src|test|scripts|bench)\//.test(f));
  const stale = code.flatMap((f) =>
    stalePaths(f, readFileSync(join(root, f), 'utf8'), (p) => known.has(p)),
  );
  assert.deepEqual(stale, [], 'paths that name no file (moved or renamed since written)');
  const demo = stalePaths(
    'packages/stores/src/redis/x.ts',
    'see src/sequences/counter-source.ts and packages/idforge/src/sequences/counter-source.ts',
    (p) => known.has(p),
  );
  assert.deepEqual(demo, ['packages/stores/src/redis/x.ts: src/sequences/counter-source.ts']);
});
