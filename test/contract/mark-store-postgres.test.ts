// The DurableMarkStore contract on PostgreSQL: one schema (namespace) per store location,
// dropped at the end. Server: IDFORGE_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test.
// Then what only PostgreSQL has: a server that is absent, malformed URLs.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { StoreUnavailableError } from '../../packages/idforge/src/core/index.js';
import { openPostgresMarkStore } from '../../packages/stores/src/postgres/mark-store.js';
import { serviceSkip } from '../helpers/services.js';
import { markStoreContract } from './mark-store.js';

const URL_ = process.env.IDFORGE_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const server = new URL(URL_);
const skip = await serviceSkip('PostgreSQL', server.hostname, Number(server.port || 5432));
const namespaces = new Set<string>();

function url(name: string): string {
  const ns = `idforge_test_marks_${name}`;
  namespaces.add(ns);
  return `${URL_}${URL_.includes('?') ? '&' : '?'}namespace=${ns}`;
}

after(async () => {
  if (skip !== false || namespaces.size === 0) return;
  const client = new pg.Client({ connectionString: URL_ });
  await client.connect();
  try {
    for (const ns of namespaces) await client.query(`DROP SCHEMA IF EXISTS "${ns}" CASCADE`);
  } finally {
    await client.end();
  }
});

markStoreContract('postgres', { url, skip });

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
