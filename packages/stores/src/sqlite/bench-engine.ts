/**
 * SQLite for `idforge bench db`, on the file of a sqlite: URL (WAL mode, synchronous FULL, as
 * the idforge stores open it). The bench's tables are named idforge_bench_*; every other table
 * of the file is someone else's. Keys: `INTEGER PRIMARY KEY` for integers (the rowid: the
 * table's own B-tree is the key order, there is no separate index), `BLOB PRIMARY KEY` (16
 * bytes) and `TEXT PRIMARY KEY`, which SQLite keeps in a separate index beside the rowid table.
 * Sizes and leaf fill come from the dbstat virtual table. SQLite keeps no cumulative WAL or
 * page-split counters, so those figures are null.
 */
import type Database from 'better-sqlite3';
import type {
  BenchBatch,
  BenchEngine,
  BenchSequence,
  EngineCounters,
  EngineSettings,
  KeyKind,
  TableMeasures,
} from 'idforge/bench';
import { BENCH_PREFIX, segmentBenchSequence } from '../bench-sql.js';
import type { SqliteDatabase } from '../driver-types.js';
import { redactOwnUrl } from '../redact.js';
import { connectSqlite } from './connect.js';
import { sqliteRules } from './rules.js';
import { runSqliteSync } from './run.js';
import { SqliteSegmentStore } from './segment-store.js';

const COLUMN: Readonly<Record<KeyKind, string>> = {
  identity: 'INTEGER PRIMARY KEY',
  int64: 'INTEGER PRIMARY KEY',
  bytes16: 'BLOB PRIMARY KEY',
  text36: 'TEXT PRIMARY KEY',
};

/** Rows per statement: 4 bound values each, under SQLite's 32 766 variables. */
const ROWS_PER_STATEMENT = 8000;

export class SqliteBenchEngine implements BenchEngine {
  readonly engine = 'sqlite';
  readonly address: string;
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();
  /** The segment table of the `sequence` scheme, `idforge_bench_segments` (built here, no I/O). */
  readonly #segments: SqliteSegmentStore;

  constructor(db: SqliteDatabase, address: string) {
    this.#db = db as Database.Database; // its own type inside (driver-types.ts)
    this.address = address;
    this.#segments = new SqliteSegmentStore({ database: db, namespace: BENCH_PREFIX, address });
  }

  storage(kind: KeyKind): string {
    return kind === 'identity' ? 'INTEGER PRIMARY KEY (rowid)' : COLUMN[kind];
  }

  async settings(): Promise<EngineSettings> {
    return runSqliteSync(this.address, 'settings', () => {
      const pragma = (name: string) => String(this.#db.pragma(name, { simple: true }));
      const values: Record<string, string> = {};
      for (const name of ['page_size', 'cache_size', 'journal_mode', 'synchronous']) {
        values[name] = pragma(name);
      }
      const version = this.#db.prepare('SELECT sqlite_version() AS v').get() as { v: string };
      const cache = Number(values.cache_size);
      const cacheBytes = cache < 0 ? -cache * 1024 : cache * Number(values.page_size);
      return { server: `SQLite ${version.v}`, values, cacheBytes, cacheName: 'the page cache' };
    });
  }

  async foreignObjects(): Promise<string[]> {
    return runSqliteSync(this.address, 'inspect', () =>
      (
        this.#db
          .prepare(
            `SELECT name FROM sqlite_schema WHERE type = 'table'
               AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
               AND name NOT LIKE 'idforge\\_bench\\_%' ESCAPE '\\' ORDER BY 1`,
          )
          .all() as { name: string }[]
      ).map((r) => r.name),
    );
  }

  async createTable(table: string, kind: KeyKind): Promise<void> {
    runSqliteSync(this.address, 'create', () => {
      for (const key of [...this.#statements.keys()]) {
        if (key.startsWith(`${table}:`)) this.#statements.delete(key);
      }
      this.#db.exec(
        `DROP TABLE IF EXISTS ${table};
         CREATE TABLE ${table} (id ${COLUMN[kind]}, created_at INTEGER NOT NULL,
                                n INTEGER NOT NULL, payload TEXT NOT NULL);
         CREATE INDEX ${table}_created_at ON ${table} (created_at);`,
      );
    });
  }

  #statement(table: string, withKey: boolean, rows: number): Database.Statement {
    const name = `${table}:${withKey}:${rows}`;
    let s = this.#statements.get(name);
    if (s === undefined) {
      const tuple = withKey ? '(?,?,?,?)' : '(?,?,?)';
      const columns = withKey ? 'id, created_at, n, payload' : 'created_at, n, payload';
      s = this.#db.prepare(
        `INSERT INTO ${table} (${columns}) VALUES ${new Array(rows).fill(tuple).join(',')}`,
      );
      this.#statements.set(name, s);
    }
    return s;
  }

  async insert(table: string, _kind: KeyKind, batch: BenchBatch): Promise<void> {
    const keys = batch.keys;
    runSqliteSync(this.address, 'insert', () => {
      this.#db.transaction(() => {
        for (let from = 0; from < batch.at.length; from += ROWS_PER_STATEMENT) {
          const to = Math.min(batch.at.length, from + ROWS_PER_STATEMENT);
          const values: unknown[] = [];
          for (let i = from; i < to; i++) {
            if (keys !== null) values.push(keys[i]);
            values.push(batch.at[i], batch.n[i], batch.payload[i]);
          }
          this.#statement(table, keys !== null, to - from).run(values);
        }
      })();
    });
  }

  async settle(): Promise<void> {}

  async counters(): Promise<EngineCounters> {
    return {};
  }

  async measure(table: string, kind: KeyKind): Promise<TableMeasures> {
    return runSqliteSync(this.address, 'measure', () => {
      const rows = this.#db
        .prepare(
          `SELECT name, SUM(pgsize) AS bytes,
                  SUM(CASE WHEN pagetype = 'leaf' THEN pgsize - unused END) AS used,
                  SUM(CASE WHEN pagetype = 'leaf' THEN pgsize END) AS leaf,
                  SUM(pagetype = 'leaf') AS leaves
             FROM dbstat WHERE name IN (?, ?, ?) GROUP BY name`,
        )
        .all(table, `sqlite_autoindex_${table}_1`, `${table}_created_at`) as {
        name: string;
        bytes: number;
        used: number;
        leaf: number;
        leaves: number;
      }[];
      const of = (name: string) => rows.find((r) => r.name === name);
      const heap = of(table);
      // Integer keys are the rowid: the table's B-tree is the primary index.
      const pk = kind === 'identity' || kind === 'int64' ? heap : of(`sqlite_autoindex_${table}_1`);
      return {
        tableBytes: heap?.bytes ?? null,
        primaryIndexBytes: pk?.bytes ?? null,
        secondaryIndexBytes: of(`${table}_created_at`)?.bytes ?? null,
        primaryLeafDensity: pk && pk.leaf > 0 ? pk.used / pk.leaf : null,
        primaryLeafFragmentation: null,
        primaryLeafPages: pk?.leaves ?? null,
      };
    });
  }

  async dropTable(table: string): Promise<void> {
    runSqliteSync(this.address, 'drop', () => this.#db.exec(`DROP TABLE IF EXISTS ${table}`));
  }

  async openSequence(tag: string): Promise<BenchSequence> {
    return segmentBenchSequence(this.#segments, tag);
  }

  /** Drops the segment table unless a kept table of the bench is left, and closes the file. */
  async close(): Promise<void> {
    try {
      const kept = this.#db
        .prepare(
          `SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'
             AND name LIKE 'idforge\\_bench\\_%' ESCAPE '\\' AND name <> ?`,
        )
        .get(`${BENCH_PREFIX}_segments`) as { n: number };
      if (kept.n === 0) this.#db.exec(`DROP TABLE IF EXISTS ${BENCH_PREFIX}_segments`);
    } finally {
      this.#db.close();
    }
  }
}

/**
 * Opens the bench on the file of a sqlite: URL (created if missing). Throws `StorePathError`
 * when the path cannot be used.
 */
export async function openSqliteBenchEngine(url: string): Promise<SqliteBenchEngine> {
  const address = redactOwnUrl(url, sqliteRules);
  return new SqliteBenchEngine(await connectSqlite(url, address, 5000), address);
}
