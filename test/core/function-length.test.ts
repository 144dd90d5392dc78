// No function of the packages' sources runs over 60 lines (issue 21): one that does holds more
// than one step, and each step wants a name. Counted from the line a function starts on to
// the line of its closing brace, for every function-like node (declarations, methods,
// constructors, accessors, arrows, function expressions) with a body. What is exempt says why.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_LINES = 60;

/** file:function → why it may be longer: SQL text or a table, not steps. */
const EXEMPT: Record<string, string> = {
  'packages/stores/src/postgres/schema.ts:leaseSql':
    "the lease store's SQL statements, one template each",
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function nameOf(node: ts.SignatureDeclaration, src: ts.SourceFile): string {
  if (node.name !== undefined) return node.name.getText(src);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText(src);
  }
  if (ts.isPropertyDeclaration(parent)) return parent.name.getText(src);
  return ts.isConstructorDeclaration(node) ? 'constructor' : '<anonymous>';
}

/** Every function over MAX_LINES in `file`, as "file:line name (N lines)". */
function longFunctions(file: string): string[] {
  return longFunctionsIn(relative(root, file), readFileSync(file, 'utf8'));
}

function longFunctionsIn(where: string, text: string): string[] {
  const src = ts.createSourceFile(where, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = src.getLineAndCharacterOfPosition(node.getStart(src)).line;
      const last = src.getLineAndCharacterOfPosition(node.end).line;
      const lines = last - first + 1;
      const name = nameOf(node, src);
      if (lines > MAX_LINES && EXEMPT[`${where}:${name}`] === undefined) {
        found.push(`${where}:${first + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return found;
}

test(`no function in the packages' sources is over ${MAX_LINES} lines`, () => {
  const sources = ['idforge', 'stores', 'server'].flatMap((p) =>
    files(join(root, 'packages', p, 'src')),
  );
  assert.ok(sources.length > 100, 'the sources were found');
  assert.deepEqual(sources.flatMap(longFunctions), []);
});

test('the count sees a long function, an arrow and a method, and its exemptions are real', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  v${i}();`).join('\n');
  const text = [
    `function fits() {\n${body(MAX_LINES - 2)}\n}`,
    `function long() {\n${body(MAX_LINES - 1)}\n}`,
    `const arrow = () => {\n${body(MAX_LINES)}\n};`,
    `class C {\n  method() {\n${body(MAX_LINES)}\n  }\n}`,
  ].join('\n');
  assert.deepEqual(
    longFunctionsIn('x.ts', text).map((f) => f.replace(/^x\.ts:\d+ /, '')),
    ['long (61 lines)', 'arrow (62 lines)', 'method (62 lines)'],
  );
  for (const key of Object.keys(EXEMPT)) {
    const [file, name] = key.split(':') as [string, string];
    assert.match(readFileSync(join(root, file), 'utf8'), new RegExp(`function ${name}\\b`), key);
  }
});

const MAX_FILE_LINES = 400;

test(`no source file of the packages is over ${MAX_FILE_LINES} lines`, () => {
  // A file that grows past this holds more than one job (issue 35: a 663-line SnowflakeNode).
  const long = ['idforge', 'stores', 'server']
    .flatMap((p) => files(join(root, 'packages', p, 'src')))
    .map((f) => ({ f, lines: readFileSync(f, 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_FILE_LINES)
    .map(({ f, lines }) => `${relative(root, f)} (${lines} lines)`);
  assert.deepEqual(long, []);
});
