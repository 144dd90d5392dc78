/**
 * {@link SegmentStore} on MariaDB or MySQL (mysql2): segment sequences ("号段") shared by every
 * process and host that reaches the server, as in Meituan Leaf.
 *
 *   <namespace>_segments(tag VARBINARY(512) PRIMARY KEY, max_id BIGINT, step INT,
 *                        description VARCHAR(256), updated_at_ms BIGINT)   InnoDB, utf8mb4
 *
 * Atomicity: a take is one transaction sent in one round trip:
 *
 *   START TRANSACTION;
 *   UPDATE t SET max_id = max_id + s WHERE tag = ? AND max_id <= 2^63 - 1 - s;
 *   SELECT max_id, s FROM t WHERE tag = ?;
 *   COMMIT
 *
 * with s = GREATEST(step, requested). The UPDATE locks the tag's row until COMMIT, so the
 * SELECT reads this take's own max_id and step, whatever other processes and hosts do;
 * concurrent takes queue on the row lock. The exhaustion test subtracts: the SQL never
 * computes past 2^63 - 1. A take that fails mid-way (the connection is then destroyed and the
 * server rolls back) or times out may have moved max_id: those numbers are skipped, never
 * reissued.
 *
 * The tag is compared as its UTF-8 bytes (VARBINARY), as SQLite and PostgreSQL compare it:
 * case-sensitive and with trailing spaces significant. A `_bin` collation would not do: MySQL
 * and MariaDB's `utf8mb4_bin` is PAD SPACE, so `padA` and `padA ` were one tag (creating the
 * second failed with TAG_EXISTS, drawing from it drew from the first). `migrate()` converts a
 * table created with the old VARCHAR column (the bytes are kept).
 *
 * Durability is the server's: a take that the client saw committed survives a crash only with
 * `innodb_flush_log_at_trx_commit = 1` (the default) and, with replication, `sync_binlog = 1`.
 *
 * `updated_at_ms` is the client's clock (MariaDB before 11.5 cannot compute unix times past
 * 2038 on the server). Every driver, connection or SQL error rejects with
 * `StoreUnavailableError` ('mysql', redacted URL, operation, cause) within the connect
 * timeout plus the statement timeout. Safe to share within a process.
 */
import { assertNumber } from 'idforge/internal';
import {
  assertTag,
  type CreateTagOptions,
  MAX_SEQUENCE_VALUE,
  type Segment,
  type SegmentStore,
  type SegmentTag,
  SequenceExhaustedError,
  TagExistsError,
  UnknownTagError,
} from 'idforge/sequences';
import { callerAddress } from '../owned.js';
import {
  assertTablePrefix,
  checkCreate,
  checkStoredStep,
  DEFAULT_SEGMENT_NAMESPACE,
  requestedStep,
  type SegmentRow,
  segmentOf,
  tagOf,
} from '../segment-args.js';
import {
  assertMysqlPoolSettings,
  connectMysql,
  type MysqlClientOptions,
  MysqlPool,
  type MysqlStoreOptions,
} from './connect.js';

const COLUMNS = 'tag, max_id, step, description, updated_at_ms';

/** MySQL's error number for a duplicate key. */
const ER_DUP_ENTRY = 1062;

function segmentSql(namespace: string) {
  const t = `\`${namespace}_segments\``;
  const used = 'GREATEST(step, ?)';
  return {
    schema: `
CREATE TABLE IF NOT EXISTS ${t} (
  tag           VARBINARY(512) NOT NULL,
  max_id        BIGINT       NOT NULL,
  step          INT          NOT NULL,
  description   VARCHAR(256) NOT NULL DEFAULT '',
  updated_at_ms BIGINT       NOT NULL,
  PRIMARY KEY (tag),
  CONSTRAINT ${namespace}_segments_max_id CHECK (max_id >= 0),
  CONSTRAINT ${namespace}_segments_step CHECK (step >= 1)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    /** tag, max_id, step, description, now. */
    create: `INSERT INTO ${t} (${COLUMNS}) VALUES (?, ?, ?, ?, ?)`,
    /** requested, now, tag, requested, requested, tag. Four results: the UPDATE's is [1]. */
    take: `START TRANSACTION;
UPDATE ${t} SET max_id = max_id + ${used}, updated_at_ms = ?
WHERE tag = ? AND max_id <= ${MAX_SEQUENCE_VALUE} - ${used};
SELECT max_id, ${used} AS used FROM ${t} WHERE tag = ?;
COMMIT`,
    /**
     * step, now, tag, tag. Four results: the SELECT's is [2] (no row: unknown tag). The
     * UPDATE locks the row until COMMIT, so the SELECT reads this call's own step.
     */
    setStep: `START TRANSACTION;
UPDATE ${t} SET step = ?, updated_at_ms = ? WHERE tag = ?;
SELECT ${COLUMNS} FROM ${t} WHERE tag = ?;
COMMIT`,
    /** tag. */
    get: `SELECT ${COLUMNS} FROM ${t} WHERE tag = ?`,
    list: `SELECT ${COLUMNS} FROM ${t} ORDER BY tag`,
    /** table name: the tag column's type (varbinary once migrated). */
    tagType: `SELECT DATA_TYPE AS t FROM information_schema.columns
WHERE table_schema = DATABASE() AND table_name = ? AND column_name = 'tag'`,
    noPad: `ALTER TABLE ${t} MODIFY tag VARBINARY(512) NOT NULL`,
  };
}

type TakeResult = [unknown, { affectedRows: number }, { max_id: string; used: string }[], unknown];

/**
 * The segment store on MariaDB or MySQL (a mysql2/promise pool). Two ways to build it, as every
 * idforge store: on the application's own client, `new MysqlSegmentStore({ pool, namespace })`,
 * which `close()` leaves open (the caller closes it); or from a URL with {@link
 * openMysqlSegmentStore}, whose client the store opened and `close()` closes.
 */
export class MysqlSegmentStore implements SegmentStore {
  readonly backend = 'mysql';
  readonly address: string;
  /** The table-name prefix: the table is `<namespace>_segments`. */
  readonly namespace: string;
  readonly #db: MysqlPool;
  readonly #sql: ReturnType<typeof segmentSql>;
  readonly #now: () => number;

  /**
   * A store on `options.pool`, the caller's (see {@link MysqlClientOptions}), or on a
   * {@link MysqlPool} that {@link openMysqlSegmentStore} opened: `close()` ends only the latter.
   * The pool must allow multiple statements; `now` is the clock of `updated_at_ms`. Throws
   * `RangeError` for a malformed namespace or a pool without the settings it needs.
   */
  constructor(options: MysqlClientOptions | MysqlPool, now: () => number = Date.now) {
    const db = options instanceof MysqlPool ? options : callerPool(options);
    this.#db = db;
    this.#sql = segmentSql(db.namespace);
    this.address = db.address;
    this.namespace = db.namespace;
    this.#now = now;
  }

  /**
   * Creates the table (InnoDB), or converts an older table's tag column to VARBINARY.
   * Idempotent; never run by the other methods.
   */
  async migrate(): Promise<void> {
    await this.#db.query('migrate', this.#sql.schema);
    const [column] = (await this.#db.query('migrate', this.#sql.tagType, [
      `${this.namespace}_segments`,
    ])) as { t: string }[];
    if (column !== undefined && column.t.toLowerCase() !== 'varbinary') {
      await this.#db.query('migrate', this.#sql.noPad);
    }
  }

  /** See {@link SegmentStore.createTag}; `RangeError`/`TypeError` for bad arguments. */
  async createTag(tag: string, options: CreateTagOptions): Promise<SegmentTag> {
    const c = checkCreate(tag, options);
    const now = this.#now();
    return this.#db.withConnection('createTag', async (query) => {
      try {
        await query(this.#sql.create, [tag, c.maxId, c.step, c.description, now]);
      } catch (error) {
        if ((error as { errno?: unknown }).errno === ER_DUP_ENTRY) throw new TagExistsError(tag);
        throw error;
      }
      return { tag, maxId: c.maxId, step: c.step, description: c.description, updatedAtMs: now };
    });
  }

  /** See {@link SegmentStore.takeSegment}; `RangeError`/`TypeError` for bad arguments. */
  async takeSegment(tag: string, step?: number): Promise<Segment> {
    assertTag(tag);
    const n = requestedStep(step);
    const [, update, rows] = (await this.#db.query('takeSegment', this.#sql.take, [
      n,
      this.#now(),
      tag,
      n,
      n,
      tag,
    ])) as TakeResult;
    const row = rows[0];
    if (row === undefined) throw new UnknownTagError(tag, this.backend);
    if (update.affectedRows !== 1) throw new SequenceExhaustedError(tag, BigInt(row.max_id));
    return segmentOf(tag, BigInt(row.max_id), BigInt(row.used));
  }

  /**
   * See {@link SegmentStore.setStep}: an UPDATE and a SELECT in one transaction, one round
   * trip; `RangeError`/`TypeError` for bad arguments.
   */
  async setStep(tag: string, step: number): Promise<SegmentTag> {
    const checked = checkStoredStep(tag, step);
    const [, , rows] = (await this.#db.query('setStep', this.#sql.setStep, [
      checked,
      this.#now(),
      tag,
      tag,
    ])) as [unknown, unknown, SegmentRow[], unknown];
    const row = rows[0];
    if (row === undefined) throw new UnknownTagError(tag, this.backend);
    return tagOfBinary(row);
  }

  async getTag(tag: string): Promise<SegmentTag | null> {
    assertTag(tag);
    const [row] = (await this.#db.query('getTag', this.#sql.get, [tag])) as SegmentRow[];
    return row === undefined ? null : tagOfBinary(row);
  }

  /** Every tag, ordered by name (byte order of UTF-8, which is code point order). */
  async listTags(): Promise<SegmentTag[]> {
    return ((await this.#db.query('listTags', this.#sql.list)) as SegmentRow[]).map(tagOfBinary);
  }

  /** Ends the pool (waiting for calls in flight). Idempotent. */
  close(): Promise<void> {
    return this.#db.end();
  }
}

/** A row whose tag came back as the VARBINARY column's bytes. */
function tagOfBinary(row: SegmentRow): SegmentTag {
  const tag = row.tag as unknown;
  return tagOf(
    tag instanceof Uint8Array ? { ...row, tag: Buffer.from(tag).toString('utf8') } : row,
  );
}

/**
 * Connects to MariaDB or MySQL (`mysql://user@host:port/database[?namespace=NAME]`, the
 * namespace prefixes the table, default `idforge`) and checks that the server answers; creates
 * nothing (call `migrate()`, as `idforge migrate --store URL` does). Throws `RangeError` for a
 * malformed URL, namespace or option; rejects with `StoreUnavailableError` ('mysql', redacted
 * URL, 'connect') when the server cannot be reached within `connectTimeoutMs` (default 5000).
 */
export async function openMysqlSegmentStore(
  url: string,
  options: MysqlStoreOptions = {},
): Promise<SegmentStore> {
  return new MysqlSegmentStore(await connectMysql(url, options, { multipleStatements: true }));
}

/** The caller's pool, checked and wrapped; never ended by the store. */
function callerPool(options: MysqlClientOptions): MysqlPool {
  assertMysqlPoolSettings(options.pool);
  const connectMs = Math.ceil(
    assertNumber('connectTimeoutMs', options.connectTimeoutMs ?? 5000, 1),
  );
  const queryMs = Math.ceil(assertNumber('queryTimeoutMs', options.queryTimeoutMs ?? connectMs, 1));
  return new MysqlPool(
    options.pool,
    callerAddress('mysql', options.address),
    assertTablePrefix(options.namespace ?? DEFAULT_SEGMENT_NAMESPACE),
    { connectMs, queryMs },
    false,
  );
}
