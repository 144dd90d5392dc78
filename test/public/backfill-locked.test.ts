// Adding the column behind a long transaction: the backfill waits its few seconds for the
// table's lock (here shortened) and gives up with BackfillTableError 'locked', changing nothing,
// rather than queue the application's queries behind its ALTER; once the transaction ends, the
// same run goes through.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import {
  BackfillTableError,
  runBackfill,
  uuidv4Values,
} from '../../packages/idforge/src/public/index.js';
import { MysqlBackfillTarget } from '../../packages/stores/src/mysql/backfill-target.js';
import { connectMysql } from '../../packages/stores/src/mysql/connect.js';
import { PostgresBackfillTarget } from '../../packages/stores/src/postgres/backfill-target.js';
import { engineSkip, MY_URL, openTestDb, PG_URL, seedTable } from '../helpers/backfill-db.js';

for (const engine of ['postgres', 'mysql'] as const) {
  describe(`a long transaction on ${engine}`, async () => {
    const skip = await engineSkip(engine);
    test('adding the column gives up with reason "locked"; nothing changes', { skip }, async () => {
      const db = await openTestDb(engine, '');
      const app = await openTestDb(engine, '');
      const table = `idf_bf_locked_${process.pid}`;
      const target =
        engine === 'postgres'
          ? new PostgresBackfillTarget({
              pool: new pg.Pool({ connectionString: PG_URL }),
              owned: true,
              lockTimeoutMs: 200,
            })
          : new MysqlBackfillTarget(await connectMysql(MY_URL), { lockWaitS: 1 });
      try {
        await seedTable(db, table, 50);
        await app.exec('BEGIN');
        await app.exec(`SELECT count(*) FROM ${table}`);
        await assert.rejects(
          runBackfill(target, { table, column: 'public_id', values: uuidv4Values() }),
          (e: unknown) =>
            e instanceof BackfillTableError &&
            e.reason === 'locked' &&
            /gave up waiting for the table's lock .*Nothing was changed/.test(e.message),
        );
        await app.exec('ROLLBACK');
        assert.equal((await db.values(table, 'payload')).size, 50);
        await assert.rejects(db.columnType(table, 'public_id'));
        const report = await runBackfill(target, {
          table,
          column: 'public_id',
          values: uuidv4Values(),
        });
        assert.equal(report.complete, true);
      } finally {
        await target.close();
        await db.exec(`DROP TABLE IF EXISTS ${table}`);
        await app.close();
        await db.close();
      }
    });
  });
}
