// Issue 20: a missing or unbuilt better-sqlite3 binding is a driver problem. Before, `idforge
// serve` without the binding printed the 13 paths `bindings` tried and ended "Check that the
// server is running and reachable at that address" [IDF_STORE_UNAVAILABLE]. The errors here
// are the real ones better-sqlite3 and `bindings` throw, made without touching the installed
// module: a `nativeBinding` path that does not exist, and a lookup of a binding never built.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { ErrorCode } from '../../packages/idforge/src/core/index.js';
import { bindingFailure } from '../../packages/stores/src/driver.js';
import { DriverBindingError, DriverMissingError } from '../../packages/stores/src/index.js';
import { loadSqlite } from '../../packages/stores/src/sqlite/connect.js';

const require = createRequire(import.meta.url);

function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  assert.fail('expected a throw');
}

const cases: [string, unknown][] = [
  [
    'nativeBinding at a path that does not exist',
    thrown(() => new Database(':memory:', { nativeBinding: '/nonexistent/better_sqlite3.node' })),
  ],
  [
    'bindings finds no built binding (installed with --ignore-scripts)',
    thrown(() =>
      require('bindings')({
        bindings: 'idforge_never_built.node',
        module_root: require.resolve('better-sqlite3').replace(/\/lib\/index\.js$/, ''),
      }),
    ),
  ],
];

for (const [title, cause] of cases) {
  test(`${title}: IDF_DRIVER_MISSING naming better-sqlite3 and npm rebuild`, () => {
    const error = bindingFailure('better-sqlite3', 'sqlite', cause);
    assert.ok(error instanceof DriverMissingError, String(error));
    assert.equal(error.code, ErrorCode.DRIVER_MISSING);
    assert.equal(error.driver, 'better-sqlite3');
    assert.equal(error.cause, cause);
    assert.match(error.message, /better-sqlite3/);
    assert.match(error.message, /npm rebuild better-sqlite3/);
    assert.doesNotMatch(error.message, /server is running|→|\n/);
    const first = (cause as Error).message.split('\n')[0]!.replace(/\s*Tried:$/, '');
    assert.ok(error.message.includes(first), error.message);
  });
}

test('other errors are not binding failures', () => {
  assert.equal(bindingFailure('better-sqlite3', 'sqlite', new Error('SQLITE_BUSY')), null);
  const e = Object.assign(new Error("Cannot find module 'pg'"), { code: 'MODULE_NOT_FOUND' });
  assert.equal(bindingFailure('better-sqlite3', 'sqlite', e), null);
});

// better-sqlite3 is loaded lazily (an optional peer, like the other drivers), so a binding that
// fails as the module loads, rather than at `new Database()`, must give the same error.
test('a binding that fails while better-sqlite3 loads is DriverBindingError too', async () => {
  const [, cause] = cases[1]!;
  await assert.rejects(
    loadSqlite(() => Promise.reject(cause)),
    (e: unknown) => {
      assert.ok(e instanceof DriverBindingError, String(e));
      assert.equal(e.cause, cause);
      assert.match(e.message, /npm rebuild better-sqlite3/);
      return true;
    },
  );
});

test('better-sqlite3 not installed: DriverMissingError naming npm install better-sqlite3', async () => {
  const missing = Object.assign(
    new Error("Cannot find package 'better-sqlite3' imported from /app/node_modules/x.js"),
    { code: 'ERR_MODULE_NOT_FOUND' },
  );
  await assert.rejects(
    loadSqlite(() => Promise.reject(missing)),
    (e: unknown) => {
      assert.ok(e instanceof DriverMissingError && !(e instanceof DriverBindingError), String(e));
      assert.equal(e.code, ErrorCode.DRIVER_MISSING);
      assert.equal(e.driver, 'better-sqlite3');
      assert.equal(e.backend, 'sqlite');
      assert.match(e.message, /npm install better-sqlite3/);
      return true;
    },
  );
  const other = new SyntaxError('a broken build');
  await assert.rejects(
    loadSqlite(() => Promise.reject(other)),
    (e) => e === other,
  );
});

test('the installed better-sqlite3 loads: its Database class', async () => {
  assert.equal(await loadSqlite(), Database);
});
