// loadDriver (packages/stores/src/driver.ts): a package that is not installed becomes
// DriverMissingError naming it; any other failure of the import passes through unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadDriver } from '../../packages/stores/src/driver.js';
import { DriverMissingError } from '../../packages/stores/src/index.js';

const absent = 'idforge-no-such-driver';

test('a driver that is not installed is DriverMissingError naming the package', async () => {
  await assert.rejects(
    loadDriver(absent, 'postgres', () => import(absent)),
    (e: unknown) => {
      assert.ok(e instanceof DriverMissingError);
      assert.equal(e.code, 'IDF_DRIVER_MISSING');
      assert.equal(e.driver, absent);
      assert.equal(e.backend, 'postgres');
      assert.match(e.message, new RegExp(`npm install ${absent}`));
      assert.equal((e.cause as { code?: string }).code, 'ERR_MODULE_NOT_FOUND');
      return true;
    },
  );
});

test('an installed driver loads; other failures are not mistaken for a missing driver', async () => {
  const pg = await loadDriver('pg', 'postgres', () => import('pg'));
  assert.equal(typeof pg.default.Pool, 'function');
  const broken = Object.assign(new Error("Cannot find package 'other' imported from x"), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
  await assert.rejects(
    loadDriver('pg', 'postgres', () => Promise.reject(broken)),
    (e) => e === broken,
  );
  const syntax = new SyntaxError('bad driver build');
  await assert.rejects(
    loadDriver('pg', 'postgres', () => Promise.reject(syntax)),
    (e) => e === syntax,
  );
});
