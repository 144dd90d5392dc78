#!/usr/bin/env node
// Builds the workspace package in the current directory (`npm run build` in packages/NAME,
// or `npm run build --workspaces` from the root, which builds idforge, then @idforge/stores,
// then @idforge/server: each compiles against the declarations of the ones before it).
// Empties dist/, compiles src/ with the package's tsconfig.build.json, then copies the static
// files tsc does not compile (the service's dashboard page, script and style sheet) next to
// the code that serves them. No bundler involved; no source maps (the sources are not shipped).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const dir = process.cwd();
if (!existsSync(join(dir, 'tsconfig.build.json'))) {
  console.error(`build-package: no tsconfig.build.json in ${dir}; run it in packages/NAME`);
  process.exit(1);
}
rmSync(join(dir, 'dist'), { recursive: true, force: true });
const tsc = join(
  dirname(createRequire(import.meta.url).resolve('typescript/package.json')),
  'bin/tsc',
);
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
  cwd: dir,
  stdio: 'inherit',
});
if (built.status !== 0) process.exit(built.status ?? 1);

const assets = join(dir, 'src/service/dashboard');
if (existsSync(assets)) {
  cpSync(assets, join(dir, 'dist/service/dashboard'), {
    recursive: true,
    filter: (path) => !path.endsWith('.ts'),
  });
}
