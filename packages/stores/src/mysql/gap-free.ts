/**
 * {@link GapFreeStore} on MariaDB or MySQL: gap-free business numbers taken inside the caller's
 * own transaction (idforge/sequences' gap-free.ts).
 *
 *   <namespace>_gap_free(tag VARBINARY(512), period VARCHAR(10), last BIGINT,
 *                        PRIMARY KEY (tag, period))   InnoDB
 *
 * `increment(conn, tag, period)`, on the caller's connection after its `START TRANSACTION`:
 *
 *   SET @idforge_lwt = @@SESSION.innodb_lock_wait_timeout, SESSION innodb_lock_wait_timeout = s
 *   UPDATE t SET last = LAST_INSERT_ID(last + 1) WHERE tag = ? AND period = ?
 *   SET SESSION innodb_lock_wait_timeout = @idforge_lwt
 *
 * The UPDATE's row lock is held until the caller's COMMIT or ROLLBACK; the new value comes back
 * in the statement's own result (`LAST_INSERT_ID(expr)` sets its insert id), so no second
 * statement reads it. A period's row is created before the transaction touches it, on the
 * store's own pool (autocommit `SELECT`, then `INSERT IGNORE` at 0 when missing; remembered
 * per process): created inside the caller's transaction, InnoDB's gap locks on the missing key
 * would make two first writers of a period deadlock. A row at 0 holds no number, so creating it
 * outside changes nothing a rollback must undo. The wait is bounded by
 * `innodb_lock_wait_timeout` (whole seconds, rounded up from `lockTimeoutMs`), put back after;
 * a timeout (1205) is `GapFreeTimeoutError` (InnoDB rolled back the statement, not the
 * transaction: roll it back). Other failures are `StoreUnavailableError`.
 *
 * A connection outside any transaction is refused (`TypeError`) before the row is touched or
 * created: its number would commit alone, and the caller's rollback could not give it back.
 * The first statement's OK packet tells (the server's status flags: in a transaction, or
 * autocommit off, where every statement is in one). A row at 2^63 - 1 has no next number:
 * the BIGINT overflow (1690) is `GapFreeExhaustedError`.
 */
import type { GapFreeStore } from 'idforge/sequences';
import { GapFreeExhaustedError, GapFreeTimeoutError } from 'idforge/sequences';
import type { MysqlPromisePool, MysqlQuery } from '../driver-types.js';
import { checkGapFreeKey, lockTimeoutOf, outsideTransaction } from '../gap-free-args.js';
import { callerAddress } from '../owned.js';
import { assertTablePrefix, DEFAULT_SEGMENT_NAMESPACE } from '../segment-args.js';
import { storeError } from '../store-error.js';
import { mysqlSite } from './rules.js';

/** The caller's connection inside its transaction (a mysql2/promise connection). */
export interface MysqlTransactionConnection {
  query(options: MysqlQuery, values?: unknown): Promise<unknown>;
}

/** Options of {@link MysqlGapFreeStore}. */
export interface MysqlGapFreeOptions {
  /** A mysql2/promise pool: `migrate()`, `last()` and a period's row creation run on it. */
  readonly pool: MysqlPromisePool;
  /** The table-name prefix: `<namespace>_gap_free`. Default `idforge`. */
  readonly namespace?: string;
  readonly address?: string;
  /** The longest `increment` waits for another transaction's lock (rounded up to seconds). Default 5000. */
  readonly lockTimeoutMs?: number;
}

/** MySQL's error number for a lock wait timeout. */
const ER_LOCK_WAIT_TIMEOUT = 1205;
/** MySQL's error number for a value out of its type's range (`last + 1` past 2^63 - 1). */
const ER_DATA_OUT_OF_RANGE = 1690;
/** The server status flags of an OK packet: in a transaction, autocommit on. */
const SERVER_STATUS_IN_TRANS = 1;
const SERVER_STATUS_AUTOCOMMIT = 2;

function gapFreeSql(namespace: string) {
  const t = `\`${namespace}_gap_free\``;
  return {
    schema: `CREATE TABLE IF NOT EXISTS ${t} (
  tag    VARBINARY(512) NOT NULL,
  period VARCHAR(10)    NOT NULL,
  last   BIGINT         NOT NULL,
  PRIMARY KEY (tag, period)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    timeout:
      'SET @idforge_lwt = @@SESSION.innodb_lock_wait_timeout, SESSION innodb_lock_wait_timeout = ?',
    restore: 'SET SESSION innodb_lock_wait_timeout = @idforge_lwt',
    bump: `UPDATE ${t} SET last = LAST_INSERT_ID(last + 1) WHERE tag = ? AND period = ?`,
    // As text: mysql2 reads a BIGINT as a JavaScript number, exact only up to 2^53.
    exists: `SELECT CAST(last AS CHAR) AS last FROM ${t} WHERE tag = ? AND period = ?`,
    create: `INSERT IGNORE INTO ${t} (tag, period, last) VALUES (?, ?, 0)`,
  };
}

type Header = { affectedRows: number; insertId: number | string; serverStatus?: number };

/** Whether the server said the connection is in a transaction (or has autocommit off). */
function inTransaction(header: Header): boolean {
  const status = header.serverStatus ?? 0;
  return (status & SERVER_STATUS_IN_TRANS) !== 0 || (status & SERVER_STATUS_AUTOCOMMIT) === 0;
}

export class MysqlGapFreeStore implements GapFreeStore<MysqlTransactionConnection> {
  readonly backend = 'mysql';
  readonly address: string;
  readonly namespace: string;
  /** The effective timeout: whole seconds. */
  readonly lockTimeoutMs: number;
  readonly #pool: MysqlPromisePool;
  readonly #sql: ReturnType<typeof gapFreeSql>;
  /** Rows known to exist (created or seen by this store). */
  readonly #known = new Set<string>();

  /** Throws `RangeError` for a bad namespace or lock timeout; `close()` leaves the pool open. */
  constructor(options: MysqlGapFreeOptions) {
    this.namespace = assertTablePrefix(options.namespace ?? DEFAULT_SEGMENT_NAMESPACE);
    this.#sql = gapFreeSql(this.namespace);
    this.lockTimeoutMs = Math.ceil(lockTimeoutOf(options.lockTimeoutMs) / 1000) * 1000;
    this.address = callerAddress('mysql', options.address);
    this.#pool = options.pool;
  }

  async #onPool(operation: string, sql: string, values: unknown[] = []): Promise<unknown> {
    try {
      return ((await this.#pool.query({ sql }, values)) as unknown[])[0];
    } catch (error) {
      throw storeError(mysqlSite(this.address), operation, error);
    }
  }

  async migrate(): Promise<void> {
    await this.#onPool('gap-free migrate', this.#sql.schema);
  }

  async #ensureRow(tag: string, period: string): Promise<void> {
    const key = `${tag}\u0000${period}`;
    if (this.#known.has(key)) return;
    const rows = (await this.#onPool('gap-free create', this.#sql.exists, [tag, period])) as [];
    if (rows.length === 0) await this.#onPool('gap-free create', this.#sql.create, [tag, period]);
    this.#known.add(key);
  }

  /** See {@link GapFreeStore.increment}; `tx` is the caller's connection inside its transaction. */
  async increment(tx: MysqlTransactionConnection, tag: string, period: string): Promise<bigint> {
    checkGapFreeKey(tag, period);
    if (typeof tx?.query !== 'function') {
      throw new TypeError(
        'tx: expected a mysql2/promise connection inside a transaction, got none',
      );
    }
    const q = async (sql: string, values: unknown[]) =>
      ((await tx.query({ sql }, values)) as unknown[])[0];
    try {
      const set = (await q(this.#sql.timeout, [this.lockTimeoutMs / 1000])) as Header;
      if (!inTransaction(set)) {
        await q(this.#sql.restore, []);
        throw outsideTransaction('a mysql2/promise connection', 'START TRANSACTION (or BEGIN)');
      }
      await this.#ensureRow(tag, period);
      const header = (await q(this.#sql.bump, [tag, period])) as Header;
      await q(this.#sql.restore, []);
      if (header.affectedRows !== 1) throw new Error(`the row of ${tag} ${period} is missing`);
      return BigInt(header.insertId);
    } catch (error) {
      throw await this.#failure(error, tag, period, () => q(this.#sql.restore, []));
    }
  }

  /** The typed error of a failed increment; the lock wait timeout put back first when it can be. */
  async #failure(error: unknown, tag: string, period: string, restore: () => Promise<unknown>) {
    if (error instanceof TypeError) return error;
    const errno = (error as { errno?: unknown })?.errno;
    if (errno === ER_LOCK_WAIT_TIMEOUT || errno === ER_DATA_OUT_OF_RANGE) {
      await restore().catch(() => undefined);
      return errno === ER_DATA_OUT_OF_RANGE
        ? new GapFreeExhaustedError(tag, period, this.backend, error)
        : new GapFreeTimeoutError(tag, period, this.backend, this.lockTimeoutMs, error);
    }
    return storeError(mysqlSite(this.address), 'gap-free increment', error);
  }

  async last(tag: string, period: string): Promise<bigint> {
    checkGapFreeKey(tag, period);
    const rows = (await this.#onPool('gap-free last', this.#sql.exists, [tag, period])) as {
      last: string | number;
    }[];
    return rows[0] === undefined ? 0n : BigInt(rows[0].last);
  }

  /** Nothing to end: the pool is the caller's. */
  async close(): Promise<void> {}
}
