/**
 * PostgreSQL for `idforge backfill`. The column is added as `uuid` (UUIDs: 16 bytes) or
 * `varchar(N) COLLATE "C"` (public IDs: byte-wise, case-sensitive comparison), nullable and
 * without a default, so `ALTER TABLE ... ADD COLUMN` changes the catalog only (no rewrite); it
 * waits at most {@link LOCK_TIMEOUT_MS} for its brief exclusive lock, so it never queues the
 * application's statements behind a long transaction. Each batch is one `UPDATE ... FROM
 * unnest(keys, values)` in its own transaction, retried on a deadlock with the application's
 * writes. The unique index is built with `CREATE UNIQUE INDEX CONCURRENTLY` (writes go on); an
 * invalid index left by an interrupted build is dropped (concurrently) and built anew.
 */

import { formatUuid, parseUuid } from 'idforge';
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
import type pg from 'pg';
import {
  BACKFILL_STATEMENT_TIMEOUT_MS,
  quoteTable,
  retryDeadlocked,
  scanOf,
} from '../backfill-sql.js';
import type { PgPool } from '../driver-types.js';
import { connectPostgres, endPool } from './connect.js';
import { PgExecutor } from './executor.js';

/** How long the ADD COLUMN waits for its lock before giving up (rerun later), in ms. */
const LOCK_TIMEOUT_MS = 10_000;

const q = (name: string) => `"${name}"`;
const qt = quoteTable(q);

function kindOf(base: string): BackfillColumn['kind'] {
  if (base === 'int2' || base === 'int4' || base === 'int8') return 'integer';
  if (base === 'uuid') return 'bytes16';
  if (base === 'text' || base === 'varchar' || base === 'bpchar') return 'text';
  if (base === 'timestamptz' || base === 'timestamp' || base === 'date') return 'time';
  return 'other';
}

/** Unix ms of a time column, microseconds kept (`timestamp` and `date` read as UTC). */
const msOf = (at: BackfillColumn) => `(extract(epoch from _t.${q(at.name)}) * 1000)::float8`;

const keyParam = (k: BackfillKey) => (typeof k === 'bigint' ? k.toString() : formatUuid(k));

export class PostgresBackfillTarget implements BackfillTarget {
  readonly engine = 'postgres';
  readonly address: string;
  readonly #db: PgExecutor;
  readonly #pool: pg.Pool;
  readonly #owned: boolean;
  readonly #lockTimeoutMs: number;
  #closed: Promise<void> | null = null;

  /**
   * Over the caller's pool (never ended here unless `owned`). `lockTimeoutMs`: how long adding
   * the column waits for the table's lock (default 10 000).
   */
  constructor(options: {
    pool: PgPool;
    address?: string;
    owned?: boolean;
    lockTimeoutMs?: number;
  }) {
    this.#lockTimeoutMs = Math.ceil(options.lockTimeoutMs ?? LOCK_TIMEOUT_MS);
    this.address = options.address ?? "postgres (the caller's client)";
    this.#db = new PgExecutor(options.pool, this.address);
    this.#pool = options.pool as pg.Pool; // a pg.Pool: its own type inside (driver-types.ts)
    this.#owned = options.owned === true;
  }

  async describe(table: string): Promise<BackfillTableInfo | null> {
    const [reg] = (
      await this.#db.result<{ r: string | null }>('describe', 'SELECT to_regclass($1)::text AS r', [
        qt(table),
      ])
    ).rows;
    if (reg?.r == null) return null;
    const { rows } = await this.#db.result<{
      name: string;
      type: string;
      base: string;
      notnull: boolean;
      len: number | null;
      uniq: boolean;
    }>(
      'describe',
      `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, t.typname AS base,
              a.attnotnull AS notnull,
              CASE WHEN t.typname IN ('varchar', 'bpchar') AND a.atttypmod > 4
                   THEN a.atttypmod - 4 END AS len,
              EXISTS (SELECT 1 FROM pg_index i
                       WHERE i.indrelid = a.attrelid AND i.indisunique AND i.indisvalid
                         AND i.indnatts = 1 AND i.indkey[0] = a.attnum
                         AND i.indpred IS NULL AND i.indexprs IS NULL) AS uniq
         FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
        WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum`,
      [qt(table)],
    );
    return {
      columns: rows.map((r) => ({
        name: r.name,
        type: r.type,
        kind: kindOf(r.base),
        length: r.len,
        nullable: !r.notnull,
        unique: r.uniq,
      })),
    };
  }

  columnType(spec: BackfillColumnSpec): string {
    return spec.kind === 'bytes16' ? 'uuid' : `varchar(${spec.length}) COLLATE "C"`;
  }

  async addColumn(table: string, column: string, spec: BackfillColumnSpec): Promise<void> {
    // On a connection of its own, rolled back on failure: a lock timeout inside the explicit
    // transaction must not leave a pooled connection in an aborted transaction.
    let client: pg.PoolClient | undefined;
    try {
      client = await this.#pool.connect();
      await client.query(
        `BEGIN; SET LOCAL lock_timeout = ${this.#lockTimeoutMs};
         ALTER TABLE ${qt(table)} ADD COLUMN IF NOT EXISTS ${q(column)} ${this.columnType(spec)};
         COMMIT`,
      );
    } catch (error) {
      await client?.query('ROLLBACK').catch(() => {});
      if ((error as { code?: string }).code === '55P03') {
        const found = `${(error as Error).message}, after ${this.#lockTimeoutMs} ms`;
        throw new BackfillTableError('postgres', this.address, table, column, 'locked', found, {
          cause: error,
        });
      }
      throw this.#db.fail('add column', error);
    } finally {
      client?.release();
    }
  }

  async counts(table: string, column: string): Promise<{ rows: number; filled: number }> {
    const { rows } = await this.#db.result<{ r: string; f: string }>(
      'count',
      `SELECT count(*)::text AS r, count(${q(column)})::text AS f FROM ${qt(table)}`,
    );
    return { rows: Number(rows[0]!.r), filled: Number(rows[0]!.f) };
  }

  async nextKeys(
    table: string,
    key: BackfillColumn,
    column: string,
    after: BackfillKey | null,
    limit: number,
    at?: BackfillColumn,
  ): Promise<BackfillScan> {
    // Qualified by the alias: a bare ORDER BY name would take an output column of that name.
    const k = `_t.${q(key.name)}`;
    const { rows } = await this.#db.result<{ k: string; e: boolean; t: number | null }>(
      'select',
      `SELECT _s.k::text AS k, _s.e, _s.t FROM (
         SELECT ${k} AS k, _t.${q(column)} IS NULL AS e,
                ${at === undefined ? 'NULL::float8' : msOf(at)} AS t FROM ${qt(table)} AS _t
          ${after === null ? '' : `WHERE ${k} > $2`} ORDER BY ${k} LIMIT $1) AS _s
        ORDER BY _s.k`,
      after === null ? [limit] : [limit, keyParam(after)],
    );
    return scanOf(
      rows,
      (r) => r.e,
      (r) => (key.kind === 'integer' ? BigInt(r.k) : parseUuid(r.k)),
      at === undefined ? undefined : (r) => r.t,
    );
  }

  async untimed(table: string, at: BackfillColumn, column: string | null): Promise<number> {
    const { rows } = await this.#db.result<{ n: string }>(
      'count',
      `SELECT count(*)::text AS n FROM ${qt(table)} AS _t WHERE _t.${q(at.name)} IS NULL` +
        (column === null ? '' : ` AND _t.${q(column)} IS NULL`),
    );
    return Number(rows[0]!.n);
  }

  async fill(
    table: string,
    key: BackfillColumn,
    column: string,
    keys: readonly BackfillKey[],
    values: readonly BackfillValue[],
  ): Promise<number> {
    const valueType = typeof values[0] === 'string' ? 'text' : 'uuid';
    const text = `UPDATE ${qt(table)} AS _t SET ${q(column)} = _v.val
         FROM unnest($1::${key.type}[], $2::${valueType}[]) AS _v(k, val)
        WHERE _t.${q(key.name)} = _v.k AND _t.${q(column)} IS NULL`;
    const params = [
      keys.map(keyParam),
      values.map((v) => (typeof v === 'string' ? v : formatUuid(v))),
    ];
    // 40P01 deadlock_detected, 40001 serialization_failure: the batch lost to another writer.
    try {
      return await retryDeadlocked(
        async () => (await this.#pool.query(text, params)).rowCount ?? 0,
        (error) => {
          const code = (error as { code?: string }).code;
          return code === '40P01' || code === '40001';
        },
      );
    } catch (error) {
      throw this.#db.fail('update', error);
    }
  }

  async addUniqueIndex(table: string, column: string, index: string): Promise<void> {
    const [s] = (
      await this.#db.result<{ s: string }>(
        'create index',
        `SELECT n.nspname AS s FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.oid = $1::regclass`,
        [qt(table)],
      )
    ).rows;
    const qualified = `${q(s!.s)}.${q(index)}`;
    const dropInvalid = async () => {
      const [ix] = (
        await this.#db.result<{ valid: boolean }>(
          'create index',
          'SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass($1)',
          [qualified],
        )
      ).rows;
      if (ix !== undefined && !ix.valid) {
        await this.#db.result('drop index', `DROP INDEX CONCURRENTLY IF EXISTS ${qualified}`);
      }
    };
    await dropInvalid();
    try {
      await this.#pool.query(
        `CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS ${q(index)} ON ${qt(table)} (${q(column)})`,
      );
    } catch (error) {
      if ((error as { code?: string }).code !== '23505') {
        throw this.#db.fail('create index', error);
      }
      await dropInvalid();
      throw new BackfillTableError(
        'postgres',
        this.address,
        table,
        column,
        'duplicates',
        (error as Error).message,
        { cause: error },
      );
    }
  }

  close(): Promise<void> {
    this.#closed ??= endPool(this.#db.pool, this.#owned, this.address);
    return this.#closed;
  }
}

/**
 * Opens the backfill on the database of a postgres:// URL. Rejects with `StoreUnavailableError`
 * when it cannot connect, `StoreAuthError` when the login is refused.
 */
export async function openPostgresBackfillTarget(url: string): Promise<PostgresBackfillTarget> {
  const { pool, address } = await connectPostgres(url, {
    queryTimeoutMs: BACKFILL_STATEMENT_TIMEOUT_MS,
  });
  return new PostgresBackfillTarget({ pool, address, owned: true });
}
