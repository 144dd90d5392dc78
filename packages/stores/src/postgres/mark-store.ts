/**
 * {@link DurableMarkStore} on PostgreSQL (node-postgres): the high-water marks that guard
 * Redis counters against moving backwards (packages/idforge/src/sequences/counter-source.ts), for fleets on
 * several hosts.
 *
 *   <namespace>.counter_marks(key text PRIMARY KEY, mark bigint NOT NULL)
 *
 * A raise is one autocommit statement, `INSERT ... ON CONFLICT DO UPDATE SET mark =
 * GREATEST(stored, value)`: the row lock serialises concurrent raisers and none can lower
 * another's mark. Every connection runs with `synchronous_commit = on` whatever the server's
 * default, so a raise resolves only after its commit is flushed to the WAL (with `off`, a
 * server crash could forget a mark it had acknowledged, which is the one thing a mark must
 * not do). Marks travel as decimal strings (int8), never through a double.
 *
 * Failures: every driver, connection or SQL error rejects with `StoreUnavailableError`
 * ('postgres', redacted URL, operation, cause), bounded by the connect and statement
 * timeouts. Safe to share within a process.
 */

import type { DurableMarkStore } from 'idforge/sequences';
import { assertMark, assertMarkTag } from '../mark-args.js';
import type { Ownership } from '../owned.js';
import type { PostgresClientOptions, PostgresStoreOptions } from './connect.js';
import { quoteNamespace } from './schema.js';
import { openPostgresStore, PostgresStore } from './store.js';

/**
 * The durable mark store on PostgreSQL (a node-postgres `pg.Pool`). Two ways to build it, as every
 * idforge store: on the application's own client, `new PostgresMarkStore({ pool, namespace })`,
 * which `close()` leaves open (the caller closes it); or from a URL with {@link
 * openPostgresMarkStore}, whose client the store opened and `close()` closes.
 */
export class PostgresMarkStore extends PostgresStore implements DurableMarkStore {
  readonly #schema: string;
  readonly #raise: string;
  readonly #read: string;

  /**
   * A store on `options.pool`, the caller's (see {@link PostgresClientOptions}): `close()`
   * leaves that pool open, unless the store's opener made it. Throws `RangeError` when the
   * namespace is not a valid schema name (see quoteNamespace).
   */
  constructor(options: PostgresClientOptions & Ownership) {
    super(options);
    const ns = quoteNamespace(this.namespace);
    this.#schema = `
CREATE SCHEMA IF NOT EXISTS ${ns};
CREATE TABLE IF NOT EXISTS ${ns}.counter_marks (
  key  text   PRIMARY KEY,
  mark bigint NOT NULL
);`;
    this.#raise = `
INSERT INTO ${ns}.counter_marks AS m (key, mark) VALUES ($1::text, $2::bigint)
ON CONFLICT (key) DO UPDATE SET mark = GREATEST(m.mark, excluded.mark)
RETURNING m.mark::text AS mark`;
    this.#read = `SELECT mark::text AS mark FROM ${ns}.counter_marks WHERE key = $1::text`;
  }

  /**
   * Creates the schema and table. Idempotent; concurrent migrations take turns on an advisory
   * lock (`CREATE ... IF NOT EXISTS` alone races). Never run by the other methods.
   */
  migrate(): Promise<void> {
    return this.db.migrate(
      `SELECT pg_advisory_xact_lock(hashtext('idforge.migrate'), hashtext($1::text))`,
      [this.namespace],
      this.#schema,
    );
  }

  /**
   * The mark, or null when never raised. Rejects with `RangeError` for a bad key,
   * `StoreUnavailableError` ('read') when the server fails (or was never migrated).
   */
  async read(tag: string): Promise<bigint | null> {
    assertMarkTag(tag);
    const row = (await this.db.result('read', this.#read, [tag])).rows[0] as
      | { mark: string }
      | undefined;
    return row === undefined ? null : BigInt(row.mark);
  }

  /**
   * Sets the mark to max(stored, value) and resolves after the commit is durable; returns the
   * new mark. Rejects with `RangeError` for a bad tag or value, `StoreUnavailableError`
   * ('raise') when the server fails: the mark may then be raised or not, never lowered.
   */
  async raise(tag: string, value: bigint): Promise<bigint> {
    assertMarkTag(tag);
    assertMark(value);
    const rows = (await this.db.result('raise', this.#raise, [tag, value.toString()])).rows;
    return BigInt((rows[0] as { mark: string }).mark);
  }
}

/**
 * Connects to PostgreSQL (`postgres://user@host:port/db[?namespace=NAME]`, namespace = the
 * schema, default `idforge`) and checks that the server answers; does not create the table
 * (call `migrate()`, as `idforge migrate --store URL` does). Throws `RangeError` for a
 * malformed URL, namespace or option; rejects with `StoreUnavailableError` ('connect') when
 * the server cannot be reached within the timeouts (default 5000 ms each).
 */
export function openPostgresMarkStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresMarkStore> {
  // The shared pool settings, synchronous_commit=on included: connect.ts.
  return openPostgresStore(PostgresMarkStore, url, options);
}
