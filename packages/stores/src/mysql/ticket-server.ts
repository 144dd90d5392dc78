/**
 * {@link TicketServer} on MariaDB or MySQL (mysql2): Flickr's ticket server (2010), made
 * crash-safe. One InnoDB table per sequence, `tickets_<name>`, holding a single row:
 *
 *   id   BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY   the last ticket issued
 *   stub CHAR(1) NOT NULL UNIQUE                      always 'a'
 *
 * A ticket is `REPLACE INTO tickets_<name> (stub) VALUES ('a')` (deletes the row, inserts it
 * again with a new id) then `SELECT LAST_INSERT_ID()`, on the same connection: both travel in
 * one multi-statement query, one round trip per ticket.
 *
 * Increment and offset: the server's `auto_increment_increment`/`auto_increment_offset` are
 * session variables, so this adapter sets them in the same query as every REPLACE, from the
 * settings `setup()` stores in the table's comment (`idforge tickets: increment=2 offset=1`).
 * Chosen over Flickr's `SET GLOBAL` because that one is lost at a restart (a restarted server
 * would fall back to increment 1 and issue the other server's numbers), needs SUPER, and
 * changes every other table of the server. A table without that comment (set up by hand, the
 * Flickr way) uses the server's global settings.
 *
 * Durability (docs/sequences-tickets.md): InnoDB with `innodb_flush_log_at_trx_commit = 1`
 * (and `sync_binlog = 1` if the binary log is on). The REPLACE commits (autocommit) before the
 * ticket is returned, and MariaDB >= 10.2.4 / MySQL >= 8.0 persist the auto-increment counter
 * in the redo log, so after a crash the server continues above every ticket it acknowledged.
 * MyISAM (Flickr's tables) has no crash recovery: setup refuses a non-InnoDB table.
 *
 * Namespace: the tables live in the URL's database. With `?namespace=NAME` (a table-name
 * prefix, as for the segment store) a table is `NAME_tickets_<name>`; without it the name is
 * Flickr's `tickets_<name>` (the idforge segment store's default prefix does not apply).
 *
 * Failures: every driver, connection or SQL error rejects with `StoreUnavailableError`
 * ('mysql', redacted URL, operation, cause); a sequence never set up names the fix in the
 * cause. No call takes longer than connectTimeoutMs + queryTimeoutMs (setup: four times
 * that), close included. Safe to share within a process.
 */

import { assertNumber, Backoff } from 'idforge/internal';
import {
  MAX_SEQUENCE_VALUE,
  type PlannableTicketServer,
  SequenceExhaustedError,
} from 'idforge/sequences';
import type mysql from 'mysql2/promise';
import { callerAddress, OWNED, type Ownership } from '../owned.js';
import { redactOwnUrl } from '../redact.js';
import { assertTablePrefix } from '../segment-args.js';
import {
  assertTicketPlan,
  notSetUp,
  parseTicketComment,
  prefixedTicketTable,
  settlesWithin,
  ticketComment,
  withDeadline,
} from '../ticket-common.js';
import {
  assertMysqlPoolSettings,
  createMysqlPool,
  type MysqlClientOptions,
  type MysqlStoreOptions,
  parseMysqlUrl,
} from './connect.js';
import { mysqlRules, mysqlSite } from './rules.js';

interface Settings {
  readonly increment: number;
  readonly offset: number;
}

/** Deadlock victims retried per call; a deadlock costs one round trip, the deadline bounds all. */
const MAX_DEADLOCK_RETRIES = 16;

/** setup() runs a handful of statements (lock, look, create or alter): it gets this many bounds. */
const SETUP_BOUND = 4;

/** Errors that mean "the sequence (or its database) does not exist". */
const MISSING = new Set(['ER_NO_SUCH_TABLE', 'ER_BAD_DB_ERROR']);
const code = (e: unknown) => (e as { code?: unknown } | null)?.code;

/**
 * The ticket server on MariaDB or MySQL (a mysql2/promise pool). Two ways to build it, as every
 * idforge store: on the application's own client, `new MysqlTicketServer({ pool })`, which
 * `close()` leaves open (the caller closes it); or from a URL with {@link openMysqlTicketServer},
 * whose client the store opened and `close()` closes.
 */
export class MysqlTicketServer implements PlannableTicketServer {
  readonly backend = 'mysql';
  readonly address: string;
  /** The table-name prefix ('' without `?namespace=`). */
  readonly namespace: string;
  readonly #pool: mysql.Pool;
  readonly #owned: boolean;
  /** The bound of a whole call: a fresh connection plus a statement. */
  readonly #deadlineMs: number;
  readonly #queryMs: number;
  readonly #lockWaitS: number;
  #deadlockRetries = 0;
  /** Open connections, to destroy at close when the server does not answer. */
  readonly #connections = new Set<{ destroy(): void }>();
  /** Per name: its stored settings, null for a table idforge did not set up. */
  readonly #settings = new Map<string, Settings | null>();

  /**
   * A ticket server on `options.pool`, the caller's (see {@link MysqlClientOptions}; no table
   * prefix unless `namespace` is given): `close()` leaves that pool open. Throws `RangeError`
   * for a malformed namespace or timeout, or a pool without the settings it needs.
   */
  constructor(options: MysqlClientOptions & Ownership) {
    if (options[OWNED] !== true) assertMysqlPoolSettings(options.pool);
    const pool = options.pool as mysql.Pool; // a mysql2 pool: its own type inside (driver-types.ts)
    const connectMs = Math.ceil(
      assertNumber('connectTimeoutMs', options.connectTimeoutMs ?? 5000, 1),
    );
    const queryMs = Math.ceil(
      assertNumber('queryTimeoutMs', options.queryTimeoutMs ?? connectMs, 1),
    );
    this.#pool = pool;
    this.#owned = options[OWNED] === true;
    this.address = callerAddress('mysql', options.address);
    this.namespace = options.namespace === undefined ? '' : assertTablePrefix(options.namespace);
    this.#deadlineMs = connectMs + queryMs;
    this.#queryMs = queryMs;
    this.#lockWaitS = Math.max(1, Math.ceil(queryMs / 1000));
    pool.pool.on('connection', (conn) => {
      // A pooled connection that breaks while idle (server restart or crash) emits 'error';
      // without a listener that would crash the process. The next call reconnects.
      conn.on('error', () => {});
      this.#connections.add(conn);
      conn.once('end', () => this.#connections.delete(conn));
    });
  }

  /**
   * Connects and checks that the server answers. Throws `RangeError` for a malformed URL or
   * option; rejects with `StoreUnavailableError` ('mysql', address, 'connect') otherwise.
   */
  static async open(url: string, options: MysqlStoreOptions = {}): Promise<MysqlTicketServer> {
    const address = redactOwnUrl(url, mysqlRules);
    const connectMs = Math.ceil(
      assertNumber('connectTimeoutMs', options.connectTimeoutMs ?? 5000, 1),
    );
    const queryMs = Math.ceil(
      assertNumber('queryTimeoutMs', options.queryTimeoutMs ?? connectMs, 1),
    );
    // parseMysqlUrl checks the URL and the prefix; its default prefix is not used here.
    const { uri, namespace } = parseMysqlUrl(url, options.namespace);
    const explicit = options.namespace ?? new URL(url).searchParams.get('namespace');
    const pool = await createMysqlPool({
      uri,
      connectTimeout: connectMs,
      connectionLimit: 4,
      maxIdle: 4,
      idleTimeout: 30_000,
      multipleStatements: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      enableKeepAlive: true,
    } satisfies mysql.PoolOptions);
    const server = new MysqlTicketServer({
      pool,
      address,
      ...(explicit === null ? {} : { namespace }),
      connectTimeoutMs: connectMs,
      queryTimeoutMs: queryMs,
      [OWNED]: true,
    });
    try {
      await server.#op('connect', () => pool.query({ sql: 'SELECT 1', timeout: queryMs }));
    } catch (error) {
      await server.close();
      throw error;
    }
    return server;
  }

  /** How many REPLACEs InnoDB rolled back as deadlock victims and this server retried. */
  get deadlockRetries(): number {
    return this.#deadlockRetries;
  }

  async setup(name: string, increment: number, offset: number, floor = 0n): Promise<void> {
    const table = this.#qualified(name);
    assertTicketPlan(increment, offset);
    // GET_LOCK names are server-wide and at most 64 characters in MySQL.
    const lock = `CONCAT('idforge_tk_', MD5(CONCAT(DATABASE(), '.', ${this.#pool.escape(this.#table(name))})))`;
    await this.#op(
      'setup',
      async () => {
        const conn = await this.#pool.getConnection();
        try {
          // Two setups of one sequence at once take turns (CREATE ... IF NOT EXISTS + ALTER race).
          const [locked] = await conn.query<mysql.RowDataPacket[]>(
            `SELECT GET_LOCK(${lock}, ?) AS ok`,
            [this.#lockWaitS],
          );
          if (Number(locked[0]?.ok) !== 1)
            throw new Error(`another setup of ${table} holds its lock`);
          const [rows] = await conn.query<mysql.RowDataPacket[]>(
            'SELECT ENGINE AS engine, TABLE_COMMENT AS comment FROM information_schema.TABLES ' +
              'WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
            [this.#table(name)],
          );
          const comment = ticketComment(increment, offset);
          const existing = rows[0];
          if (existing === undefined) {
            const start = floor > 0n ? ` AUTO_INCREMENT = ${floor + 1n}` : '';
            await conn.query(
              `CREATE TABLE IF NOT EXISTS ${table} (\n` +
                '  id   BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,\n' +
                '  stub CHAR(1) NOT NULL UNIQUE\n' +
                `) ENGINE = InnoDB${start} COMMENT = '${comment}'`,
            );
          } else {
            if (String(existing.engine).toLowerCase() !== 'innodb') {
              throw new Error(
                `${table} uses the ${existing.engine} engine, which is not crash-safe: a ticket ` +
                  `server must be InnoDB (ALTER TABLE ${table} ENGINE = InnoDB)`,
              );
            }
            if (existing.comment !== comment) {
              const [high] = await conn.query<mysql.RowDataPacket[]>(
                `SELECT MAX(id) AS id FROM ${table}`,
              );
              const last = BigInt(high[0]?.id ?? 0);
              const raise = floor > last ? `, AUTO_INCREMENT = ${floor + 1n}` : '';
              await conn.query(`ALTER TABLE ${table} COMMENT = '${comment}'${raise}`);
            }
          }
          this.#settings.set(name, { increment, offset });
        } finally {
          await conn.query(`SELECT RELEASE_LOCK(${lock})`).catch(() => {});
          conn.release();
        }
      },
      SETUP_BOUND * this.#deadlineMs,
    );
  }

  async next(name: string): Promise<bigint> {
    const table = this.#qualified(name);
    const ticket = await this.#op('next', async () => {
      const s = await this.#settingsOf(name);
      // Reset to the server's globals for a hand-made table: a pooled connection may carry
      // another sequence's session settings.
      const [inc, off] =
        s === null
          ? ['@@GLOBAL.auto_increment_increment', '@@GLOBAL.auto_increment_offset']
          : [s.increment, s.offset];
      const [results] = await this.#query(
        `SET SESSION innodb_lock_wait_timeout = ${this.#lockWaitS}, ` +
          `auto_increment_increment = ${inc}, auto_increment_offset = ${off}; ` +
          `REPLACE INTO ${table} (stub) VALUES ('a'); SELECT LAST_INSERT_ID() AS id`,
        name,
      );
      const rows = (results as unknown[])[2] as mysql.RowDataPacket[];
      return BigInt(rows[0]!.id);
    });
    if (ticket > MAX_SEQUENCE_VALUE) throw new SequenceExhaustedError(name, ticket);
    return ticket;
  }

  async high(name: string): Promise<bigint> {
    const table = this.#qualified(name);
    return this.#op('high', async () => {
      try {
        const [rows] = await this.#pool.query<mysql.RowDataPacket[]>({
          sql: `SELECT MAX(id) AS id FROM ${table}`,
          timeout: this.#queryMs,
        });
        return BigInt(rows[0]?.id ?? 0);
      } catch (e) {
        if (MISSING.has(String(code(e)))) return 0n;
        throw e;
      }
    });
  }

  /**
   * Ends the pool. A server that stopped answering never acknowledges the goodbye, so after
   * the deadline the connections are destroyed instead: close never hangs.
   */
  async close(): Promise<void> {
    if (!this.#owned) return;
    const ended = await settlesWithin(this.#pool.end(), this.#deadlineMs);
    if (!ended) for (const c of this.#connections) c.destroy();
    this.#connections.clear();
  }

  #table(name: string): string {
    return prefixedTicketTable(this.namespace, name, 64);
  }

  #qualified(name: string): string {
    return `\`${this.#table(name)}\``;
  }

  async #settingsOf(name: string): Promise<Settings | null> {
    const cached = this.#settings.get(name);
    if (cached !== undefined) return cached;
    const [rows] = await this.#query(
      'SELECT TABLE_COMMENT AS comment FROM information_schema.TABLES ' +
        'WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
      name,
      [this.#table(name)],
    );
    const row = (rows as mysql.RowDataPacket[])[0];
    if (row === undefined)
      throw notSetUp(this, name, new Error(`no table ${this.#qualified(name)}`));
    const settings = parseTicketComment(String(row.comment));
    this.#settings.set(name, settings);
    return settings;
  }

  /**
   * One query, retried (within the call's deadline) in two cases where nothing was issued:
   * - once on a fresh connection when the first failed at the connection level (a pooled
   *   connection the server closed when it restarted); a REPLACE lost that way may have taken
   *   a ticket nobody sees: a gap, never a duplicate;
   * - up to {@link MAX_DEADLOCK_RETRIES} times when InnoDB chose it as a deadlock victim.
   *   Concurrent REPLACEs of the one stub row deadlock now and then (delete + insert take
   *   next-key and insert-intention locks on the unique index; MyISAM's table lock never did):
   *   the victim is rolled back whole, its auto-increment value is skipped, nothing is issued;
   *   each retry waits a jittered 1-50 ms first.
   */
  async #query(sql: string, name: string, values?: unknown[]) {
    let reconnected = false;
    let pause: Backoff | undefined;
    for (let deadlocks = 0; ; ) {
      try {
        return await this.#pool.query({ sql, values, timeout: this.#queryMs });
      } catch (e) {
        if (MISSING.has(String(code(e)))) throw notSetUp(this, name, e);
        if (code(e) === 'ER_LOCK_DEADLOCK' && deadlocks < MAX_DEADLOCK_RETRIES) {
          deadlocks++;
          this.#deadlockRetries++;
          // Victims that retry at once tend to collide again: a short jittered pause first.
          pause ??= new Backoff({ initialMs: 2, maxMs: 50 });
          const ms = pause.next();
          await new Promise((resolve) => setTimeout(resolve, ms));
        } else if ((e as { fatal?: unknown }).fatal === true && !reconnected) {
          reconnected = true;
        } else {
          throw e;
        }
      }
    }
  }

  #op<T>(operation: string, fn: () => Promise<T>, bound = this.#deadlineMs): Promise<T> {
    return withDeadline(mysqlSite(this.address), operation, bound, fn);
  }
}

/** Opens the ticket server `url` names and checks it answers; as {@link MysqlTicketServer.open}. */
export function openMysqlTicketServer(
  url: string,
  options: MysqlStoreOptions = {},
): Promise<MysqlTicketServer> {
  return MysqlTicketServer.open(url, options);
}
