/**
 * MariaDB and MySQL (InnoDB) for `idforge backfill`. The column is added as `BINARY(16)`
 * (UUIDs) or `VARCHAR(N) CHARACTER SET ascii COLLATE ascii_bin` (public IDs: a case-insensitive
 * collation would call two distinct public IDs equal and break the unique index), nullable,
 * with `ALGORITHM=INSTANT` (MariaDB 10.3+, MySQL 8.0.12+) or else `ALGORITHM=INPLACE,
 * LOCK=NONE`, never a table copy, and waiting at most {@link LOCK_WAIT_S} s for the metadata
 * lock. Each batch is one `UPDATE ... CASE key WHEN ... END WHERE key IN (...) AND column IS
 * NULL` in its own (autocommit) transaction, retried when it loses a deadlock. The unique index:
 * `ALTER TABLE ... ADD UNIQUE INDEX ..., ALGORITHM=INPLACE, LOCK=NONE` (writes go on).
 */
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
import {
  BACKFILL_STATEMENT_TIMEOUT_MS,
  quoteTable,
  retryDeadlocked,
  scanOf,
} from '../backfill-sql.js';
import { connectMysql, type MysqlPool } from './connect.js';

/** Seconds the ALTERs wait for the table's metadata lock before giving up (rerun later). */
const LOCK_WAIT_S = 10;

const q = (name: string) => `\`${name}\``;
const qt = quoteTable(q);

const INTEGER = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'bigint']);

function columnOf(r: ColumnRow, unique: ReadonlySet<string>): BackfillColumn {
  const d = r.d.toLowerCase();
  let kind: BackfillColumn['kind'] = 'other';
  let type = r.t;
  if (INTEGER.has(d)) kind = 'integer';
  else if (d === 'datetime' || d === 'timestamp' || d === 'date') kind = 'time';
  else if (r.t.toLowerCase() === 'binary(16)') kind = 'bytes16';
  else if (d === 'varbinary' || d === 'binary') kind = 'text';
  else if (d === 'char' || d === 'varchar') {
    if (r.coll !== null && /_(bin|cs)$/i.test(r.coll)) kind = 'text';
    else type = `${r.t} ${r.coll ?? ''} (case-insensitive)`;
  }
  return {
    name: r.n,
    type,
    kind,
    length: kind === 'text' && r.len !== null ? Number(r.len) : null,
    nullable: r.nl === 'YES',
    unique: unique.has(r.n),
  };
}

/**
 * Unix ms of a time column, microseconds kept: a TIMESTAMP's stored UTC instant as is
 * (UNIX_TIMESTAMP reads it without the session's time zone); a DATETIME or DATE, which has no
 * zone, read as UTC (the microseconds since 1970-01-01 00:00:00, with no zone applied).
 */
function msOf(at: BackfillColumn): string {
  const c = q(at.name);
  return at.type.toLowerCase().startsWith('timestamp')
    ? `UNIX_TIMESTAMP(${c}) * 1000`
    : `TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', ${c}) / 1000`;
}

interface ColumnRow {
  n: string;
  t: string;
  d: string;
  len: string | number | null;
  nl: string;
  coll: string | null;
}

const param = (v: BackfillKey | BackfillValue) =>
  typeof v === 'bigint'
    ? v.toString()
    : v instanceof Uint8Array
      ? Buffer.from(v.buffer, v.byteOffset, v.byteLength)
      : v;

export class MysqlBackfillTarget implements BackfillTarget {
  readonly engine = 'mysql';
  readonly address: string;
  readonly #db: MysqlPool;
  readonly #lockWaitS: number;

  /**
   * Over a pool from `connectMysql` (ended by `close` only when it owns it). `lockWaitS`: how
   * long the ALTERs wait for the table's metadata lock (default 10 s).
   */
  constructor(db: MysqlPool, options: { lockWaitS?: number } = {}) {
    this.#db = db;
    this.#lockWaitS = Math.max(1, Math.ceil(options.lockWaitS ?? LOCK_WAIT_S));
    this.address = db.address;
  }

  /** The schema and bare name of `table` (the URL's database when unqualified). */
  #where(table: string): [string, string] | ['', string] {
    const dot = table.indexOf('.');
    return dot < 0 ? ['', table] : [table.slice(0, dot), table.slice(dot + 1)];
  }

  async describe(table: string): Promise<BackfillTableInfo | null> {
    const [schema, name] = this.#where(table);
    const s = schema === '' ? 'DATABASE()' : '?';
    const args = schema === '' ? [name] : [schema, name];
    const cols = await this.#db.rows<ColumnRow>(
      'describe',
      `SELECT COLUMN_NAME AS n, COLUMN_TYPE AS t, DATA_TYPE AS d, CHARACTER_MAXIMUM_LENGTH AS len,
              IS_NULLABLE AS nl, COLLATION_NAME AS coll
         FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ${s} AND TABLE_NAME = ?
        ORDER BY ORDINAL_POSITION`,
      args,
    );
    if (cols.length === 0) return null;
    const uniq = await this.#db.rows<{ c: string }>(
      'describe',
      `SELECT MIN(COLUMN_NAME) AS c FROM information_schema.STATISTICS
        WHERE TABLE_SCHEMA = ${s} AND TABLE_NAME = ? AND NON_UNIQUE = 0
        GROUP BY INDEX_NAME HAVING COUNT(*) = 1 AND MAX(SUB_PART) IS NULL`,
      args,
    );
    const unique = new Set(uniq.map((r) => r.c));
    return { columns: cols.map((r) => columnOf(r, unique)) };
  }

  columnType(spec: BackfillColumnSpec): string {
    return spec.kind === 'bytes16'
      ? 'BINARY(16)'
      : `VARCHAR(${spec.length}) CHARACTER SET ascii COLLATE ascii_bin`;
  }

  /** An ALTER that must not copy the table: INSTANT, else INPLACE with LOCK=NONE. */
  async #alter(op: string, sql: string, algorithms: readonly string[]): Promise<void> {
    await this.#db.withConnection(op, async (query) => {
      await query(`SET SESSION lock_wait_timeout = ${this.#lockWaitS}`);
      for (const [i, algorithm] of algorithms.entries()) {
        try {
          await query(`${sql}, ${algorithm}`);
          return;
        } catch (error) {
          const errno = (error as { errno?: number }).errno;
          // 1845/1846: the algorithm is not supported for this change; try the next one.
          if ((errno === 1845 || errno === 1846) && i < algorithms.length - 1) continue;
          throw error;
        }
      }
    });
  }

  async addColumn(table: string, column: string, spec: BackfillColumnSpec): Promise<void> {
    try {
      await this.#alter(
        'add column',
        `ALTER TABLE ${qt(table)} ADD COLUMN ${q(column)} ${this.columnType(spec)} NULL`,
        ['ALGORITHM=INSTANT', 'ALGORITHM=INPLACE, LOCK=NONE'],
      );
    } catch (error) {
      const cause = (error as { cause?: { errno?: number; message?: string } }).cause;
      if (cause?.errno !== 1205) throw error;
      const found = `${cause.message}, after ${this.#lockWaitS} s`;
      throw new BackfillTableError('mysql', this.address, table, column, 'locked', found, {
        cause,
      });
    }
  }

  async counts(table: string, column: string): Promise<{ rows: number; filled: number }> {
    const [r] = await this.#db.rows<{ r: string | number; f: string | number }>(
      'count',
      `SELECT COUNT(*) AS r, COUNT(${q(column)}) AS f FROM ${qt(table)}`,
    );
    return { rows: Number(r!.r), filled: Number(r!.f) };
  }

  async nextKeys(
    table: string,
    key: BackfillColumn,
    column: string,
    after: BackfillKey | null,
    limit: number,
    at?: BackfillColumn,
  ): Promise<BackfillScan> {
    const k = q(key.name);
    const rows = await this.#db.rows<{
      k: string | number | Buffer;
      e: number | string;
      t: string | number | null;
    }>(
      'select',
      `SELECT ${k} AS k, ${q(column)} IS NULL AS e, ${at === undefined ? 'NULL' : msOf(at)} AS t ` +
        `FROM ${qt(table)}${after === null ? '' : ` WHERE ${k} > ?`} ORDER BY ${k} ` +
        `LIMIT ${Math.trunc(limit)}`,
      after === null ? [] : [param(after)],
    );
    return scanOf(
      rows,
      (r) => Number(r.e) === 1,
      (r) => (typeof r.k === 'object' ? new Uint8Array(r.k) : BigInt(r.k)),
      at === undefined ? undefined : (r) => (r.t === null ? null : Number(r.t)),
    );
  }

  async untimed(table: string, at: BackfillColumn, column: string | null): Promise<number> {
    const [r] = await this.#db.rows<{ n: string | number }>(
      'count',
      `SELECT count(*) AS n FROM ${qt(table)} WHERE ${q(at.name)} IS NULL` +
        (column === null ? '' : ` AND ${q(column)} IS NULL`),
    );
    return Number(r!.n);
  }

  async fill(
    table: string,
    key: BackfillColumn,
    column: string,
    keys: readonly BackfillKey[],
    values: readonly BackfillValue[],
  ): Promise<number> {
    const k = q(key.name);
    const c = q(column);
    const cases = keys.map(() => 'WHEN ? THEN ?').join(' ');
    const args: unknown[] = [];
    for (let i = 0; i < keys.length; i++) args.push(param(keys[i]!), param(values[i]!));
    for (const key of keys) args.push(param(key));
    const sql =
      `UPDATE ${qt(table)} SET ${c} = CASE ${k} ${cases} END ` +
      `WHERE ${k} IN (${keys.map(() => '?').join(',')}) AND ${c} IS NULL`;
    // 1213: the batch lost a deadlock.
    return retryDeadlocked(
      async () => {
        const header = (await this.#db.query('update', sql, args)) as { affectedRows: number };
        return header.affectedRows;
      },
      (error) => (error as { cause?: { errno?: number } }).cause?.errno === 1213,
    );
  }

  async addUniqueIndex(table: string, column: string, index: string): Promise<void> {
    try {
      await this.#alter(
        'create index',
        `ALTER TABLE ${qt(table)} ADD UNIQUE INDEX ${q(index)} (${q(column)})`,
        ['ALGORITHM=INPLACE, LOCK=NONE'],
      );
    } catch (error) {
      const cause = (error as { cause?: { errno?: number; message?: string } }).cause;
      if (cause?.errno !== 1062) throw error;
      throw new BackfillTableError(
        'mysql',
        this.address,
        table,
        column,
        'duplicates',
        String(cause.message),
        { cause },
      );
    }
  }

  close(): Promise<void> {
    return this.#db.end();
  }
}

/**
 * Opens the backfill on the database of a mysql:// URL (MariaDB or MySQL). Rejects with
 * `StoreUnavailableError` when it cannot connect, `StoreAuthError` when the login is refused.
 */
export async function openMysqlBackfillTarget(url: string): Promise<MysqlBackfillTarget> {
  return new MysqlBackfillTarget(
    await connectMysql(url, { queryTimeoutMs: BACKFILL_STATEMENT_TIMEOUT_MS }),
  );
}
