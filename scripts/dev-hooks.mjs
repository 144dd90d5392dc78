// The module hooks of dev-loader.mjs:
// - resolve: for importers in this repository, a workspace package's entry ('idforge',
//   '@idforge/stores', ...) to its source file (workspace-sources.mjs); for any TypeScript
//   importer outside node_modules, a relative `./x.js` to the `./x.ts` beside it (TypeScript's
//   NodeNext spelling);
// - load: a .ts or .mts file outside node_modules (ours, or a docs example a test wrote to a
//   temporary folder) as the JavaScript esbuild makes of it (types stripped, nothing else
//   changed; tsconfig's target and class-field semantics), with an inline source map, so that
//   stack traces name the .ts file's lines.
// A compiled file is kept under node_modules/.cache/idforge/ts/, named by a hash of its path,
// its text and the compiler's options: a second process (every test file and every server a
// test starts is one) reads it instead of compiling again. Everything else (node_modules, node:
// builtins, .js files) goes straight to Node's own hooks: a server started through these spends
// ~0.4 s more CPU than from dist/, where tsx (used before) cost ~1.1 s more, for every test file
// and every server a test starts.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { workspaceSources } from './workspace-sources.mjs';

const root = new URL('../', import.meta.url).href;
const sources = workspaceSources();
const cacheDir = fileURLToPath(new URL('node_modules/.cache/idforge/ts/', root));

/** esbuild's options; part of every cache key, so a change here compiles everything again. */
const OPTIONS = {
  loader: 'ts',
  format: 'esm',
  target: 'es2022',
  sourcemap: 'inline',
  tsconfigRaw: { compilerOptions: { useDefineForClassFields: true, verbatimModuleSyntax: true } },
};
const OPTIONS_KEY = JSON.stringify(OPTIONS);

/** A file of ours: inside this repository, not a dependency. */
const ours = (url) => url?.startsWith(root) && !url.includes('/node_modules/');
/** TypeScript to compile: a .ts or .mts file (not a declaration file), not a dependency's. */
const typescript = (url) =>
  url?.startsWith('file:') && /(?<!\.d)\.m?ts$/.test(url) && !url.includes('/node_modules/');

export async function resolve(specifier, context, next) {
  const parent = context.parentURL;
  if (ours(parent)) {
    const source = sources.get(specifier);
    if (source !== undefined) return { url: source, format: 'module', shortCircuit: true };
  }
  if (typescript(parent) && /^\.\.?\/.*\.m?js$/.test(specifier)) {
    const ts = new URL(specifier.replace(/js$/, 'ts'), parent);
    if (existsSync(ts)) return { url: ts.href, format: 'module', shortCircuit: true };
  }
  return next(specifier, context);
}

let esbuild;
async function compile(path, text) {
  esbuild ??= await import('esbuild');
  const { code } = await esbuild.transform(text, { ...OPTIONS, sourcefile: path });
  return code;
}

export async function load(url, context, next) {
  if (!typescript(url)) return next(url, context);
  const path = fileURLToPath(url);
  const text = readFileSync(path, 'utf8');
  const key = createHash('sha256').update(OPTIONS_KEY).update('\0').update(path).update('\0');
  const cached = `${cacheDir}${key.update(text).digest('hex').slice(0, 40)}.js`;
  let code;
  try {
    code = readFileSync(cached, 'utf8');
  } catch {
    code = await compile(path, text);
    // Written aside, then renamed: a process reading the cache sees a whole file or none.
    mkdirSync(cacheDir, { recursive: true });
    const aside = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(aside, code);
    renameSync(aside, cached);
  }
  return { format: 'module', source: code, shortCircuit: true };
}
