// Which servers `idforge sql --apply` takes: MariaDB 10.10 or later (RANDOM_BYTES, Aria);
// MySQL and older MariaDB are refused before anything is created. Pure: no server needed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkMariadbVersion } from '../../packages/stores/src/mysql/sql-functions.js';

test('MariaDB 10.10+ is taken; MySQL and MariaDB before 10.10 are refused with the version', () => {
  for (const v of ['10.10.2-MariaDB', '10.11.19-MariaDB-0+deb12u1', '11.4.2-MariaDB']) {
    assert.doesNotThrow(() => checkMariadbVersion(v, 'mysql://h/db'), v);
  }
  for (const v of ['8.0.36', '8.4.0-0ubuntu0.24.04.1', '10.6.18-MariaDB', '10.3.39-MariaDB', '']) {
    assert.throws(
      () => checkMariadbVersion(v, 'mysql://h/db'),
      (e: unknown) =>
        e instanceof RangeError &&
        e.message.includes('MariaDB 10.10 or later') &&
        e.message.includes(`got ${v} at mysql://h/db`),
      v,
    );
  }
});
