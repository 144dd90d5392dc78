/**
 * {@link GapFreeStore} on SQLite: gap-free business numbers taken inside the caller's own
 * transaction (idforge/sequences' gap-free.ts), for the processes of one host sharing a file.
 *
 *   <namespace>_gap_free(tag TEXT, period TEXT, last INTEGER, PRIMARY KEY (tag, period))
 *
 * `increment(db, tag, period)`, on the caller's better-sqlite3 database inside its
 * transaction: `INSERT OR IGNORE ... VALUES (?, ?, 0)` then `UPDATE ... SET last = last + 1
 * ... RETURNING last`. SQLite has one writer at a time: begin with `BEGIN IMMEDIATE`, which
 * takes the write lock first and waits for it up to the database's busy timeout (the caller's
 * `timeout` option), so the two statements never wait. Under a deferred `BEGIN`, the INSERT
 * takes the lock and may find it held: SQLITE_BUSY is then `GapFreeTimeoutError`. A database
 * outside any transaction is refused (`TypeError`): the number would commit on its own. The
 * UPDATE moves only a row below 2^63 - 1 (`last + 1` past it would become a REAL, the same
 * number on every call): a row at the bound is `GapFreeExhaustedError`.
 */
import type Database from 'better-sqlite3';
import type { GapFreeStore } from 'idforge/sequences';
import { GapFreeExhaustedError, GapFreeTimeoutError } from 'idforge/sequences';
import type { SqliteDatabase } from '../driver-types.js';
import { checkGapFreeKey, GAP_FREE_MAX, outsideTransaction } from '../gap-free-args.js';
import { assertTablePrefix, DEFAULT_SEGMENT_NAMESPACE } from '../segment-args.js';
import { storeError } from '../store-error.js';
import { sqliteSite } from './rules.js';

/** Options of {@link SqliteGapFreeStore}. */
export interface SqliteGapFreeOptions {
  /** The caller's database: `migrate()` and `last()` run on it. */
  readonly database: SqliteDatabase;
  /** The table prefix: `<namespace>_gap_free`. Default `idforge`. */
  readonly namespace?: string;
  readonly address?: string;
}

const BUSY = /^SQLITE_(BUSY|LOCKED)/;

interface Prepared {
  readonly create: Database.Statement;
  readonly bump: Database.Statement;
}

export class SqliteGapFreeStore implements GapFreeStore<SqliteDatabase> {
  readonly backend = 'sqlite';
  readonly address: string;
  readonly namespace: string;
  readonly #db: Database.Database;
  readonly #table: string;
  /** The statements prepared on each database `increment` is given (the caller's, usually one). */
  readonly #prepared = new WeakMap<Database.Database, Prepared>();

  /** Throws `RangeError` for a bad namespace; `close()` leaves the database open. */
  constructor(options: SqliteGapFreeOptions) {
    this.namespace = assertTablePrefix(options.namespace ?? DEFAULT_SEGMENT_NAMESPACE);
    this.#table = `"${this.namespace}_gap_free"`;
    this.#db = options.database as Database.Database;
    this.address = options.address ?? `sqlite:${options.database.name}`;
  }

  #statements(db: Database.Database): Prepared {
    let st = this.#prepared.get(db);
    if (st === undefined) {
      const t = this.#table;
      st = {
        create: db.prepare(`INSERT OR IGNORE INTO ${t} (tag, period, last) VALUES (?, ?, 0)`),
        bump: db
          .prepare(
            `UPDATE ${t} SET last = last + 1 WHERE tag = ? AND period = ? AND last < ${GAP_FREE_MAX} RETURNING last`,
          )
          .safeIntegers(true),
      };
      this.#prepared.set(db, st);
    }
    return st;
  }

  async migrate(): Promise<void> {
    try {
      this.#db.exec(`CREATE TABLE IF NOT EXISTS ${this.#table} (
  tag TEXT NOT NULL, period TEXT NOT NULL, last INTEGER NOT NULL CHECK (last >= 0),
  PRIMARY KEY (tag, period)) WITHOUT ROWID`);
    } catch (error) {
      throw storeError(sqliteSite(this.address), 'gap-free migrate', error);
    }
  }

  /** See {@link GapFreeStore.increment}; `tx` is the caller's database inside its transaction. */
  async increment(tx: SqliteDatabase, tag: string, period: string): Promise<bigint> {
    checkGapFreeKey(tag, period);
    const db = tx as Database.Database;
    if (db?.inTransaction !== true) {
      throw outsideTransaction('a better-sqlite3 database', 'BEGIN IMMEDIATE');
    }
    let row: { last: bigint } | undefined;
    try {
      const st = this.#statements(db);
      st.create.run(tag, period);
      row = st.bump.get(tag, period) as { last: bigint } | undefined;
    } catch (error) {
      if (BUSY.test(String((error as { code?: unknown })?.code))) {
        throw new GapFreeTimeoutError(tag, period, this.backend, 0, error);
      }
      throw storeError(sqliteSite(this.address), 'gap-free increment', error);
    }
    // The row exists (created above if it was missing): only one at the bound moves not.
    if (row === undefined) throw new GapFreeExhaustedError(tag, period, this.backend);
    return row.last;
  }

  async last(tag: string, period: string): Promise<bigint> {
    checkGapFreeKey(tag, period);
    try {
      const row = this.#db
        .prepare(`SELECT last FROM ${this.#table} WHERE tag = ? AND period = ?`)
        .safeIntegers(true)
        .get(tag, period) as { last: bigint } | undefined;
      return row?.last ?? 0n;
    } catch (error) {
      throw storeError(sqliteSite(this.address), 'gap-free last', error);
    }
  }

  /** Nothing to close: the database is the caller's. */
  async close(): Promise<void> {}
}
