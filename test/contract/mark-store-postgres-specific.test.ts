// What the PostgreSQL mark store adds to the DurableMarkStore contract (mark-store.test.ts): a
// server that is absent, malformed URLs and namespaces.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { StoreUnavailableError } from '../../packages/idforge/src/core/index.js';
import { openPostgresMarkStore } from '../../packages/stores/src/postgres/mark-store.js';
import { fixtureOf } from '../helpers/backend-fixtures.js';

const URL_ = (await fixtureOf('postgres')).server!.url;

describe('PostgreSQL mark store', () => {
  test('an unreachable server fails fast with StoreUnavailableError, no password', async () => {
    const started = Date.now();
    await assert.rejects(
      openPostgresMarkStore('postgres://u:secret@127.0.0.1:1/x', { connectTimeoutMs: 1000 }),
      (e: unknown) => {
        assert.ok(e instanceof StoreUnavailableError, String(e));
        assert.equal(e.operation, 'connect');
        assert.equal(e.address, 'postgres://u:***@127.0.0.1:1/x');
        return true;
      },
    );
    assert.ok(Date.now() - started < 3000);
  });

  test('malformed URLs and namespaces are RangeErrors', async () => {
    await assert.rejects(openPostgresMarkStore('redis://h'), RangeError);
    await assert.rejects(openPostgresMarkStore(URL_, { namespace: 'Bad-Name' }), RangeError);
  });
});
