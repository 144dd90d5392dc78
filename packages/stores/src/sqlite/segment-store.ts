/**
 * {@link SegmentStore} on SQLite (better-sqlite3): the embedded default, for every process of
 * one host sharing a database file (not for several hosts: SQLite on a network file system
 * does not lock reliably).
 *
 *   <namespace>_segments(tag TEXT PRIMARY KEY, max_id INTEGER, step INTEGER,
 *                        description TEXT, updated_at_ms INTEGER)      namespace default idforge
 *
 * Atomicity: a take is `UPDATE ... SET max_id = max_id + s WHERE tag = ? AND max_id <= 2^63 - 1
 * - s RETURNING max_id, s` (s = max(step, requested)) inside a `BEGIN IMMEDIATE` transaction,
 * which takes the database's write lock first: one writer at a time across processes, the
 * others wait up to the busy timeout (then `StoreUnavailableError`). The exhaustion test
 * subtracts, so SQLite never computes past 2^63 - 1. The database runs in WAL mode with
 * `synchronous = FULL` (./connect.ts): a take is on disk before its block is returned.
 *
 * 64-bit columns are read with `safeIntegers` (as bigint), never through a double.
 * `updated_at_ms` is this host's clock. The methods are synchronous underneath and return
 * settled promises; safe to share within a process.
 */
import type Database from 'better-sqlite3';
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
import type { Ownership } from '../owned.js';
import {
  checkCreate,
  checkStoredStep,
  requestedStep,
  type SegmentRow,
  segmentOf,
  tagOf,
} from '../segment-args.js';
import type { SqliteClientOptions } from './connect.js';
import { openSqliteStore, type SqliteOpenOptions, SqliteStore } from './store.js';

/** The DDL of a namespace's table; idempotent. */
function schemaOf(table: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${table} (
  tag           TEXT    PRIMARY KEY CHECK (length(tag) BETWEEN 1 AND 128),
  max_id        INTEGER NOT NULL CHECK (max_id >= 0),
  step          INTEGER NOT NULL CHECK (step BETWEEN 1 AND 2147483647),
  description   TEXT    NOT NULL DEFAULT '',
  updated_at_ms INTEGER NOT NULL
);`;
}

const COLUMNS = 'tag, max_id, step, description, updated_at_ms';

/** The prepared statements of one table; the take runs in a BEGIN IMMEDIATE transaction. */
function prepareStatements(db: Database.Database, t: string) {
  const used = 'max(step, @requested)';
  const take = db.prepare(`
UPDATE ${t} SET max_id = max_id + ${used}, updated_at_ms = @now
WHERE tag = @tag AND max_id <= ${MAX_SEQUENCE_VALUE} - ${used}
RETURNING max_id, ${used} AS used`);
  const create = db.prepare(`
INSERT INTO ${t} (tag, max_id, step, description, updated_at_ms)
VALUES (@tag, @maxId, @step, @description, @now)
ON CONFLICT (tag) DO NOTHING
RETURNING ${COLUMNS}`);
  const setStep = db.prepare(`
UPDATE ${t} SET step = @step, updated_at_ms = @now WHERE tag = @tag
RETURNING ${COLUMNS}`);
  const get = db.prepare(`SELECT ${COLUMNS} FROM ${t} WHERE tag = ?`);
  const list = db.prepare(`SELECT ${COLUMNS} FROM ${t} ORDER BY tag`);
  for (const s of [take, create, setStep, get, list]) s.safeIntegers(true);
  const takeTx = db.transaction((tag: string, requested: bigint, now: number): Segment => {
    const row = take.get({ tag, requested, now }) as { max_id: bigint; used: bigint } | undefined;
    if (row !== undefined) return segmentOf(tag, row.max_id, row.used);
    const current = get.get(tag) as SegmentRow | undefined;
    if (current === undefined) throw new UnknownTagError(tag, 'sqlite');
    throw new SequenceExhaustedError(tag, BigInt(current.max_id));
  });
  return { take: takeTx.immediate, create, setStep, get, list };
}

type Statements = ReturnType<typeof prepareStatements>;

/**
 * The segment store on SQLite (a better-sqlite3 `Database`). Two ways to build it, as every idforge
 * store: on the application's own client, `new SqliteSegmentStore({ database, namespace })`, which
 * `close()` leaves open (the caller closes it); or from a URL with {@link openSqliteSegmentStore},
 * whose client the store opened and `close()` closes.
 */
export class SqliteSegmentStore extends SqliteStore implements SegmentStore {
  readonly #db: Database.Database;
  /** The table: `<namespace>_segments`. */
  readonly #table: string;
  readonly #now: () => number;
  /** Prepared on first use: preparing needs the table, which only migrate() creates. */
  #statements: Statements | null = null;

  /**
   * A store on `options.database`, the caller's (see {@link SqliteClientOptions}): `close()`
   * leaves that database open, unless the store's opener made it. `now` is the clock of
   * `updated_at_ms` (default `Date.now`). Throws `RangeError` when `namespace` is not
   * `[a-z_][a-z0-9_]*` of at most 31 characters.
   */
  constructor(options: SqliteClientOptions & Ownership) {
    super(options);
    this.#table = `${this.namespace}_segments`;
    this.#db = options.database as Database.Database; // its own type inside (driver-types.ts)
    this.#now = options.now ?? Date.now;
  }

  /** {@link SqliteStore.run} of `fn` on the prepared statements (prepared on first use). */
  #run<T>(operation: string, fn: (s: Statements) => T): Promise<T> {
    return this.run(operation, () => {
      this.#statements ??= prepareStatements(this.#db, this.#table);
      return fn(this.#statements);
    });
  }

  /** Creates the table. Idempotent; never run by the other methods. */
  migrate(): Promise<void> {
    return this.run('migrate', () => {
      this.#db.exec(schemaOf(this.#table));
    });
  }

  /** See {@link SegmentStore.createTag}; `RangeError`/`TypeError` for bad arguments. */
  async createTag(tag: string, options: CreateTagOptions): Promise<SegmentTag> {
    const c = checkCreate(tag, options);
    return this.#run('createTag', (s) => {
      const row = s.create.get({ tag, ...c, now: this.#now() }) as SegmentRow | undefined;
      if (row === undefined) throw new TagExistsError(tag);
      return tagOf(row);
    });
  }

  /** See {@link SegmentStore.takeSegment}; `RangeError`/`TypeError` for bad arguments. */
  async takeSegment(tag: string, step?: number): Promise<Segment> {
    assertTag(tag);
    const requested = BigInt(requestedStep(step));
    return this.#run('takeSegment', (s) => s.take(tag, requested, this.#now()));
  }

  /** See {@link SegmentStore.setStep}: one UPDATE ... RETURNING; `RangeError`/`TypeError` for bad arguments. */
  async setStep(tag: string, step: number): Promise<SegmentTag> {
    const checked = checkStoredStep(tag, step);
    return this.#run('setStep', (s) => {
      const row = s.setStep.get({ tag, step: checked, now: this.#now() }) as SegmentRow | undefined;
      if (row === undefined) throw new UnknownTagError(tag, this.backend);
      return tagOf(row);
    });
  }

  async getTag(tag: string): Promise<SegmentTag | null> {
    assertTag(tag);
    return this.#run('getTag', (s) => {
      const row = s.get.get(tag) as SegmentRow | undefined;
      return row === undefined ? null : tagOf(row);
    });
  }

  /** Every tag, ordered by name (byte order of UTF-8). */
  listTags(): Promise<SegmentTag[]> {
    return this.#run('listTags', (s) => (s.list.all() as SegmentRow[]).map(tagOf));
  }

  /** Closes the database. Idempotent. */
  close(): Promise<void> {
    if (this.owned && this.#db.open) this.#db.close();
    return Promise.resolve();
  }
}

/**
 * Opens (creating the file if missing, unless `create` is false; `onCreate` is told) the SQLite database of a `sqlite:PATH` URL; creates no
 * table (call `migrate()`, as `idforge migrate --store URL` does). `connectTimeoutMs` (default
 * 5000) is the busy timeout: how long a call waits for another process's write lock before
 * rejecting with `StoreUnavailableError`. `namespace` prefixes the table (default `idforge`).
 * Throws `RangeError` for a malformed URL or namespace; rejects with `StoreUnavailableError`
 * ('sqlite', path, 'connect') when the file cannot be opened.
 */
export async function openSqliteSegmentStore(
  url: string,
  options: SqliteOpenOptions & { readonly connectTimeoutMs?: number } = {},
): Promise<SegmentStore> {
  const busyTimeoutMs = () => assertNumber('connectTimeoutMs', options.connectTimeoutMs ?? 5000, 0);
  return openSqliteStore(SqliteSegmentStore, url, options, busyTimeoutMs, false);
}
