/**
 * What `idforge backfill` (backfill.ts) needs from a database: one implementation per engine
 * with a backfill trait in core/engines.ts, in @idforge/stores' `<engine>/backfill-target.ts`,
 * the only place drivers are imported. The port
 * describes and changes one table; every decision (is the key usable, does the column fit,
 * which rows next, when is it done) is the orchestration's, so the rules are written once.
 *
 * Names reach a target already checked (letters, digits, `_`, `$`; a table may be
 * `schema.name`); the target quotes them in its own way.
 */
import type { EngineWith } from '../core/internal.js';

/** A row's key as the backfill carries it: an integer key, or the 16 bytes of a uuid/binary key. */
export type BackfillKey = bigint | Uint8Array;

/** A value written into the column: 16 bytes (`uuid`, `BINARY(16)`, BLOB) or text. */
export type BackfillValue = Uint8Array | string;

/** The type of the column to add or to accept. */
export type BackfillColumnSpec =
  /** 16 bytes in the engine's native form: `uuid`, `BINARY(16)`, BLOB. Never CHAR(36). */
  | { readonly kind: 'bytes16' }
  /** Case-sensitive ASCII text of `length` characters (a public ID of fixed length). */
  | { readonly kind: 'text'; readonly length: number };

/**
 * One column as the engine describes it. `kind` is the engine's judgement of what it can hold:
 * `integer` (any integer type), `bytes16` (`uuid`, `BINARY(16)`, a BLOB column on SQLite),
 * `text` (case-sensitive text; `length` its limit, null for none), `time` (a point in time:
 * `timestamptz`, `timestamp`, `date`; `DATETIME`, `TIMESTAMP`, `DATE`; on SQLite a declared
 * type naming DATE or TIME), `other` (anything else, including case-insensitive text on MySQL).
 */
export interface BackfillColumn {
  readonly name: string;
  /** The type in the engine's words, for messages ("bigint", "char(36)", "varchar(40) utf8mb4_general_ci"). */
  readonly type: string;
  readonly kind: 'integer' | 'bytes16' | 'text' | 'time' | 'other';
  /** Text limit in characters; null when unbounded or not text. */
  readonly length: number | null;
  readonly nullable: boolean;
  /** A valid unique index (or primary key) on exactly this one column exists. */
  readonly unique: boolean;
}

/** A table as the engine describes it. */
export interface BackfillTableInfo {
  /** Every column, in table order. */
  readonly columns: readonly BackfillColumn[];
}

/** What one read of {@link BackfillTarget.nextKeys} found. */
export interface BackfillScan {
  /** Keys of the rows read whose column is NULL, in key order. */
  readonly keys: BackfillKey[];
  /** The last key read; null when there was no row after the one asked for. */
  readonly last: BackfillKey | null;
  /**
   * With `nextKeys`' `at`: the time of each of `keys`' rows in unix ms (a sub-millisecond
   * fraction kept), null where the row has none (NULL, or on SQLite not date-time text).
   */
  readonly at?: readonly (number | null)[];
}

/** One open database for the backfill. Not for concurrent use by two backfills at once. */
export interface BackfillTarget {
  /** Its name in core/engines.ts (an engine with the backfill trait). */
  readonly engine: EngineWith<'backfill'>;
  /** The database with its password redacted, for reports and errors. */
  readonly address: string;
  /** The table's columns, or null when there is no such table. */
  describe(table: string): Promise<BackfillTableInfo | null>;
  /** The column type `spec` becomes here ("uuid", "BINARY(16)", "varchar(26) COLLATE \"C\""). */
  columnType(spec: BackfillColumnSpec): string;
  /**
   * Adds the nullable column without rewriting the table (a catalog change: PostgreSQL adds a
   * nullable column without a default in place; MariaDB/MySQL instantly or in place, never by
   * copy; SQLite edits the schema) and without waiting long for the table's lock.
   */
  addColumn(table: string, column: string, spec: BackfillColumnSpec): Promise<void>;
  /** Rows of the table and rows whose column is not NULL (one scan). */
  counts(table: string, column: string): Promise<{ rows: number; filled: number }>;
  /**
   * Reads the next `limit` rows in key order after `after` (from the first row when null), with
   * no other condition, so every engine walks the key's index and a query never reads more than
   * `limit` rows whatever the planner believes of the column (a filter on `column IS NULL`
   * made PostgreSQL, without statistics on the new column, sort the whole table per batch).
   * Resolves the keys of those rows whose column IS NULL, in key order, and the last key read
   * (null when no row follows `after`); with `at`, also the time of each of those rows
   * ({@link BackfillScan.at}). A read: takes no lock that stops writers.
   */
  nextKeys(
    table: string,
    keyColumn: BackfillColumn,
    column: string,
    after: BackfillKey | null,
    limit: number,
    at?: BackfillColumn,
  ): Promise<BackfillScan>;
  /**
   * Rows that would need a value and have no time in `at` (NULL, or on SQLite a value that is
   * not date-time text): those whose `column` IS NULL, or every row when `column` is null (not
   * added yet). A read.
   */
  untimed(table: string, at: BackfillColumn, column: string | null): Promise<number>;
  /**
   * Writes `values[i]` into the row of `keys[i]` only where the column IS NULL still (a value
   * written meanwhile, by the application or another backfill, is never overwritten), in one
   * transaction committed before it returns. Resolves the number of rows written.
   */
  fill(
    table: string,
    keyColumn: BackfillColumn,
    column: string,
    keys: readonly BackfillKey[],
    values: readonly BackfillValue[],
  ): Promise<number>;
  /**
   * Builds the unique index `index` on the column without blocking writes (PostgreSQL
   * CONCURRENTLY, replacing an invalid one left by an interrupted build; InnoDB in place with
   * LOCK=NONE; SQLite IF NOT EXISTS). Rejects with `BackfillTableError` ('duplicates') when
   * values repeat, leaving no index behind.
   */
  addUniqueIndex(table: string, column: string, index: string): Promise<void>;
  /** Ends the connection. Idempotent. */
  close(): Promise<void>;
}
