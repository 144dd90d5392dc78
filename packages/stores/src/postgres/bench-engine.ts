/**
 * PostgreSQL for `idforge bench db`. The bench's tables live in the schema `idforge_bench`
 * (created here, dropped by `close` when no kept table is left in it); every other table of the
 * database is someone else's. Keys: `bigint GENERATED ALWAYS AS IDENTITY`, `bigint`, `uuid`
 * (16 bytes) or `text`. Figures: pg_table_size / pg_relation_size; pgstatindex of the primary
 * key (extension pgstattuple, created in the bench schema when missing and allowed); WAL bytes
 * from the insert LSN and full-page images from pg_stat_wal. Both WAL figures are cluster-wide:
 * run on a server nobody else writes to.
 */

import { formatUuid } from 'idforge';
import type {
  BenchBatch,
  BenchEngine,
  BenchSequence,
  EngineCounters,
  EngineSettings,
  KeyKind,
  TableMeasures,
} from 'idforge/bench';
import type pg from 'pg';
import { BENCH_PREFIX, segmentBenchSequence } from '../bench-sql.js';
import { storeCall } from '../call.js';
import type { PgPool, PgPoolClient } from '../driver-types.js';
import { type CallSite, storeError } from '../store-error.js';
import { connectPostgres } from './connect.js';
import { postgresSite } from './rules.js';
import { PostgresSegmentStore } from './segment-store.js';

const SCHEMA = BENCH_PREFIX;

const COLUMN: Readonly<Record<KeyKind, string>> = {
  identity: 'bigint GENERATED ALWAYS AS IDENTITY',
  int64: 'bigint',
  bytes16: 'uuid',
  text36: 'text',
};

/** Settings the figures depend on, in report order. */
const SETTINGS = [
  'shared_buffers',
  'block_size',
  'checkpoint_timeout',
  'max_wal_size',
  'full_page_writes',
  'wal_compression',
  'wal_level',
  'fsync',
  'synchronous_commit',
  'effective_io_concurrency',
];

/** A statement may run for minutes on a large table (pgstatindex, a checkpoint). */
const STATEMENT_TIMEOUT_MS = 30 * 60_000;

export class PostgresBenchEngine implements BenchEngine {
  readonly engine = 'postgres';
  readonly address: string;
  readonly #pool: pg.Pool;
  readonly #client: pg.PoolClient;
  #statIndex: string | null | undefined = undefined;
  /** The segment table of the `sequence` scheme, in the bench schema (built here, no I/O). */
  readonly #segments: PostgresSegmentStore;

  constructor(pool: PgPool, client: PgPoolClient, address: string) {
    // node-postgres's own types inside (driver-types.ts)
    this.#pool = pool as pg.Pool;
    this.#client = client as pg.PoolClient;
    this.address = address;
    this.#segments = new PostgresSegmentStore({ pool, namespace: SCHEMA, address });
  }

  /** One statement on the engine's own connection (a session setting must stay on it). */
  async #q<R extends pg.QueryResultRow>(op: string, text: string, values?: unknown[]) {
    return (await storeCall(this.#site, op, () => this.#client.query<R>(text, values))).rows;
  }

  get #site(): CallSite {
    return postgresSite(this.address);
  }

  storage(kind: KeyKind): string {
    return COLUMN[kind];
  }

  async settings(): Promise<EngineSettings> {
    const rows = await this.#q<{ name: string; value: string; bytes: string | null }>(
      'settings',
      `SELECT name, current_setting(name) AS value,
              CASE WHEN name = 'shared_buffers' THEN (setting::bigint * 8192)::text END AS bytes
         FROM pg_settings WHERE name = ANY($1)`,
      [SETTINGS],
    );
    const [version] = await this.#q<{ v: string }>(
      'settings',
      "SELECT current_setting('server_version') AS v",
    );
    const values: Record<string, string> = {};
    for (const name of SETTINGS) {
      const row = rows.find((r) => r.name === name);
      if (row) values[name] = row.value;
    }
    const bytes = rows.find((r) => r.name === 'shared_buffers')?.bytes;
    return {
      server: `PostgreSQL ${version?.v ?? '?'}`,
      values,
      cacheBytes: bytes ? Number(bytes) : null,
      cacheName: 'shared_buffers',
    };
  }

  async foreignObjects(): Promise<string[]> {
    const rows = await this.#q<{ name: string }>(
      'inspect',
      `SELECT n.nspname || '.' || c.relname AS name
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r', 'p') AND n.nspname <> $1
          AND n.nspname NOT IN ('pg_catalog', 'information_schema')
          AND n.nspname NOT LIKE 'pg\\_%'
          AND NOT EXISTS (SELECT 1 FROM pg_depend d
                           WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
        ORDER BY 1`,
      [SCHEMA],
    );
    return rows.map((r) => r.name);
  }

  async createTable(table: string, kind: KeyKind): Promise<void> {
    const t = `${SCHEMA}.${table}`;
    await this.#q(
      'create',
      `CREATE SCHEMA IF NOT EXISTS ${SCHEMA};
       DROP TABLE IF EXISTS ${t};
       CREATE TABLE ${t} (id ${COLUMN[kind]} PRIMARY KEY, created_at timestamptz NOT NULL,
                          n integer NOT NULL, payload text NOT NULL);
       CREATE INDEX ${table}_created_at ON ${t} (created_at)`,
    );
    // Each scheme starts from a clean checkpoint, so every load pays the same first full-page
    // images. A role that may not checkpoint (before PostgreSQL 15, not a superuser) skips it.
    await this.#client.query('CHECKPOINT').catch(() => {});
  }

  async insert(table: string, kind: KeyKind, batch: BenchBatch): Promise<void> {
    const size = batch.at.length;
    const withKey = batch.keys !== null;
    const cols = withKey ? 4 : 3;
    const values: unknown[] = new Array(size * cols);
    const tuples: string[] = new Array(size);
    for (let i = 0, p = 0; i < size; i++) {
      const b = p;
      if (withKey) {
        const key = batch.keys![i]!;
        values[p++] = key instanceof Uint8Array ? formatUuid(key) : String(key);
      }
      values[p++] = batch.at[i];
      values[p++] = batch.n[i];
      values[p++] = batch.payload[i];
      tuples[i] = withKey
        ? `($${b + 1},to_timestamp($${b + 2}::float8/1000),$${b + 3},$${b + 4})`
        : `(to_timestamp($${b + 1}::float8/1000),$${b + 2},$${b + 3})`;
    }
    const columns = withKey ? 'id, created_at, n, payload' : 'created_at, n, payload';
    try {
      // A named statement is parsed once per table and batch size, not once per batch.
      await this.#client.query({
        name: `idforge_bench_${table}_${size}_${kind}`,
        text: `INSERT INTO ${SCHEMA}.${table} (${columns}) VALUES ${tuples.join(',')}`,
        values,
      });
    } catch (error) {
      throw storeError(this.#site, 'insert', error);
    }
  }

  async settle(): Promise<void> {
    // This session's WAL statistics reach pg_stat_wal when it next goes idle (PostgreSQL 15+).
    await this.#client.query('SELECT pg_stat_force_next_flush()').catch(() => {});
  }

  async counters(): Promise<EngineCounters> {
    const [row] = await this.#q<{ wal: string; fpi: string | null }>(
      'counters',
      `SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint::text AS wal,
              (SELECT wal_fpi::text FROM pg_stat_wal) AS fpi`,
    );
    const out: Record<string, number> = { walBytes: Number(row!.wal) };
    if (row!.fpi !== null) out.fullPageImages = Number(row!.fpi);
    return out;
  }

  /** The schema of pgstattuple's functions, creating the extension in ours if allowed; null if not. */
  async #pgstattuple(): Promise<string | null> {
    if (this.#statIndex !== undefined) return this.#statIndex;
    const find = async () =>
      (
        await this.#q<{ schema: string }>(
          'measure',
          `SELECT n.nspname AS schema FROM pg_extension e
             JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pgstattuple'`,
        )
      )[0]?.schema;
    let schema = await find();
    if (schema === undefined) {
      await this.#client
        .query(`CREATE EXTENSION IF NOT EXISTS pgstattuple SCHEMA ${SCHEMA}`)
        .catch(() => {});
      schema = await find();
    }
    this.#statIndex = schema ?? null;
    return this.#statIndex;
  }

  async measure(table: string): Promise<TableMeasures> {
    const t = `${SCHEMA}.${table}`;
    const [sizes] = await this.#q<{ heap: string; pk: string; sec: string }>(
      'measure',
      `SELECT pg_table_size($1::regclass)::text AS heap,
              pg_relation_size($2::regclass)::text AS pk,
              pg_relation_size($3::regclass)::text AS sec`,
      [t, `${SCHEMA}.${table}_pkey`, `${SCHEMA}.${table}_created_at`],
    );
    const stat = await this.#pgstattuple();
    let density: number | null = null;
    let fragmentation: number | null = null;
    let leafPages: number | null = null;
    if (stat !== null) {
      const [s] = await this.#q<{ d: number; f: number; l: string }>(
        'measure',
        `SELECT avg_leaf_density AS d, leaf_fragmentation AS f, leaf_pages::text AS l
           FROM "${stat}".pgstatindex($1)`,
        [`${SCHEMA}.${table}_pkey`],
      );
      density = Number.isFinite(s!.d) ? s!.d / 100 : null;
      fragmentation = Number.isFinite(s!.f) ? s!.f / 100 : null;
      leafPages = Number(s!.l);
    }
    return {
      tableBytes: Number(sizes!.heap),
      primaryIndexBytes: Number(sizes!.pk),
      secondaryIndexBytes: Number(sizes!.sec),
      primaryLeafDensity: density,
      primaryLeafFragmentation: fragmentation,
      primaryLeafPages: leafPages,
    };
  }

  async dropTable(table: string): Promise<void> {
    await this.#q('drop', `DROP TABLE IF EXISTS ${SCHEMA}.${table}`);
  }

  async openSequence(tag: string): Promise<BenchSequence> {
    return segmentBenchSequence(this.#segments, tag);
  }

  /**
   * Drops the bench schema (segment table, pgstattuple if created there) unless a kept table is
   * still in it, and ends the connection.
   */
  async close(): Promise<void> {
    try {
      const kept = await this.#q<{ n: string }>(
        'close',
        `SELECT count(*)::text AS n FROM pg_tables
          WHERE schemaname = $1 AND tablename LIKE 'idforge\\_bench\\_%'`,
        [SCHEMA],
      );
      if (kept[0]?.n === '0') await this.#q('close', `DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    } finally {
      this.#client.release();
      await this.#pool.end().catch(() => {});
    }
  }
}

/**
 * Opens the bench on the database of a postgres:// URL. Rejects with `StoreUnavailableError`
 * when it cannot connect, `StoreAuthError` when the login is refused.
 */
export async function openPostgresBenchEngine(url: string): Promise<PostgresBenchEngine> {
  const { pool, address } = await connectPostgres(url, {
    queryTimeoutMs: STATEMENT_TIMEOUT_MS,
    namespace: SCHEMA,
  });
  let client: PgPoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await pool.end().catch(() => {});
    throw storeError(postgresSite(address), 'connect', error);
  }
  return new PostgresBenchEngine(pool, client, address);
}
