/**
 * SQLite for `idforge backfill`, on the file of a sqlite: URL (WAL mode, as the stores open it:
 * readers never wait for the backfill, and a writer waits at most one batch's transaction).
 * Types by SQLite's affinity rules: a declared type containing INT is an integer, BLOB a
 * 16-byte column (SQLite does not hold lengths: the backfill writes 16 bytes), CHAR/CLOB/TEXT
 * text (no length limit). An `INTEGER PRIMARY KEY` is the rowid: unique and never NULL.
 * The column is added as `BLOB` (UUIDs) or `TEXT` (public IDs); the unique index with
 * `CREATE UNIQUE INDEX IF NOT EXISTS` (SQLite has no online index build; it takes the write
 * lock for the time of one sorted pass over the column).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import type {
  BackfillColumn,
  BackfillColumnSpec,
  BackfillKey,
  BackfillScan,
  BackfillTableInfo,
  BackfillTarget,
  BackfillValue,
} from 'idforge/public';
import { BackfillTableError } from 'idforge/public';
import { quoteTable, scanOf } from '../backfill-sql.js';
import type { SqliteDatabase } from '../driver-types.js';
import { redactOwnUrl } from '../redact.js';
import { storeError } from '../store-error.js';
import { connectSqlite } from './connect.js';
import { sqliteRules, sqliteSite } from './rules.js';
import { runSqliteSync } from './run.js';
import { sqliteTextMsSql } from './time-text.js';

const q = (name: string) => `"${name}"`;
/** `schema.table` quoted part by part. */
const qt = quoteTable(q);
/** The schema prefix of a table name ("main." when none), for PRAGMAs and index names. */
const schemaOf = (table: string) => (table.includes('.') ? `${q(table.split('.')[0]!)}.` : '');
const bareOf = (table: string) => table.slice(table.indexOf('.') + 1);

function kindOf(type: string): BackfillColumn['kind'] {
  const t = type.toUpperCase();
  if (t.includes('INT')) return 'integer';
  if (t.includes('DATE') || t.includes('TIME')) return 'time';
  if (t.includes('BLOB')) return 'bytes16';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'text';
  return 'other';
}

/**
 * Unix ms of a time column: date-time text as SQLite's date functions read it (no offset is
 * UTC), the digits below the ms floored into the ms and kept as its fraction, as PostgreSQL's
 * and MariaDB's microseconds are (time-text.ts, the reading the SQL functions share); NULL for
 * anything else. A number is not read: its unit (seconds, ms, a Julian day) is unknowable.
 */
const msOf = (at: BackfillColumn) => sqliteTextMsSql(q(at.name));

const bind = (v: BackfillKey | BackfillValue) =>
  v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v;

export class SqliteBackfillTarget implements BackfillTarget {
  readonly engine = 'sqlite';
  readonly address: string;
  readonly #db: Database.Database;
  readonly #owned: boolean;
  #closed = false;

  /** Over the caller's better-sqlite3 database (never closed here unless `owned`). */
  constructor(options: { database: SqliteDatabase; address?: string; owned?: boolean }) {
    this.#db = options.database as Database.Database; // its own type inside (driver-types.ts)
    this.address = options.address ?? `sqlite:${options.database.name}`;
    this.#owned = options.owned === true;
  }

  async describe(table: string): Promise<BackfillTableInfo | null> {
    return runSqliteSync(this.address, 'describe', () => {
      const s = schemaOf(table);
      const t = bareOf(table);
      const cols = this.#db.prepare(`PRAGMA ${s}table_info(${q(t)})`).all() as {
        name: string;
        type: string;
        notnull: number;
        pk: number;
      }[];
      if (cols.length === 0) return null;
      const unique = new Set<string>();
      const pks = cols.filter((c) => c.pk > 0);
      if (pks.length === 1) unique.add(pks[0]!.name);
      const indexes = this.#db.prepare(`PRAGMA ${s}index_list(${q(t)})`).all() as {
        name: string;
        unique: number;
        partial: number;
      }[];
      for (const ix of indexes) {
        if (ix.unique !== 1 || ix.partial !== 0) continue;
        const parts = this.#db.prepare(`PRAGMA ${s}index_info(${q(ix.name)})`).all() as {
          name: string | null;
        }[];
        if (parts.length === 1 && parts[0]!.name !== null) unique.add(parts[0]!.name);
      }
      const rowid = (c: { type: string; pk: number }) =>
        pks.length === 1 && c.pk === 1 && c.type.toUpperCase() === 'INTEGER';
      return {
        columns: cols.map((c) => ({
          name: c.name,
          type: c.type === '' ? '(no type)' : c.type,
          kind: kindOf(c.type),
          length: null,
          nullable: c.notnull === 0 && !rowid(c),
          unique: unique.has(c.name),
        })),
      };
    });
  }

  columnType(spec: BackfillColumnSpec): string {
    return spec.kind === 'bytes16' ? 'BLOB' : 'TEXT';
  }

  async addColumn(table: string, column: string, spec: BackfillColumnSpec): Promise<void> {
    runSqliteSync(this.address, 'add column', () =>
      this.#db.exec(`ALTER TABLE ${qt(table)} ADD COLUMN ${q(column)} ${this.columnType(spec)}`),
    );
  }

  async counts(table: string, column: string): Promise<{ rows: number; filled: number }> {
    return runSqliteSync(this.address, 'count', () => {
      const r = this.#db
        .prepare(`SELECT count(*) AS r, count(${q(column)}) AS f FROM ${qt(table)}`)
        .get() as { r: number; f: number };
      return { rows: r.r, filled: r.f };
    });
  }

  async nextKeys(
    table: string,
    key: BackfillColumn,
    column: string,
    after: BackfillKey | null,
    limit: number,
    at?: BackfillColumn,
  ): Promise<BackfillScan> {
    return runSqliteSync(this.address, 'select', () => {
      const k = q(key.name);
      const s = this.#db
        .prepare(
          `SELECT ${k} AS k, ${q(column)} IS NULL AS e, ${at === undefined ? 'NULL' : msOf(at)} AS t ` +
            `FROM ${qt(table)}${after === null ? '' : ` WHERE ${k} > ?`} ORDER BY ${k} LIMIT ?`,
        )
        .safeIntegers(true);
      const rows = s.all(...(after === null ? [limit] : [bind(after), limit])) as {
        k: bigint | Buffer;
        e: bigint;
        t: number | bigint | null;
      }[];
      return scanOf(
        rows,
        (r) => r.e === 1n,
        (r) => (typeof r.k === 'bigint' ? r.k : new Uint8Array(r.k)),
        at === undefined ? undefined : (r) => (r.t === null ? null : Number(r.t)),
      );
    });
  }

  async untimed(table: string, at: BackfillColumn, column: string | null): Promise<number> {
    return runSqliteSync(this.address, 'count', () => {
      const r = this.#db
        .prepare(
          `SELECT count(*) AS n FROM ${qt(table)} WHERE (${msOf(at)}) IS NULL` +
            (column === null ? '' : ` AND ${q(column)} IS NULL`),
        )
        .get() as { n: number };
      return r.n;
    });
  }

  async fill(
    table: string,
    key: BackfillColumn,
    column: string,
    keys: readonly BackfillKey[],
    values: readonly BackfillValue[],
  ): Promise<number> {
    const written = runSqliteSync(this.address, 'update', () => {
      const s = this.#db.prepare(
        `UPDATE ${qt(table)} SET ${q(column)} = ? WHERE ${q(key.name)} = ? AND ${q(column)} IS NULL`,
      );
      return this.#db.transaction(() => {
        let n = 0;
        for (let i = 0; i < keys.length; i++) n += s.run(bind(values[i]!), bind(keys[i]!)).changes;
        return n;
      })();
    });
    // better-sqlite3 is synchronous: let the event loop run between batches (a signal, the
    // application's own work in this process) as it would between a server's round trips.
    await nextTurn();
    return written;
  }

  async addUniqueIndex(table: string, column: string, index: string): Promise<void> {
    try {
      this.#db.exec(
        `CREATE UNIQUE INDEX IF NOT EXISTS ${schemaOf(table)}${q(index)} ON ${q(bareOf(table))} (${q(column)})`,
      );
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new BackfillTableError(
          'sqlite',
          this.address,
          table,
          column,
          'duplicates',
          (error as Error).message,
          { cause: error },
        );
      }
      throw storeError(sqliteSite(this.address), 'create index', error);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#owned) this.#db.close();
  }
}

/**
 * Opens the backfill on the file of a sqlite: URL, which must exist. Throws `StorePathError`
 * when the path cannot be used (missing: a typo must not create an empty database).
 */
export async function openSqliteBackfillTarget(url: string): Promise<SqliteBackfillTarget> {
  const address = redactOwnUrl(url, sqliteRules);
  const database = await connectSqlite(url, address, 5000, { create: false });
  return new SqliteBackfillTarget({ database, address, owned: true });
}
