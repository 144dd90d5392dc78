// Runs this repository's TypeScript as it is: its .ts files compiled as they load (esbuild,
// types stripped, cached on disk), and the workspace packages (idforge, idforge/coord,
// @idforge/stores, @idforge/server/cli, ...) resolved to their sources under packages/NAME/src
// instead of the dist/ their package.json names, so that tests, benchmarks and the CLI never
// run a stale build and every module is loaded once (a class from idforge is the same class in
// a test and in @idforge/stores). The hooks are in dev-hooks.mjs.
//
//   node --import ./scripts/dev-loader.mjs test/x.test.ts      (npm test and npm run bench do)
//
// Only imports from inside this repository are redirected; a package installed elsewhere (the
// package test's empty folder) resolves as a user's would.
import { register } from 'node:module';

// Stack traces name the .ts files' lines (each compiled file carries its source map).
process.setSourceMapsEnabled(true);
register('./dev-hooks.mjs', import.meta.url);
