// The published declarations of @idforge/stores name no driver: a project that installs none of
// pg, mysql2, ioredis, etcd3, better-sqlite3 and classic-level (nor their types) still compiles
// against them with skipLibCheck off. The rule that makes it true: every exported declaration
// names the clients through the structural types of packages/stores/src/driver-types.ts, and
// the drivers' own types stay in function bodies and private fields, which declarations do not
// carry. Checked on what tsc emits: the package's declarations, compiled in memory with its
// tsconfig.build.json (nothing is written), may refer only to their own files, idforge's entry
// points (its one dependency) and Node's built-ins.
import assert from 'node:assert/strict';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { workspaceSources } from '../../scripts/workspace-sources.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const stores = join(root, 'packages/stores');
const out = join(stores, 'declarations-in-memory');
const idforgeEntries = new Set(
  [...workspaceSources().keys()].filter(
    (name) => name === 'idforge' || name.startsWith('idforge/'),
  ),
);

/** The .d.ts files of packages/stores/src as the build emits them: output path -> text. */
function emitDeclarations(): Map<string, string> {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(stores, 'tsconfig.build.json'),
    { noEmit: false, declaration: true, emitDeclarationOnly: true, outDir: out },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  assert.ok(parsed !== undefined, 'packages/stores/tsconfig.build.json parses');
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const emitted = new Map<string, string>();
  const result = program.emit(
    undefined,
    (name, text) => emitted.set(resolve(name), text),
    undefined,
    true,
  );
  assert.equal(result.emitSkipped, false);
  assert.equal(emitted.size, parsed.fileNames.length, 'one declaration file per source file');
  return emitted;
}

/** The modules a declaration file refers to: imports, re-exports, import types, references. */
function references(file: string, text: string): { kind: string; name: string }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { kind: string; name: string }[] = [
    ...source.referencedFiles.map((r) => ({ kind: 'reference path', name: r.fileName })),
    ...source.typeReferenceDirectives.map((r) => ({ kind: 'reference types', name: r.fileName })),
    ...source.libReferenceDirectives.map((r) => ({ kind: 'reference lib', name: r.fileName })),
  ];
  const visit = (node: ts.Node): void => {
    let specifier: ts.Node | undefined;
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      specifier = node.moduleSpecifier;
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      specifier = node.argument.literal;
    } else if (ts.isExternalModuleReference(node)) {
      specifier = node.expression;
    } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
      specifier = node.name; // declare module 'x' (an augmentation)
    }
    if (specifier !== undefined && ts.isStringLiteral(specifier)) {
      found.push({ kind: 'module', name: specifier.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function allowed(file: string, ref: { kind: string; name: string }): boolean {
  if (ref.kind === 'reference types') return ref.name === 'node';
  if (ref.kind === 'reference lib') return true;
  if (ref.name.startsWith('.')) {
    const target = resolve(dirname(file), ref.name);
    return !relative(out, target).startsWith('..'); // inside the package's own declarations
  }
  return ref.kind === 'module' && (idforgeEntries.has(ref.name) || ref.name.startsWith('node:'));
}

const emitted = emitDeclarations();

test('no declaration of @idforge/stores refers to a driver (or any module but its own, idforge and node:)', () => {
  const refused: string[] = [];
  for (const [file, text] of emitted) {
    for (const ref of references(file, text)) {
      if (!allowed(file, ref)) refused.push(`${relative(out, file)}: ${ref.kind} "${ref.name}"`);
    }
  }
  assert.deepEqual(refused, []);
});

test('the clients of the *ClientOptions are the structural types of driver-types.ts', () => {
  const at = (path: string) => {
    const text = emitted.get(join(out, path));
    assert.ok(text !== undefined, path);
    return text;
  };
  const expected: [string, RegExp][] = [
    ['postgres/connect.d.ts', /readonly pool: PgPool;/],
    ['mysql/connect.d.ts', /readonly pool: MysqlPromisePool;/],
    ['redis/connect.d.ts', /readonly client: RedisClient;/],
    ['etcd/connect.d.ts', /readonly client: EtcdClient;/],
    ['sqlite/connect.d.ts', /readonly database: SqliteDatabase;/],
  ];
  for (const [path, member] of expected) assert.match(at(path), member, path);
  const index = at('index.d.ts');
  for (const name of [
    'EtcdClient',
    'MysqlPromisePool',
    'PgPool',
    'RedisClient',
    'SqliteDatabase',
  ]) {
    assert.match(index, new RegExp(`\\b${name}\\b[^;]*from '\\./driver-types\\.js'`), name);
  }
  assert.deepEqual(
    references('driver-types.d.ts', at('driver-types.d.ts')),
    [{ kind: 'reference types', name: 'node' }],
    'driver-types.ts imports nothing; it names @types/node, for Buffer',
  );
});
