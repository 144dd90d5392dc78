/**
 * {@link SegmentStore} on PostgreSQL (node-postgres): segment sequences ("号段") shared by every
 * process and host that reaches the server.
 *
 *   <namespace>.segments(tag varchar(128) PRIMARY KEY, max_id bigint, step integer,
 *                        description varchar(256), updated_at_ms bigint)
 *
 * Atomicity: a take is one autocommit statement, `UPDATE ... SET max_id = max_id + s WHERE tag
 * = $1 AND max_id <= 2^63 - 1 - s RETURNING max_id, s` with s = GREATEST(step, requested).
 * Concurrent takes of one tag queue on the row lock, and each re-reads the row's latest
 * committed version before moving it (READ COMMITTED re-checks the WHERE clause), so no two
 * ever get overlapping blocks. The exhaustion test subtracts instead of adding: the SQL never
 * computes a value past 2^63 - 1. Commits are synchronous (`synchronous_commit = on`, see
 * ./connect.ts): a block is handed out only once its new max_id is in the WAL, so a server crash
 * cannot make the next take return it again.
 *
 * `updated_at_ms` is the server's clock (unix ms) at the last create, take or setStep. Numbers travel
 * as decimal strings, never through a double. Every driver, connection or SQL error rejects
 * with `StoreUnavailableError` ('postgres', redacted URL, operation, cause) within the pool's
 * connect timeout plus the statement timeout; a take that times out may still have moved
 * max_id on the server (those numbers are skipped, never reissued). Safe to share in a process.
 */

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
import type { Ownership } from '../owned.js';
import {
  checkCreate,
  checkStoredStep,
  requestedStep,
  type SegmentRow,
  segmentOf,
  tagOf,
} from '../segment-args.js';
import type { PostgresClientOptions, PostgresStoreOptions } from './connect.js';
import { NOW_MS, quoteNamespace } from './schema.js';
import { openPostgresStore, PostgresStore } from './store.js';

const COLUMNS =
  'tag, max_id::text AS max_id, step, description, updated_at_ms::text AS updated_at_ms';

/** The statements of one namespace; `$n::type` casts keep every parameter exact. */
function segmentSql(namespace: string) {
  const ns = quoteNamespace(namespace);
  const table = `${ns}.segments`;
  const used = 'GREATEST(step, $2::bigint)';
  return {
    schema: `
CREATE SCHEMA IF NOT EXISTS ${ns};
CREATE TABLE IF NOT EXISTS ${table} (
  tag           varchar(128) PRIMARY KEY,
  max_id        bigint       NOT NULL CHECK (max_id >= 0),
  step          integer      NOT NULL CHECK (step >= 1),
  description   varchar(256) NOT NULL DEFAULT '',
  updated_at_ms bigint       NOT NULL
);`,
    /** $1 namespace: the lock every idforge migration of the namespace takes. */
    migrateLock: `SELECT pg_advisory_xact_lock(hashtext('idforge.migrate'), hashtext($1::text))`,
    /** $1 tag, $2 max_id, $3 step, $4 description. No row: the tag exists. */
    create: `
INSERT INTO ${table} (tag, max_id, step, description, updated_at_ms)
VALUES ($1::text, $2::bigint, $3::integer, $4::text, ${NOW_MS})
ON CONFLICT (tag) DO NOTHING
RETURNING ${COLUMNS}`,
    /** $1 tag, $2 requested step. No row: unknown tag or exhausted. */
    take: `
UPDATE ${table} SET max_id = max_id + ${used}, updated_at_ms = ${NOW_MS}
WHERE tag = $1::text AND max_id <= ${MAX_SEQUENCE_VALUE} - ${used}
RETURNING max_id::text AS max_id, ${used}::text AS used`,
    /** $1 tag, $2 step. No row: unknown tag. max_id is left as it is. */
    setStep: `
UPDATE ${table} SET step = $2::integer, updated_at_ms = ${NOW_MS}
WHERE tag = $1::text
RETURNING ${COLUMNS}`,
    /** $1 tag. */
    get: `SELECT ${COLUMNS} FROM ${table} WHERE tag = $1::text`,
    list: `SELECT ${COLUMNS} FROM ${table} ORDER BY tag COLLATE "C"`,
  };
}

/**
 * The segment store on PostgreSQL (a node-postgres `pg.Pool`). Two ways to build it, as every
 * idforge store: on the application's own client, `new PostgresSegmentStore({ pool, namespace })`,
 * which `close()` leaves open (the caller closes it); or from a URL with {@link
 * openPostgresSegmentStore}, whose client the store opened and `close()` closes.
 */
export class PostgresSegmentStore extends PostgresStore implements SegmentStore {
  readonly #sql: ReturnType<typeof segmentSql>;

  /**
   * A store on `options.pool`, the caller's (see {@link PostgresClientOptions}): `close()`
   * leaves that pool open, unless the store's opener made it. Throws `RangeError` when the
   * namespace is not a valid schema name (see quoteNamespace).
   */
  constructor(options: PostgresClientOptions & Ownership) {
    super(options);
    this.#sql = segmentSql(this.namespace);
  }

  /**
   * Creates the schema and the table. Idempotent; concurrent migrations (of this and the other
   * idforge stores in the namespace) take turns on one advisory lock, since `CREATE ... IF NOT
   * EXISTS` alone races. Never run by the other methods.
   */
  migrate(): Promise<void> {
    return this.db.migrate(this.#sql.migrateLock, [this.namespace], this.#sql.schema);
  }

  /** See {@link SegmentStore.createTag}; `RangeError`/`TypeError` for bad arguments. */
  async createTag(tag: string, options: CreateTagOptions): Promise<SegmentTag> {
    const c = checkCreate(tag, options);
    const [row] = await this.db.rows<SegmentRow>('createTag', this.#sql.create, [
      tag,
      c.maxId.toString(),
      c.step,
      c.description,
    ]);
    if (row === undefined) throw new TagExistsError(tag);
    return tagOf(row);
  }

  /** See {@link SegmentStore.takeSegment}; `RangeError`/`TypeError` for bad arguments. */
  async takeSegment(tag: string, step?: number): Promise<Segment> {
    assertTag(tag);
    const requested = requestedStep(step);
    const [row] = await this.db.rows<{ max_id: string; used: string }>(
      'takeSegment',
      this.#sql.take,
      [tag, requested],
    );
    if (row !== undefined) return segmentOf(tag, BigInt(row.max_id), BigInt(row.used));
    const [current] = await this.db.rows<SegmentRow>('takeSegment', this.#sql.get, [tag]);
    if (current === undefined) throw new UnknownTagError(tag, this.backend);
    throw new SequenceExhaustedError(tag, BigInt(current.max_id));
  }

  /** See {@link SegmentStore.setStep}: one autocommit UPDATE; `RangeError`/`TypeError` for bad arguments. */
  async setStep(tag: string, step: number): Promise<SegmentTag> {
    const checked = checkStoredStep(tag, step);
    const [row] = await this.db.rows<SegmentRow>('setStep', this.#sql.setStep, [tag, checked]);
    if (row === undefined) throw new UnknownTagError(tag, this.backend);
    return tagOf(row);
  }

  async getTag(tag: string): Promise<SegmentTag | null> {
    assertTag(tag);
    const [row] = await this.db.rows<SegmentRow>('getTag', this.#sql.get, [tag]);
    return row === undefined ? null : tagOf(row);
  }

  /** Every tag, ordered by name (byte order, as on the other backends). */
  async listTags(): Promise<SegmentTag[]> {
    return (await this.db.rows<SegmentRow>('listTags', this.#sql.list)).map(tagOf);
  }
}

/**
 * Connects to PostgreSQL (`postgres://user@host:port/db[?namespace=NAME]`, the namespace is
 * the schema, default `idforge`) and checks that the server answers; creates nothing (call
 * `migrate()`, as `idforge migrate --store URL` does). Throws `RangeError` for a malformed URL,
 * namespace or option; rejects with `StoreUnavailableError` ('postgres', redacted URL,
 * 'connect') when the server cannot be reached within `connectTimeoutMs` (default 5000).
 */
export function openPostgresSegmentStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<SegmentStore> {
  return openPostgresStore(PostgresSegmentStore, url, options);
}
