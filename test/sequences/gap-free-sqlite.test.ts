// The gap-free processes test (gap-free-processes.ts) on a SQLite file (WAL, BEGIN IMMEDIATE
// under a busy timeout) in a temporary directory, removed after.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteGapFreeStore } from '../../packages/stores/src/index.js';
import { tempDir } from '../helpers/temp.js';
import { gapFreeSuite } from './gap-free-processes.js';

gapFreeSuite('sqlite', {
  skip: false,
  engine: () => {
    const { dir, remove: removeDir } = tempDir('idforge-gapfree-');
    const file = join(dir, 'invoices.db');
    const db = new Database(file, { timeout: 20_000 });
    db.pragma('journal_mode = WAL');
    const namespace = 'shop';
    const store = new SqliteGapFreeStore({ database: db, namespace });
    return {
      engine: 'sqlite',
      target: file,
      namespace,
      store: () => store,
      async setup() {
        await store.migrate();
        db.exec(
          `CREATE TABLE ${namespace}_invoices (period TEXT, value INTEGER, text TEXT, worker INTEGER)`,
        );
      },
      async invoices() {
        const rows = db
          .prepare(`SELECT period, value, text FROM ${namespace}_invoices`)
          .safeIntegers(true)
          .all() as { period: string; value: bigint; text: string }[];
        return rows;
      },
      async teardown() {
        db.close();
        removeDir();
      },
    };
  },
});
