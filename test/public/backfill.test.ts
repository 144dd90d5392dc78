// runBackfill (idforge/public) over the real engines: SQLite (a temp file), PostgreSQL and
// MariaDB (the shared servers' `test` database, tables of the test's own). Per engine: the
// column added in the engine's 16-byte type and filled with the unique index built; a writer
// on its own connection inserting and updating rows throughout, every row filled exactly once
// and nothing the writer wrote overwritten; refusals that change nothing; a stop between
// batches resumed by a rerun without touching what was written; a rerun on a complete table.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  BackfillNoKeyError,
  type BackfillProgress,
  BackfillTableError,
  generatePublicKey,
  PublicIds,
  publicIdValues,
  runBackfill,
  uuidv4Values,
  uuidv7Values,
} from '../../packages/idforge/src/public/index.js';
import { uuidv4Bytes } from '../../packages/idforge/src/uuid/index.js';
import {
  assertFilledOnce,
  backfillSuite,
  type Engine,
  engineSkip,
  openTestDb,
  seedTable,
  type TestDb,
} from '../helpers/backfill-db.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-backfill-');

const ROWS = 5000;
const BATCH = 200;
const TYPES: Record<Engine, string> = { sqlite: 'blob', postgres: 'uuid', mysql: 'binary(16)' };

for (const engine of ['sqlite', 'postgres', 'mysql'] as const) {
  describe(`backfill on ${engine}`, async () => {
    const skip = await engineSkip(engine);
    const bf = backfillSuite(engine, join(dir, 'app.db'), skip);
    const t = (name: string) => `idf_bf_${name}_${process.pid}`;
    const table = async (name: string, rows = ROWS) => {
      bf.made.push(t(name));
      await seedTable(bf.db, t(name), rows);
      return t(name);
    };

    test('adds the column in the 16-byte type, fills every row once, builds the unique index', {
      skip,
    }, async () => {
      const name = await table('fill');
      const report = await runBackfill(bf.target, {
        table: name,
        column: 'public_id',
        values: uuidv7Values(),
        batch: BATCH,
      });
      assert.equal(report.columnAdded, true);
      assert.equal(report.filled, ROWS);
      assert.equal(report.passes, 1);
      assert.equal(report.complete, true);
      assert.ok(report.rowsPerSecond > 0);
      assert.equal(await bf.db.columnType(name, 'public_id'), TYPES[engine]);
      assert.deepEqual(await bf.db.uniqueIndexes(name, 'public_id'), [`${name}_public_id_key`]);
      assertFilledOnce(await bf.db.values(name, 'public_id'));
    });

    test('--scheme public: each row gets the opaque public ID of its key, in case-sensitive text', {
      skip,
    }, async () => {
      const name = await table('public', 500);
      const ids = new PublicIds({ keys: [generatePublicKey(1)] });
      const report = await runBackfill(bf.target, {
        table: name,
        column: 'public_id',
        values: publicIdValues((id) => ids.encode(id, 'ord')),
        batch: BATCH,
      });
      assert.equal(report.complete, true);
      const type = await bf.db.columnType(name, 'public_id');
      const length = 'ord_'.length + 23;
      if (engine === 'sqlite') assert.equal(type, 'text');
      else assert.match(type, new RegExp(`^(character varying|varchar)\\(${length}\\)$`));
      const rows = await bf.db.rows<{ id: unknown; v: string }>(
        `SELECT id, public_id AS v FROM ${name}`,
      );
      assert.equal(rows.length, 500);
      for (const r of rows) assert.equal(ids.decode64(r.v, 'ord'), BigInt(String(r.id)));
      assert.deepEqual(await bf.db.uniqueIndexes(name, 'public_id'), [`${name}_public_id_key`]);
    });

    test('a writer inserts and updates throughout: every row filled once, its own values kept', {
      skip,
    }, async () => {
      const name = await table('writer');
      const writer = await openTestDb(engine, join(dir, 'app.db'));
      let stop = false;
      let columnAdded = false;
      let inserted = 0;
      let updated = 0;
      const own = new Map<string, string>();
      const payloads = new Map<string, string>();
      const run = (async () => {
        // Even ids fall between the seeded odd ones: some behind the backfill's cursor (caught
        // by a later pass), some ahead. Every third insert carries the application's own value.
        for (let i = 0; !stop && i < ROWS; i++) {
          const id = 2 * ((i * 7919) % ROWS) + 2;
          if (i % 3 === 0 && columnAdded) {
            const v = Buffer.from(uuidv4Bytes()).toString('hex');
            await writer.exec(`INSERT INTO ${name} (id, payload) VALUES (${id}, 'w${id}')`);
            own.set(String(id), v);
            await setOwn(writer, name, id, v);
          } else {
            await writer.exec(`INSERT INTO ${name} (id, payload) VALUES (${id}, 'w${id}')`);
          }
          inserted++;
          const target = 2 * ((i * 104729) % ROWS) + 1;
          await writer.exec(`UPDATE ${name} SET payload = 'u${i}' WHERE id = ${target}`);
          payloads.set(String(target), `u${i}`);
          updated++;
          await nextTurn();
        }
      })();
      const seen: BackfillProgress[] = [];
      let duringFill = 0;
      const report = await runBackfill(bf.target, {
        table: name,
        column: 'public_id',
        values: uuidv4Values(),
        batch: BATCH,
        onProgress: (p) => {
          seen.push(p);
          columnAdded = true;
          if (p.pass === 1 && p.phase === 'fill') duringFill = inserted;
          // The application stops writing NULLs once the backfill is past its first pass.
          if (p.pass > 1 || p.phase === 'index') stop = true;
        },
      }).finally(() => {
        stop = true;
      });
      await run;
      assert.ok(duringFill > 5, `the writer ran during the first pass (${duringFill} inserts)`);
      assert.ok(report.passes >= 2, 'rows inserted behind the cursor were caught by another pass');
      assert.equal(report.complete, true);
      const values = await bf.db.values(name, 'public_id');
      assert.equal(values.size, ROWS + inserted);
      assertFilledOnce(values);
      for (const [id, v] of own) {
        // PostgreSQL shows a uuid with hyphens.
        assert.equal(values.get(id)?.replaceAll('-', ''), v, `the writer's value of row ${id}`);
      }
      const rows = await bf.db.rows<{ id: unknown; payload: string }>(
        `SELECT id, payload FROM ${name}`,
      );
      const payload = new Map(rows.map((r) => [String(r.id), r.payload]));
      for (const [id, p] of payloads)
        assert.equal(payload.get(id), p, `the writer's update of ${id}`);
      assert.ok(updated > 5);
      assert.ok(own.size > 0, 'the writer wrote values of its own');
      assert.ok(seen.length > 0);
      await writer.close();
    });

    test('refuses a table without a usable key, naming what it found; nothing changes', {
      skip,
    }, async () => {
      const name = t('nokey');
      bf.made.push(name);
      await bf.db.exec(`DROP TABLE IF EXISTS ${name}`);
      await bf.db.exec(`CREATE TABLE ${name} (code ${bf.db.text} NOT NULL, n ${bf.db.bigint})`);
      await assert.rejects(
        runBackfill(bf.target, { table: name, column: 'public_id', values: uuidv4Values() }),
        (e: unknown) =>
          e instanceof BackfillNoKeyError &&
          e.found === 'does not exist' &&
          /has no usable key.*"id" does not exist.*primary key/.test(e.message),
      );
      await assert.rejects(
        runBackfill(bf.target, {
          table: name,
          column: 'public_id',
          keyColumn: 'n',
          values: uuidv4Values(),
        }),
        (e: unknown) =>
          e instanceof BackfillNoKeyError && /without a unique index or primary key/.test(e.found),
      );
      const cols = await bf.db.rows(`SELECT * FROM ${name}`);
      assert.deepEqual(cols, []);
      await assert.rejects(bf.db.columnType(name, 'public_id'));
      await assert.rejects(
        runBackfill(bf.target, { table: t('absent'), column: 'public_id', values: uuidv4Values() }),
        (e: unknown) => e instanceof BackfillTableError && e.reason === 'missing-table',
      );
    });

    test('refuses a UUID column of CHAR(36)', { skip }, async () => {
      const name = await table('char36', 10);
      await bf.db.exec(`ALTER TABLE ${name} ADD COLUMN public_id CHAR(36)`);
      await assert.rejects(
        runBackfill(bf.target, { table: name, column: 'public_id', values: uuidv7Values() }),
        (e: unknown) =>
          e instanceof BackfillTableError && e.reason === 'column-type' && /char/i.test(e.found),
      );
    });

    test('stopped between batches, resumed by a rerun: written values unchanged; rerun on complete', {
      skip,
    }, async () => {
      const name = await table('resume');
      const controller = new AbortController();
      await assert.rejects(
        runBackfill(bf.target, {
          table: name,
          column: 'public_id',
          values: uuidv7Values(),
          batch: BATCH,
          signal: controller.signal,
          onProgress: (p) => {
            if (p.filled >= 5 * BATCH) controller.abort(new Error('stop'));
          },
        }),
        /stop/,
      );
      const before = await bf.db.values(name, 'public_id');
      const written = [...before].filter(([, v]) => v !== null);
      assert.equal(written.length, 5 * BATCH);
      const report = await runBackfill(bf.target, {
        table: name,
        column: 'public_id',
        values: uuidv7Values(),
        batch: BATCH,
      });
      assert.equal(report.columnAdded, false);
      assert.equal(report.alreadyFilled, 5 * BATCH);
      assert.equal(report.filled, ROWS - 5 * BATCH);
      const values = await bf.db.values(name, 'public_id');
      assertFilledOnce(values);
      for (const [id, v] of written) assert.equal(values.get(id), v, `row ${id} kept its value`);
      const again = await runBackfill(bf.target, {
        table: name,
        column: 'public_id',
        values: uuidv7Values(),
      });
      assert.deepEqual(
        [again.passes, again.filled, again.indexAdded, again.columnAdded, again.complete],
        [0, 0, false, false, true],
      );
      assert.deepEqual(await bf.db.values(name, 'public_id'), values);
    });
  });
}

/** The application writes its own value (hex of 16 bytes) into the new column. */
async function setOwn(db: TestDb, table: string, id: number, hex: string): Promise<void> {
  const literal =
    db.engine === 'postgres' ? `'${hex}'::uuid` : db.engine === 'mysql' ? `X'${hex}'` : `X'${hex}'`;
  await db.exec(`UPDATE ${table} SET public_id = ${literal} WHERE id = ${id}`);
}
