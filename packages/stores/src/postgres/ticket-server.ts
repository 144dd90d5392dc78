/**
 * {@link TicketServer} on PostgreSQL (node-postgres): the ticket server's PostgreSQL
 * equivalent. One sequence per ticket sequence, `<namespace>.tickets_<name>`, created by
 * `setup(name, increment, offset)` as
 *
 *   CREATE SEQUENCE tickets_<name> AS bigint INCREMENT BY <increment> START WITH <offset>
 *     MINVALUE 1 NO CYCLE
 *
 * and a ticket is `SELECT nextval(...)`: one round trip, atomic without a table or a lock
 * (sequences are not transactional, so concurrent callers never wait on each other). With N
 * servers, server i gets `INCREMENT BY N START WITH i`, the same split as MySQL's
 * auto_increment_increment/offset. The settings live in the sequence itself, so they survive
 * restarts and need no server configuration.
 *
 * Durability (docs/sequences-tickets.md): `fsync = on`, `synchronous_commit = on` (not
 * `off`, `local` is enough without replicas) and `full_page_writes = on`, the defaults.
 * `nextval` WAL-logs the sequence ahead of what it hands out (32 values at a time) and, since
 * PostgreSQL 9.5, takes a transaction ID when it does, so the commit of the autocommit SELECT
 * flushes that record before node-postgres resolves; after a crash the sequence resumes past
 * every ticket a client received (skipping up to 32 values).
 *
 * Namespace: the URL's `?namespace=NAME` (default `idforge`) is the schema holding the
 * sequences, created by `setup()`.
 *
 * Failures: every driver, connection or SQL error rejects with `StoreUnavailableError`
 * ('postgres', redacted URL, operation, cause); a sequence never set up names the fix in the
 * cause. No call takes longer than connectTimeoutMs + queryTimeoutMs (setup: four times
 * that). Safe to share within a process.
 */

import { assertNumber } from 'idforge/internal';
import type { PlannableTicketServer } from 'idforge/sequences';
import type pg from 'pg';
import { callerAddress, OWNED, type Ownership } from '../owned.js';
import { redactOwnUrl } from '../redact.js';
import {
  assertTicketPlan,
  firstTicketAbove,
  notSetUp,
  ticketTable,
  withDeadline,
} from '../ticket-common.js';
import {
  createPgPool,
  DEFAULT_POSTGRES_NAMESPACE,
  type PostgresClientOptions,
  type PostgresStoreOptions,
  parsePostgresUrl,
} from './connect.js';
import { postgresRules, postgresSite } from './rules.js';
import { quoteNamespace } from './schema.js';

/** undefined_table: the sequence (or its schema) does not exist. */
const UNDEFINED_TABLE = '42P01';
const UNDEFINED_SCHEMA = '3F000';

interface SequenceRow {
  increment_by: string;
  start_value: string;
  last_value: string;
  is_called: boolean;
}

/**
 * The ticket server on PostgreSQL (a node-postgres `pg.Pool`). Two ways to build it, as every
 * idforge store: on the application's own client, `new PostgresTicketServer({ pool, namespace })`,
 * which `close()` leaves open (the caller closes it); or from a URL with {@link
 * openPostgresTicketServer}, whose client the store opened and `close()` closes.
 */
export class PostgresTicketServer implements PlannableTicketServer {
  readonly backend = 'postgres';
  readonly address: string;
  /** The schema holding the ticket sequences. */
  readonly namespace: string;
  readonly #pool: pg.Pool;
  readonly #deadlineMs: number;
  readonly #owned: boolean;

  /**
   * A ticket server on `options.pool`, the caller's (see {@link PostgresClientOptions}):
   * `close()` leaves that pool open. `timeoutMs` bounds each call (default 10000). Throws
   * `RangeError` for a malformed namespace or timeout.
   */
  constructor(options: PostgresClientOptions & { readonly timeoutMs?: number } & Ownership) {
    this.#pool = options.pool as pg.Pool; // a pg.Pool: its own type inside (driver-types.ts)
    this.address = callerAddress('postgres', options.address);
    this.namespace = options.namespace ?? DEFAULT_POSTGRES_NAMESPACE;
    quoteNamespace(this.namespace);
    this.#deadlineMs = Math.ceil(assertNumber('timeoutMs', options.timeoutMs ?? 10_000, 1));
    this.#owned = options[OWNED] === true;
  }

  /**
   * Connects and checks that the server answers. Throws `RangeError` for a malformed URL,
   * namespace or option; rejects with `StoreUnavailableError` ('postgres', address, 'connect').
   */
  static async open(
    url: string,
    options: PostgresStoreOptions = {},
  ): Promise<PostgresTicketServer> {
    const address = redactOwnUrl(url, postgresRules);
    const connectMs = Math.ceil(
      assertNumber('connectTimeoutMs', options.connectTimeoutMs ?? 5000, 1),
    );
    const queryMs = Math.ceil(
      assertNumber('queryTimeoutMs', options.queryTimeoutMs ?? connectMs, 1),
    );
    const { connectionString, namespace } = parsePostgresUrl(url, options.namespace);
    // A pooled idle connection that breaks (server restart) makes the pool emit 'error',
    // which createPgPool's pool ignores.
    const pool = await createPgPool({
      connectionString,
      max: 4,
      connectionTimeoutMillis: connectMs,
      statement_timeout: queryMs,
      query_timeout: queryMs,
      idle_in_transaction_session_timeout: 2 * queryMs,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      allowExitOnIdle: true,
      application_name: 'idforge-tickets',
    } satisfies pg.PoolConfig);
    const server = new PostgresTicketServer({
      pool,
      address,
      namespace,
      timeoutMs: connectMs + queryMs,
      [OWNED]: true,
    });
    try {
      await server.#op('connect', () => pool.query('SELECT 1'));
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
    return server;
  }

  async setup(name: string, increment: number, offset: number, floor = 0n): Promise<void> {
    const seq = this.#qualified(name);
    assertTicketPlan(increment, offset);
    await this.#op(
      'setup',
      async () => {
        const client = await this.#pool.connect();
        try {
          await client.query('BEGIN');
          // CREATE SCHEMA/SEQUENCE IF NOT EXISTS race with each other: setups take turns.
          await client.query(
            `SELECT pg_advisory_xact_lock(hashtext('idforge.tickets'), hashtext($1))`,
            [seq],
          );
          await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteNamespace(this.namespace)}`);
          const exists = await client.query('SELECT to_regclass($1) AS oid', [seq]);
          if (exists.rows[0].oid === null) {
            const start = firstTicketAbove(floor, increment, offset);
            await client.query(
              `CREATE SEQUENCE ${seq} AS bigint INCREMENT BY ${increment} MINVALUE 1 ` +
                `START WITH ${offset} NO CYCLE`,
            );
            if (start !== BigInt(offset))
              await client.query(`ALTER SEQUENCE ${seq} RESTART WITH ${start}`);
          } else {
            const { rows } = await client.query<SequenceRow>(
              `SELECT s.increment_by::text, s.start_value::text, q.last_value::text, q.is_called
             FROM pg_sequences s, ${seq} q WHERE s.schemaname = $1 AND s.sequencename = $2`,
              [this.namespace, ticketTable(name)],
            );
            const r = rows[0]!;
            if (Number(r.increment_by) !== increment || Number(r.start_value) !== offset) {
              // Re-plan: the new series starts above this server's tickets and `floor`.
              const above = highOf(r) > floor ? highOf(r) : floor;
              const restart = firstTicketAbove(above, increment, offset);
              await client.query(
                `ALTER SEQUENCE ${seq} INCREMENT BY ${increment} START WITH ${offset} ` +
                  `RESTART WITH ${restart}`,
              );
            }
          }
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK').catch(() => {});
          throw e;
        } finally {
          client.release();
        }
      },
      4 * this.#deadlineMs,
    );
  }

  async next(name: string): Promise<bigint> {
    const seq = this.#qualified(name);
    return this.#op('next', async () => {
      try {
        const { rows } = await this.#pool.query('SELECT nextval($1::regclass)::text AS id', [seq]);
        return BigInt(rows[0].id);
      } catch (e) {
        throw missing(e) ? notSetUp(this, name, e) : e;
      }
    });
  }

  async high(name: string): Promise<bigint> {
    const seq = this.#qualified(name);
    return this.#op('high', async () => {
      try {
        const { rows } = await this.#pool.query<SequenceRow>(
          `SELECT last_value::text, is_called FROM ${seq}`,
        );
        return highOf(rows[0]!);
      } catch (e) {
        if (missing(e)) return 0n;
        throw e;
      }
    });
  }

  async close(): Promise<void> {
    if (this.#owned) await this.#pool.end().catch(() => {});
  }

  #qualified(name: string): string {
    return `${quoteNamespace(this.namespace)}."${ticketTable(name)}"`;
  }

  #op<T>(operation: string, fn: () => Promise<T>, bound = this.#deadlineMs): Promise<T> {
    return withDeadline(postgresSite(this.address), operation, bound, fn);
  }
}

/** The last value handed out, or one below the next one when nothing was since (re)start. */
function highOf(r: Pick<SequenceRow, 'last_value' | 'is_called'>): bigint {
  const last = BigInt(r.last_value);
  return r.is_called ? last : last - 1n;
}

function missing(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === UNDEFINED_TABLE || code === UNDEFINED_SCHEMA;
}

/** Opens the ticket server `url` names and checks it answers; as {@link PostgresTicketServer.open}. */
export function openPostgresTicketServer(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<PostgresTicketServer> {
  return PostgresTicketServer.open(url, options);
}
