/**
 * How every PostgreSQL adapter runs a statement: on the pool, its failure typed by
 * `storeCall` (store-error.ts), one transaction at a time on one pooled connection that is
 * destroyed, not reused, after any error (the server rolls back when it goes), so a
 * connection left mid-statement by a timeout never serves another call. The statements'
 * bounds are the pool's (`statement_timeout` on the server and `query_timeout`, connect.ts).
 */
import type pg from 'pg';
import { storeCall } from '../call.js';
import type { PgPool } from '../driver-types.js';
import { type CallSite, storeError } from '../store-error.js';
import { classifyPostgres } from './rules.js';

/** A statement's answer, as the adapters read it (node-postgres' QueryResult, in part). */
export interface PgResult<R> {
  readonly rows: R[];
  readonly rowCount: number | null;
}

/** What a transaction's statements run on: one pooled connection. */
export interface PgTransaction {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PgResult<R>>;
}

// The signatures name no node-postgres type, so that the declarations compile without pg
// installed (test/stores/declarations.test.ts); pg's own types stay inside.
export class PgExecutor implements CallSite {
  readonly backend = 'postgres';
  readonly classify = classifyPostgres;
  readonly address: string;
  readonly #pool: pg.Pool;

  constructor(pool: PgPool, address: string) {
    this.#pool = pool as pg.Pool; // a pg.Pool: its own type inside (driver-types.ts)
    this.address = address;
  }

  /** The pool, for what is not a statement (ending it, a dedicated connection). */
  get pool(): PgPool {
    return this.#pool as PgPool;
  }

  /** The typed store error of a failure of `operation`. */
  fail(operation: string, cause: unknown) {
    return storeError(this, operation, cause);
  }

  /** One statement on the pool. */
  result<R extends object>(
    operation: string,
    text: string,
    values: unknown[] = [],
  ): Promise<PgResult<R>> {
    return storeCall(this, operation, () => this.#pool.query<R & pg.QueryResultRow>(text, values));
  }

  /** One statement on the pool: its rows. */
  async rows<R extends object>(
    operation: string,
    text: string,
    values: unknown[] = [],
  ): Promise<R[]> {
    return (await this.result<R>(operation, text, values)).rows;
  }

  /**
   * `fn` on one pooled connection, between BEGIN and COMMIT (or with `begin: false`, without
   * a transaction); any failure destroys the connection and rejects with the typed error.
   */
  async transaction<T>(
    operation: string,
    fn: (client: PgTransaction) => Promise<T>,
    { begin = true } = {},
  ): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw this.fail(operation, error);
    }
    try {
      if (begin) await client.query('BEGIN');
      const result = await fn(client as PgTransaction);
      if (begin) await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      throw this.fail(operation, error);
    }
  }

  /**
   * Creates a schema idempotently: `schema` after `lock` (an advisory transaction lock) in one
   * transaction, so concurrent migrations take turns (`CREATE ... IF NOT EXISTS` alone races).
   */
  migrate(lock: string, lockValues: unknown[], schema: string): Promise<void> {
    return this.transaction('migrate', async (c) => {
      await c.query(lock, lockValues);
      await c.query(schema);
    });
  }
}
