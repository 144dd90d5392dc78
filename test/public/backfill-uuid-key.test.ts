// A table keyed by 16 bytes (PostgreSQL `uuid`, MariaDB `BINARY(16)`, a SQLite BLOB primary
// key), backfilled with --scheme public: the walk in the engine's byte order, the key handed to
// the encoder as its 16 bytes, and each stored public ID decoding to its row's key.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { formatUuid } from '../../packages/idforge/src/core/index.js';
import {
  generatePublicKey,
  PublicIds,
  publicIdValues,
  runBackfill,
} from '../../packages/idforge/src/public/index.js';
import { uuidv4Bytes } from '../../packages/idforge/src/uuid/index.js';
import { openBackfillTarget } from '../../packages/stores/src/index.js';
import { engineSkip, openTestDb } from '../helpers/backfill-db.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-backfill-uuid-');

const KEY_TYPE = { sqlite: 'BLOB NOT NULL', postgres: 'uuid', mysql: 'BINARY(16)' } as const;

for (const engine of ['sqlite', 'postgres', 'mysql'] as const) {
  describe(`a 16-byte key on ${engine}`, async () => {
    const skip = await engineSkip(engine);
    test('--scheme public: 128-bit public IDs that decode to each row key', { skip }, async () => {
      const db = await openTestDb(engine, join(dir, 'uuid.db'));
      const table = `idf_bf_uuidkey_${process.pid}`;
      try {
        await db.exec(`DROP TABLE IF EXISTS ${table}`);
        await db.exec(`CREATE TABLE ${table} (id ${KEY_TYPE[engine]} PRIMARY KEY, n INTEGER)`);
        const keys = Array.from({ length: 1000 }, () => uuidv4Bytes());
        const literal = (k: Uint8Array) =>
          engine === 'postgres' ? `'${formatUuid(k)}'` : `X'${Buffer.from(k).toString('hex')}'`;
        await db.exec(
          `INSERT INTO ${table} (id, n) VALUES ${keys.map((k, i) => `(${literal(k)}, ${i})`).join(',')}`,
        );
        const ids = new PublicIds({ keys: [generatePublicKey(3)] });
        const target = await openBackfillTarget(db.url);
        const report = await runBackfill(target, {
          table,
          column: 'public_id',
          values: publicIdValues((id) => ids.encode(id, 'acct')),
          batch: 64,
        }).finally(() => target.close());
        assert.equal(report.filled, 1000);
        assert.equal(report.passes, 1, 'one pass: the walk follows the engine’s own key order');
        assert.equal(report.complete, true);
        const hex = engine === 'postgres' ? `replace(id::text, '-', '')` : 'hex(id)';
        const rows = await db.rows<{ k: string; v: string }>(
          `SELECT ${hex} AS k, public_id AS v FROM ${table}`,
        );
        assert.equal(rows.length, 1000);
        for (const r of rows) {
          assert.equal(r.v.length, 'acct_'.length + 29);
          assert.equal(Buffer.from(ids.decode128(r.v, 'acct')).toString('hex'), r.k.toLowerCase());
        }
      } finally {
        await db.exec(`DROP TABLE IF EXISTS ${table}`);
        await db.close();
      }
    });
  });
}
