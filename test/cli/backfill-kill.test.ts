// `idforge backfill` killed for real: on each engine a backfill process (the bin) gets SIGKILL
// after its first progress line, and the same command run again fills every row exactly once,
// leaving the values written before the kill unchanged; run once more it finds the table
// complete and changes nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import {
  assertFilledOnce,
  type Engine,
  engineSkip,
  openTestDb,
  seedTable,
  type TestDb,
} from '../helpers/backfill-db.js';
import { BINS, loader } from '../helpers/bins.js';
import { backfillArgs, cli } from '../helpers/cli.js';
import { suiteTempDir } from '../helpers/temp.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = suiteTempDir('idforge-cli-backfill-kill-');

const ROWS = 5000;

/** Runs the bin until its first progress line, then SIGKILLs it; `onLine` runs first. */
function killAfterFirstProgress(argv: string[], onLine: () => void): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', loader, BINS['idforge-server'], ...argv], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
      if (!killed && /^[\d,]+\/[\d,]+ rows/m.test(stderr)) {
        killed = true;
        onLine();
        child.kill('SIGKILL');
      }
    });
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') done(stderr);
      else fail(new Error(`the backfill ended by itself (${code}) before the kill:\n${stderr}`));
    });
  });
}

for (const engine of ['sqlite', 'postgres', 'mysql'] as const) {
  describe(`backfill CLI on ${engine}`, async () => {
    const skip = await engineSkip(engine);
    let db: TestDb;
    const table = `idf_bfc_kill_${process.pid}`;
    before(async () => {
      if (!skip) db = await openTestDb(engine, join(dir, 'kill.db'));
    });
    after(async () => {
      if (skip) return;
      await db.exec(`DROP TABLE IF EXISTS ${table}`);
      await db.close();
    });

    test('killed after its first progress line, rerun: every row filled exactly once', {
      skip,
    }, async () => {
      await seedTable(db, table, ROWS);
      // The process must not finish before the kill: the test's own connection holds the last
      // row (a row lock on the servers), or takes SQLite's write lock at the first line.
      const hold = await holdLastRow(engine, table);
      // SQLite is stopped by the test taking its write lock between two batches after the
      // first progress line (at a tenth, 500 rows): in rows of one, 4,500 batches remain
      // then, not the 22 of 200 rows that a process slowed by a busy machine could finish
      // before the test had read the line.
      const batch = engine === 'sqlite' ? 1 : 200;
      const stderr = await killAfterFirstProgress(backfillArgs(db.url, table, batch), hold.onLine);
      await hold.release();
      assert.match(stderr, /^[\d,]+\/5,000 rows, [\d,]+ rows\/s, ETA \d+ s$/m);
      const snapshot = new Map(
        [...(await db.values(table, 'public_id'))].filter(([, v]) => v !== null),
      );
      assert.ok(
        snapshot.size > 0 && snapshot.size < ROWS,
        `${snapshot.size} rows filled before the kill`,
      );

      const r = await cli([...backfillArgs(db.url, table, batch), '--json']);
      assert.equal(r.code, 0, r.stderr);
      const report = JSON.parse(r.stdout);
      assert.equal(report.alreadyFilled, snapshot.size);
      assert.equal(report.filled, ROWS - snapshot.size, 'the rerun filled only the rows left');
      assert.equal(report.complete, true);
      const values = await db.values(table, 'public_id');
      assertFilledOnce(values);
      for (const [id, v] of snapshot) assert.equal(values.get(id), v, `row ${id} kept its value`);

      const again = await cli(backfillArgs(db.url, table, batch));
      assert.equal(again.code, 0, again.stderr);
      assert.match(
        again.stdout,
        new RegExp(
          `^${table}\\.public_id is complete: all 5,000 rows have a value and the unique index exists; nothing to do\\.$`,
          'm',
        ),
      );
      assert.deepEqual(await db.values(table, 'public_id'), values);
    });
  });
}

/**
 * Keeps the backfill from finishing until released. PostgreSQL and MariaDB: a transaction of
 * the test's own holds the last row from the start (the column is added first, since the
 * ALTER would rightly give up waiting behind that transaction). SQLite: at the first progress
 * line the test takes the write lock between two of the backfill's batches, so its next batch
 * waits.
 */
async function holdLastRow(engine: Engine, table: string) {
  if (engine === 'sqlite') {
    const lock = new Database(join(dir, 'kill.db'), { timeout: 0 });
    return {
      onLine: () => {
        for (const until = Date.now() + 5000; Date.now() < until; ) {
          try {
            lock.exec('BEGIN IMMEDIATE');
            return;
          } catch {
            // The backfill holds the lock inside a batch; try again right away.
          }
        }
        throw new Error('the write lock was never free');
      },
      release: async () => {
        if (lock.inTransaction) lock.exec('ROLLBACK');
        lock.close();
      },
    };
  }
  const holder = await openTestDb(engine, '');
  await holder.exec(
    `ALTER TABLE ${table} ADD COLUMN public_id ${engine === 'postgres' ? 'uuid' : 'BINARY(16)'}`,
  );
  await holder.exec('BEGIN');
  await holder.exec(`SELECT id FROM ${table} WHERE id = ${2 * ROWS - 1} FOR UPDATE`);
  return {
    onLine: () => {},
    release: async () => {
      // The killed process's batch still waits on the server for the held row: end that
      // session first, as a DBA would, or it would commit once the row is released (harmless,
      // since it writes only NULLs, but after the test's snapshot).
      const like = `%UPDATE%${table}%`;
      if (engine === 'postgres') {
        await holder.exec(
          `SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity
            WHERE query LIKE $1 AND pid <> pg_backend_pid()`,
          [like],
        );
      } else {
        const ids = await holder.rows<{ id: number }>(
          `SELECT ID AS id FROM information_schema.PROCESSLIST
            WHERE INFO LIKE ? AND ID <> CONNECTION_ID()`,
          [like],
        );
        for (const { id } of ids) await holder.exec(`KILL ${Number(id)}`);
      }
      await holder.exec('ROLLBACK');
      await holder.close();
    },
  };
}
