// Keeps the examples of the README and every docs/*.md page true (README and docs examples
// are checked in CI). What is checked, per fenced block:
//
// ```console  Every line starting with `$ idforge ` is a command; the lines after it, up to
//             the next `$ ` line, are what it prints (standard output and standard error, in
//             the order written; trailing blank lines ignored). The command runs in-process
//             through the CLI's run(), its words split as a shell would (quotes honoured; no
//             pipes or variables). The output must match exactly, except for `idforge gen`,
//             whose IDs are random and time-dependent: there the output must have the same
//             number of IDs, every line (the README's and the real one) must have the shape
//             of the scheme and --format (GEN_SHAPES in test/helpers/readme.ts), and the IDs
//             of uuidv7, snowflake and ulid --monotonic must strictly increase. A `$ ` line
//             that is not an idforge command fails the test: use a ```sh block for those.
// (console blocks of README.md and the pages of CONSOLE_DOCS.)
// ```ts       (and ```typescript, ```js, ```javascript; every such block of every page, bar the
//             few NOT_RUN lists with the reason.) The block is written to a temporary
//             module, with `from 'idforge'` pointing at src/core/index.ts (a driver such as
//             'pg' at the workspace's), and imported: it must run without throwing. A line ending
//             in `// => VALUE` asserts that its expression, or the variable it declares,
//             deep-equals VALUE (a JavaScript expression: JSON, 123n, undefined); a line
//             ending in `// throws NAME` asserts that its expression throws an error named
//             NAME. Each block runs on its own: it imports what it uses.
// Examples run with an empty temporary directory as the working directory, so a relative store
// such as sqlite:idforge.db is created there, never in the repository. An example that talks to
// a server names the local address a reader has (postgres://postgres@127.0.0.1:5432/test,
// mysql://root@127.0.0.1:3306/test, http://127.0.0.1:8080 and :8081 for `idforge serve`); the
// test runs it against its own (a fresh database, an in-process service: DocsServices), and
// skips it, saying why, when that server is down.
// Other blocks (sh, text, plain ```) are not run. Two more tests keep docs/api.md naming every
// runtime export of the four entry points and the README a front page.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { run } from '../../packages/server/src/cli/index.js';
import { workspaceSources } from '../../scripts/workspace-sources.mjs';
import { addressesOf, DocsServices } from '../helpers/docs-services.js';
import { SERVERS } from '../helpers/namespaces.js';
import {
  exampleModule,
  type Fence,
  fences,
  genCount,
  genShape,
  type Transcript,
  transcripts,
} from '../helpers/readme.js';
import { tempDir } from '../helpers/temp.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const sources = workspaceSources();
const assertUrl = pathToFileURL(join(root, 'test/helpers/readme-assert.ts')).href;
/** The pages whose console blocks are transcripts to replay (the others show shell sessions). */
const CONSOLE_DOCS = new Set([
  'README.md',
  'docs/api.md',
  'docs/cli.md',
  'docs/hlc.md',
  'docs/sharding.md',
  'docs/business-numbers.md',
]);
const DOCS = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
/** The languages of a block a reader copies into a program: each such block runs. */
const CODE = new Set(['ts', 'typescript', 'js', 'javascript']);
/**
 * Code blocks that do not run, each with the reason, keyed by page and the block's first line
 * (a line number would move with every edit above it). A new block runs, or is listed here.
 */
const NOT_RUN: ReadonlyMap<string, string> = new Map([]);
const notRunKey = (file: string, fence: Fence) => `${file}: ${fence.lines[0] ?? ''}`;
const services = new DocsServices();
const { dir: temp, remove: removeTemp } = tempDir('idforge-readme-');
const cwd = join(temp, 'cwd');
mkdirSync(cwd);
const home = process.cwd();
const rootDb = join(root, 'idforge.db');
const rootDbBefore = existsSync(rootDb);
before(() => process.chdir(cwd));
after(async () => {
  process.chdir(home);
  await services.close();
  removeTemp();
});

/** Runs the CLI in-process; standard output and error interleaved as a terminal shows them. */
async function terminal(argv: string[]): Promise<string[]> {
  let out = '';
  const write = (s: string) => (out += s);
  await run(argv, {
    stdout: { write },
    stderr: { write },
    stdin: (async function* () {})(),
  });
  const lines = out.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

async function checkTranscript(t: Transcript): Promise<void> {
  const actual = await terminal(t.argv);
  if (t.argv[0] !== 'gen') {
    assert.deepEqual(actual, t.expected, `$ ${t.command}`);
    return;
  }
  const shape = genShape(t.argv);
  for (const [who, lines] of [
    ['the documented', t.expected],
    ['the real', actual],
  ] as const) {
    for (const l of lines) assert.ok(shape.line(l), `${who} output of "${t.command}": ${l}`);
    const increases = shape.ordered;
    if (increases !== undefined) {
      for (let i = 1; i < lines.length; i++) {
        assert.ok(increases(lines[i - 1]!, lines[i]!), `${who} output of "${t.command}" increases`);
      }
    }
  }
  assert.equal(genCount(t.argv, actual), genCount(t.argv, t.expected), `IDs of ${t.command}`);
  assert.equal(actual.length, t.expected.length, `lines of ${t.command}`);
}

// A reader's project has the drivers it imports ('pg', 'mysql2/promise') installed; the
// temporary module, outside the repository, finds them where the workspace has them.
const requireFromStores = createRequire(join(root, 'packages/stores/package.json'));
function resolveDependencies(module: string): string {
  return module.replace(/from\s+(['"])([a-z@][\w@/.-]*)\1/g, (m, _q, spec: string) => {
    if (spec.startsWith('node:')) return m;
    return `from ${JSON.stringify(pathToFileURL(requireFromStores.resolve(spec)).href)}`;
  });
}

let examples = 0;
/**
 * What a reader has made before an example, by the steps the page gave before it: keyed by
 * page and a text of the block. The backfill example fills a table the reader has, with the
 * key file `idforge public keygen` wrote.
 */
const BEFORE: ReadonlyMap<string, () => Promise<void>> = new Map([
  [
    'docs/public-ids.md: openBackfillTarget(',
    async () => {
      const keygen = await terminal(['public', 'keygen', '--out', 'public-keys.txt']);
      assert.match(keygen.join('\n'), /new key file/);
      const { default: pg } = await import('pg');
      const url = await services.rewrite(SERVERS.postgres.url);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query('CREATE TABLE orders (id bigint PRIMARY KEY, total numeric)');
        await client.query('INSERT INTO orders SELECT n, n FROM generate_series(1, 2500) n');
      } finally {
        await client.end();
      }
    },
  ],
]);

async function prepare(file: string, fence: Fence): Promise<void> {
  const text = fence.lines.join('\n');
  for (const [key, f] of BEFORE) {
    const [page, part] = key.split(': ') as [string, string];
    if (page === file && text.includes(part)) await f();
  }
}

async function runExample(file: string, fence: Fence): Promise<void> {
  await prepare(file, fence);
  const path = join(temp, `example-${++examples}.mts`);
  const module = exampleModule(fence, sources, assertUrl, file);
  writeFileSync(path, await services.rewrite(resolveDependencies(module)));
  await import(pathToFileURL(path).href);
}

for (const file of DOCS) {
  const text = readFileSync(join(root, file), 'utf8');
  const blocks = fences(text);
  describe(file, () => {
    for (const fence of blocks.filter((f) => f.lang === 'console' && CONSOLE_DOCS.has(file))) {
      for (const t of transcripts(fence)) {
        test(`${file}:${t.line} $ ${t.command}`, () => checkTranscript(t));
      }
    }
    for (const fence of blocks.filter((f) => CODE.has(f.lang))) {
      if (NOT_RUN.has(notRunKey(file, fence))) continue;
      const name = `${file}:${fence.line} ${fence.lang} example runs`;
      test(name, async (t) => {
        const skip = await services.skip(addressesOf(fence.lines.join('\n')));
        if (skip !== false) return t.skip(skip);
        await runExample(file, fence);
      });
    }
  });
}

test('every code block of every page runs, or is listed as not run with the reason', () => {
  const pages = readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md'));
  assert.deepEqual(
    DOCS.slice(1),
    pages.sort().map((f) => `docs/${f}`),
    'every page is read',
  );
  const listed = new Set<string>();
  for (const file of DOCS) {
    for (const fence of fences(readFileSync(join(root, file), 'utf8'))) {
      assert.ok(
        !/^(tsx?|jsx?|mjs|cjs|node|typescript|javascript)$/i.test(fence.lang) ||
          CODE.has(fence.lang),
        `${file}:${fence.line}: a \`\`\`${fence.lang} block would not run: write ts or js`,
      );
      if (CODE.has(fence.lang) && NOT_RUN.has(notRunKey(file, fence))) {
        listed.add(notRunKey(file, fence));
      }
    }
  }
  for (const key of NOT_RUN.keys())
    assert.ok(listed.has(key), `NOT_RUN lists a block gone: ${key}`);
});

/** The lines of `markdown` outside fenced blocks, each with its 1-based number. */
function prose(markdown: string): [number, string][] {
  const out: [number, string][] = [];
  let fenced = false;
  markdown.split('\n').forEach((l, i) => {
    if (/^```/.test(l)) fenced = !fenced;
    else if (!fenced) out.push([i + 1, l]);
  });
  return out;
}

test('every table of every page renders: a blank line, a header, a separator, no stray row', () => {
  for (const file of DOCS) {
    const lines = prose(readFileSync(join(root, file), 'utf8'));
    for (let i = 0; i < lines.length; i++) {
      const [n, l] = lines[i]!;
      const prev = lines[i - 1]?.[1];
      if (!l.startsWith('|') || prev?.startsWith('|')) continue;
      // A row glued to a paragraph renders as its text: a table cut by a paragraph shows so.
      const apart = prev === undefined || prev.trim() === '' || prev.startsWith('#');
      assert.ok(apart, `${file}:${n}: a table row after text`);
      assert.match(
        lines[i + 1]?.[1] ?? '',
        /^\|(\s*:?-+:?\s*\|)+$/,
        `${file}:${n + 1}: no separator`,
      );
    }
  }
});

test('the docs have examples to check (a renamed fence must not turn this test off)', () => {
  const blocks = [...CONSOLE_DOCS].flatMap((f) => fences(readFileSync(join(root, f), 'utf8')));
  const commands = blocks.filter((f) => f.lang === 'console').flatMap((f) => transcripts(f));
  assert.ok(commands.some((t) => t.argv[0] === 'gen'));
  assert.ok(commands.some((t) => t.argv[0] === 'convert'));
  assert.ok(commands.some((t) => t.argv[0] === 'inspect' && t.argv.includes('--json')));
  const readme = fences(readFileSync(join(root, 'README.md'), 'utf8'));
  assert.ok(readme.filter((f) => f.lang === 'ts').length >= 3, 'three quick starts');
  assert.ok(
    readme.some((f) => f.lang === 'console'),
    'a CLI transcript',
  );
});

test('docs/api.md names every runtime export of every entry point', async () => {
  const api = readFileSync(join(root, 'docs/api.md'), 'utf8');
  // Every entry point of every package but the two that are not an API: idforge/internal
  // (shared by the packages of one release) and idforge/bin (the process around the CLI).
  const entries: Record<string, Record<string, unknown>> = {};
  for (const [entry, url] of sources) {
    if (entry === 'idforge/internal' || entry === 'idforge/bin') continue;
    entries[entry] = (await import(url)) as Record<string, unknown>;
  }
  assert.ok(Object.keys(entries).length >= 12, Object.keys(entries).join(' '));
  for (const [entry, mod] of Object.entries(entries)) {
    for (const name of Object.keys(mod)) {
      const named = new RegExp(`\`(new )?${name.replace(/\$/g, '\\$')}[\`(]`);
      assert.match(api, named, `docs/api.md does not name ${name} (${entry})`);
    }
  }
});

/** The installed packages with an install script (npm 11 asks a project to review them). */
function withInstallScripts(dir: string, found = new Set<string>()): Set<string> {
  if (!existsSync(dir)) return found;
  for (const name of readdirSync(dir)) {
    const at = join(dir, name);
    if (name.startsWith('@')) withInstallScripts(at, found);
    if (name.startsWith('.') || !existsSync(join(at, 'package.json'))) continue;
    const pkg = JSON.parse(readFileSync(join(at, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    const s = pkg.scripts ?? {};
    if (s.preinstall ?? s.install ?? s.postinstall) found.add(name);
    withInstallScripts(join(at, 'node_modules'), found);
  }
  return found;
}

test('the README says which install scripts to allow, for each package npm 11 lists', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const packages = [...withInstallScripts(join(root, 'node_modules'))];
  assert.ok(packages.includes('better-sqlite3'), packages.join(' '));
  assert.match(readme, /allowScripts/);
  assert.match(readme, /npm install-scripts approve better-sqlite3/);
  for (const name of packages) assert.ok(readme.includes(`\`${name}\``), `README names ${name}`);
});

test('the README is a front page: under ~150 lines, one table per entry point', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const lines = readme.split('\n').length;
  assert.ok(lines <= 150, `README.md has ${lines} lines`);
  for (const entry of [
    'idforge',
    'idforge/coord',
    'idforge/sequences',
    '@idforge/stores',
    '@idforge/server',
    'idforge/client',
    'idforge/bench',
    'idforge/public',
    'idforge/hlc',
    'idforge/shard',
  ]) {
    assert.ok(readme.includes(`### \`${entry}\`\n`), `README lacks a table for ${entry}`);
  }
});

test('the examples leave the repository alone (a relative store lands in the temporary cwd)', () => {
  assert.equal(existsSync(rootDb), rootDbBefore, 'idforge.db in the repository root');
  assert.equal(process.cwd(), cwd);
});
