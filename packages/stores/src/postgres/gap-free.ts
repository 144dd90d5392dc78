/**
 * {@link GapFreeStore} on PostgreSQL: gap-free business numbers taken inside the caller's own
 * transaction (idforge/sequences' gap-free.ts).
 *
 *   <namespace>.gap_free(tag varchar(128), period varchar(10), last bigint,
 *                        PRIMARY KEY (tag, period))
 *
 * `increment(tx, tag, period)`, on the caller's client after its `BEGIN`:
 *
 *   SELECT set_config('lock_timeout', '<ms>ms', true)       -- the previous value kept
 *   UPDATE gap_free SET last = last + 1 WHERE tag = $1 AND period = $2 RETURNING last
 *     (no row: INSERT ... VALUES ($1, $2, 0) ON CONFLICT DO NOTHING, and the UPDATE again)
 *   SELECT set_config('lock_timeout', '<previous>', true)
 *
 * The UPDATE locks the row until the caller's transaction ends: a second writer of the period
 * waits there, and then (READ COMMITTED re-reads the row) moves on from the committed value; a
 * rollback leaves the row as it was, so the number goes to the next writer. A period's row is
 * created inside the transaction: two creators of one row queue on its unique index, and the
 * second's insert does nothing. The wait is bounded by `lock_timeout`, set for the statement's
 * transaction and put back after; a timeout (55P03) is `GapFreeTimeoutError`, and PostgreSQL
 * has then aborted the caller's transaction (roll it back). Other failures are
 * `StoreUnavailableError`. Under REPEATABLE READ or SERIALIZABLE a second writer fails with a
 * serialization error instead of waiting: use READ COMMITTED (the default) for these.
 *
 * A client outside any transaction block is refused (`TypeError`) before the UPDATE: its number
 * would commit alone, and the caller's rollback could not give it back. The first statement
 * tells: node-postgres's `getTransactionStatus()` after it ('T' in a block), or, for a client
 * without it (a pool, a wrapper), a `SAVEPOINT` released at once, which PostgreSQL refuses
 * outside a block (25P01). A row at 2^63 - 1 has no next
 * number: PostgreSQL's bigint overflow (22003) is `GapFreeExhaustedError`.
 */
import type { GapFreeStore } from 'idforge/sequences';
import { GapFreeExhaustedError, GapFreeTimeoutError } from 'idforge/sequences';
import type { PgPool, PgQueryResult } from '../driver-types.js';
import { checkGapFreeKey, lockTimeoutOf, outsideTransaction } from '../gap-free-args.js';
import { callerAddress } from '../owned.js';
import { storeError } from '../store-error.js';
import { DEFAULT_POSTGRES_NAMESPACE } from './connect.js';
import { postgresSite } from './rules.js';
import { quoteNamespace } from './schema.js';

/** The caller's client inside its transaction: a `pg.PoolClient` or a `pg.Client`. */
export interface PgTransactionClient {
  query(text: string, values?: unknown[]): Promise<PgQueryResult>;
  /** node-postgres's: 'I' idle, 'T' in a transaction block, 'E' in a failed one. */
  getTransactionStatus?(): string | null;
}

/** Options of {@link PostgresGapFreeStore}. */
export interface PostgresGapFreeOptions {
  /** The caller's pool: `migrate()` and `last()` run on it, never the numbers. */
  readonly pool: PgPool;
  /** The schema of the table. Default `idforge`. */
  readonly namespace?: string;
  readonly address?: string;
  /** The longest `increment` waits for another transaction's lock. Default 5000. */
  readonly lockTimeoutMs?: number;
}

function gapFreeSql(namespace: string) {
  const ns = quoteNamespace(namespace);
  const t = `${ns}.gap_free`;
  return {
    schema: `CREATE SCHEMA IF NOT EXISTS ${ns};
CREATE TABLE IF NOT EXISTS ${t} (
  tag    varchar(128) NOT NULL,
  period varchar(10)  NOT NULL,
  last   bigint       NOT NULL CHECK (last >= 0),
  PRIMARY KEY (tag, period)
)`,
    // The subquery (not flattened: OFFSET 0) reads the setting before set_config changes it.
    timeout: `SELECT prev, set_config('lock_timeout', $1::text, true)
FROM (SELECT current_setting('lock_timeout') AS prev OFFSET 0) s`,
    // Outside a block (an implicit one too) SAVEPOINT fails with 25P01 and changes nothing.
    probe: 'SAVEPOINT idforge_gap_free; RELEASE SAVEPOINT idforge_gap_free',
    restore: `SELECT set_config('lock_timeout', $1::text, true)`,
    bump: `UPDATE ${t} SET last = last + 1 WHERE tag = $1::text AND period = $2::text RETURNING last::text AS last`,
    create: `INSERT INTO ${t} (tag, period, last) VALUES ($1::text, $2::text, 0) ON CONFLICT DO NOTHING`,
    last: `SELECT last::text AS last FROM ${t} WHERE tag = $1::text AND period = $2::text`,
  };
}

export class PostgresGapFreeStore implements GapFreeStore<PgTransactionClient> {
  readonly backend = 'postgres';
  readonly address: string;
  readonly namespace: string;
  readonly lockTimeoutMs: number;
  readonly #pool: PgPool;
  readonly #sql: ReturnType<typeof gapFreeSql>;

  /** Throws `RangeError` for a bad namespace or lock timeout; `close()` leaves the pool open. */
  constructor(options: PostgresGapFreeOptions) {
    this.namespace = options.namespace ?? DEFAULT_POSTGRES_NAMESPACE;
    this.#sql = gapFreeSql(this.namespace);
    this.lockTimeoutMs = lockTimeoutOf(options.lockTimeoutMs);
    this.address = callerAddress('postgres', options.address);
    this.#pool = options.pool;
  }

  async migrate(): Promise<void> {
    try {
      await this.#pool.query(this.#sql.schema);
    } catch (error) {
      throw storeError(postgresSite(this.address), 'gap-free migrate', error);
    }
  }

  /** See {@link GapFreeStore.increment}; `tx` is the caller's client inside its transaction. */
  async increment(tx: PgTransactionClient, tag: string, period: string): Promise<bigint> {
    checkGapFreeKey(tag, period);
    if (typeof tx?.query !== 'function') {
      throw new TypeError('tx: expected a node-postgres client inside a transaction, got none');
    }
    const value = await this.#take(tx, tag, period);
    if (value === undefined) throw outsideTransaction('a node-postgres client', 'BEGIN');
    return value;
  }

  /** The number, or undefined when `tx` is outside a transaction block (nothing taken). */
  async #take(tx: PgTransactionClient, tag: string, period: string): Promise<bigint | undefined> {
    try {
      const known = typeof tx.getTransactionStatus === 'function';
      if (!known && !(await this.#inBlock(tx))) return undefined;
      const set = await tx.query(this.#sql.timeout, [`${this.lockTimeoutMs}ms`]);
      const prev = (set.rows[0] as { prev: string }).prev;
      // Outside a block, set_config(..., true) lasted its own statement: nothing to put back.
      if (known && tx.getTransactionStatus!() !== 'T') return undefined;
      let bumped = await tx.query(this.#sql.bump, [tag, period]);
      if (bumped.rows.length === 0) {
        await tx.query(this.#sql.create, [tag, period]);
        bumped = await tx.query(this.#sql.bump, [tag, period]);
      }
      await tx.query(this.#sql.restore, [prev]);
      return BigInt((bumped.rows[0] as { last: string }).last);
    } catch (error) {
      const code = (error as { code?: unknown })?.code;
      if (code === '55P03') {
        throw new GapFreeTimeoutError(tag, period, this.backend, this.lockTimeoutMs, error);
      }
      if (code === '22003') throw new GapFreeExhaustedError(tag, period, this.backend, error);
      throw storeError(postgresSite(this.address), 'gap-free increment', error);
    }
  }

  /** Whether a client without getTransactionStatus() is in a transaction block. */
  async #inBlock(tx: PgTransactionClient): Promise<boolean> {
    try {
      await tx.query(this.#sql.probe);
      return true;
    } catch (error) {
      if ((error as { code?: unknown })?.code === '25P01') return false;
      throw error;
    }
  }

  async last(tag: string, period: string): Promise<bigint> {
    checkGapFreeKey(tag, period);
    try {
      const r = await this.#pool.query(this.#sql.last, [tag, period]);
      const row = r.rows[0] as { last: string } | undefined;
      return row === undefined ? 0n : BigInt(row.last);
    } catch (error) {
      throw storeError(postgresSite(this.address), 'gap-free last', error);
    }
  }

  /** Nothing to end: the pool is the caller's. */
  async close(): Promise<void> {}
}
