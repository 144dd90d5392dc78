/**
 * MariaDB and MySQL (InnoDB) for `idforge bench db`. The bench's tables are the database's
 * tables named idforge_bench_*; every other table is someone else's. Keys: `BIGINT
 * AUTO_INCREMENT`, `BIGINT`, `BINARY(16)` or `CHAR(36)` (ASCII). In InnoDB the primary key is
 * the clustered index that holds the rows, so the table and its primary index are one
 * structure: both sizes report it. Figures: index sizes and leaf pages from the persistent
 * statistics (after ANALYZE TABLE); page splits and merges from INNODB_METRICS (the counters
 * are enabled for the run and disabled again by `close` if they were off); pages read and
 * written and redo bytes (the LSN) from the global status. All counters are server-wide: run
 * on a server nobody else writes to.
 */
import type {
  BenchBatch,
  BenchEngine,
  BenchSequence,
  EngineCounters,
  EngineSettings,
  KeyKind,
  TableMeasures,
} from 'idforge/bench';
import { BENCH_PREFIX, segmentBenchSequence } from '../bench-sql.js';
import { connectMysql, type MysqlPool } from './connect.js';
import { MysqlSegmentStore } from './segment-store.js';

const COLUMN: Readonly<Record<KeyKind, string>> = {
  identity: 'BIGINT AUTO_INCREMENT',
  int64: 'BIGINT',
  bytes16: 'BINARY(16)',
  text36: 'CHAR(36) CHARACTER SET ascii',
};

const SETTINGS = [
  'innodb_buffer_pool_size',
  'innodb_page_size',
  'innodb_flush_method',
  'innodb_log_file_size',
  'innodb_flush_log_at_trx_commit',
  'innodb_doublewrite',
  'innodb_change_buffering',
  'innodb_io_capacity',
  'innodb_stats_persistent',
];

/** INNODB_METRICS counters: report name to metric name. */
const METRICS: Readonly<Record<string, string>> = {
  pageSplits: 'index_page_splits',
  pageMerges: 'index_page_merge_successful',
};

const STATUS: Readonly<Record<string, string>> = {
  pagesRead: 'Innodb_pages_read',
  pagesWritten: 'Innodb_pages_written',
  redoBytes: 'Innodb_lsn_current',
};

const STATEMENT_TIMEOUT_MS = 30 * 60_000;

/** A literal safe to splice: the bench's own payload and UUID text ([0-9a-z-]). */
function quoted(text: string): string {
  if (!/^[\w-]*$/.test(text)) throw new RangeError(`expected [A-Za-z0-9_-] text, got "${text}"`);
  return `'${text}'`;
}

function literal(key: bigint | Uint8Array | string): string {
  if (typeof key === 'bigint') return key.toString();
  if (typeof key === 'string') return quoted(key);
  return `X'${Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('hex')}'`;
}

export class MysqlBenchEngine implements BenchEngine {
  readonly engine = 'mysql';
  readonly address: string;
  readonly #db: MysqlPool;
  /** Metrics this run switched on, to switch off at close. */
  readonly #enabled: string[] = [];
  #pageSize = 16384;
  /** The segment table of the `sequence` scheme, in the bench's namespace (built here, no I/O). */
  readonly #segments: MysqlSegmentStore;

  constructor(db: MysqlPool) {
    this.#db = db;
    this.address = db.address;
    this.#segments = new MysqlSegmentStore(db);
  }

  storage(kind: KeyKind): string {
    return COLUMN[kind].replace(' CHARACTER SET ascii', '');
  }

  async settings(): Promise<EngineSettings> {
    const rows = await this.#db.rows<{ Variable_name: string; Value: string }>(
      'settings',
      `SHOW GLOBAL VARIABLES WHERE Variable_name IN (${SETTINGS.map(quoted).join(',')})`,
    );
    const [v] = await this.#db.rows<{ v: string }>('settings', 'SELECT VERSION() AS v');
    const values: Record<string, string> = {};
    for (const name of SETTINGS) {
      const row = rows.find((r) => r.Variable_name === name);
      if (row) values[name] = row.Value;
    }
    this.#pageSize = Number(values.innodb_page_size ?? 16384);
    const version = v?.v ?? '?';
    const pool = values.innodb_buffer_pool_size;
    return {
      server: `${/mariadb/i.test(version) ? 'MariaDB' : 'MySQL'} ${version}`,
      values,
      cacheBytes: pool === undefined ? null : Number(pool),
      cacheName: 'the buffer pool',
    };
  }

  async foreignObjects(): Promise<string[]> {
    const [db] = await this.#db.rows<{ d: string | null }>('inspect', 'SELECT DATABASE() AS d');
    if (!db?.d) {
      throw new RangeError(
        `store URL: expected a database in the URL (mysql://user@host/bench), got ${this.address}`,
      );
    }
    const rows = await this.#db.rows<{ t: string }>(
      'inspect',
      `SELECT table_name AS t FROM information_schema.tables
        WHERE table_schema = DATABASE() AND table_name NOT LIKE 'idforge\\_bench\\_%'
        ORDER BY 1`,
    );
    return rows.map((r) => r.t);
  }

  async createTable(table: string, kind: KeyKind): Promise<void> {
    await this.#db.query('create', `DROP TABLE IF EXISTS ${table}`);
    await this.#db.query(
      'create',
      `CREATE TABLE ${table} (id ${COLUMN[kind]} NOT NULL PRIMARY KEY,
         created_at DATETIME(3) NOT NULL, n INT NOT NULL, payload VARCHAR(64) NOT NULL,
         KEY ${table}_created_at (created_at)) ENGINE=InnoDB STATS_PERSISTENT=1`,
    );
    await this.#enableMetrics();
  }

  async #enableMetrics(): Promise<void> {
    const names = Object.values(METRICS);
    const rows = await this.#db.rows<{ name: string; on: string }>(
      'metrics',
      `SELECT LOWER(name) AS name, (ENABLED + 0) AS \`on\` FROM information_schema.INNODB_METRICS
        WHERE LOWER(name) IN (${names.map(quoted).join(',')})`,
    );
    for (const row of rows) {
      if (Number(row.on) === 1 || this.#enabled.includes(row.name)) continue;
      // Needs SUPER (or SYSTEM_VARIABLES_ADMIN); without it the split figures stay null.
      const ok = await this.#db
        .query('metrics', `SET GLOBAL innodb_monitor_enable = ${quoted(row.name)}`)
        .then(
          () => true,
          () => false,
        );
      if (ok) this.#enabled.push(row.name);
    }
  }

  async insert(table: string, kind: KeyKind, batch: BenchBatch): Promise<void> {
    const size = batch.at.length;
    const tuples: string[] = new Array(size);
    const keys = batch.keys;
    for (let i = 0; i < size; i++) {
      const rest = `FROM_UNIXTIME(${batch.at[i]! / 1000}),${batch.n[i]},${quoted(batch.payload[i]!)}`;
      tuples[i] = keys === null ? `(${rest})` : `(${literal(keys[i]!)},${rest})`;
    }
    const columns = kind === 'identity' ? 'created_at, n, payload' : 'id, created_at, n, payload';
    // One multi-row INSERT, its own transaction (autocommit).
    await this.#db.query('insert', `INSERT INTO ${table} (${columns}) VALUES ${tuples.join(',')}`);
  }

  async settle(table: string): Promise<void> {
    await this.#db.query('measure', `ANALYZE TABLE ${table}`);
  }

  async counters(): Promise<EngineCounters> {
    const out: Record<string, number> = {};
    const metrics = await this.#db.rows<{ name: string; count: string; on: string }>(
      'counters',
      `SELECT LOWER(name) AS name, count, (ENABLED + 0) AS \`on\`
         FROM information_schema.INNODB_METRICS
        WHERE LOWER(name) IN (${Object.values(METRICS).map(quoted).join(',')})`,
    );
    for (const [key, name] of Object.entries(METRICS)) {
      const row = metrics.find((m) => m.name === name);
      if (row !== undefined && Number(row.on) === 1) out[key] = Number(row.count);
    }
    const status = await this.#db.rows<{ Variable_name: string; Value: string }>(
      'counters',
      `SHOW GLOBAL STATUS WHERE Variable_name IN (${Object.values(STATUS).map(quoted).join(',')})`,
    );
    for (const [key, name] of Object.entries(STATUS)) {
      const row = status.find((s) => s.Variable_name === name);
      if (row !== undefined) out[key] = Number(row.Value);
    }
    return out;
  }

  async measure(table: string): Promise<TableMeasures> {
    const stats = await this.#db.rows<{
      index_name: string;
      stat_name: string;
      stat_value: string;
    }>(
      'measure',
      `SELECT index_name, stat_name, stat_value FROM mysql.innodb_index_stats
        WHERE database_name = DATABASE() AND table_name = ? AND stat_name IN ('size', 'n_leaf_pages')`,
      [table],
    );
    const pages = (index: string, stat: string) => {
      const row = stats.find((s) => s.index_name === index && s.stat_name === stat);
      return row === undefined ? null : Number(row.stat_value);
    };
    const bytes = (p: number | null) => (p === null ? null : p * this.#pageSize);
    const primary = bytes(pages('PRIMARY', 'size'));
    return {
      tableBytes: primary,
      primaryIndexBytes: primary,
      secondaryIndexBytes: bytes(pages(`${table}_created_at`, 'size')),
      primaryLeafDensity: null,
      primaryLeafFragmentation: null,
      primaryLeafPages: pages('PRIMARY', 'n_leaf_pages'),
    };
  }

  async dropTable(table: string): Promise<void> {
    await this.#db.query('drop', `DROP TABLE IF EXISTS ${table}`);
  }

  async openSequence(tag: string): Promise<BenchSequence> {
    return segmentBenchSequence(this.#segments, tag);
  }

  /**
   * Switches off the metrics this run switched on, drops the segment table unless a kept
   * table of the bench is left, and ends the pool.
   */
  async close(): Promise<void> {
    try {
      for (const name of this.#enabled.splice(0)) {
        await this.#db.query('close', `SET GLOBAL innodb_monitor_disable = ${quoted(name)}`);
      }
      const kept = await this.#db.rows<{ t: string }>(
        'close',
        `SELECT table_name AS t FROM information_schema.tables
          WHERE table_schema = DATABASE() AND table_name LIKE 'idforge\\_bench\\_%'
            AND table_name <> ?`,
        [`${BENCH_PREFIX}_segments`],
      );
      if (kept.length === 0) {
        await this.#db.query('close', `DROP TABLE IF EXISTS ${BENCH_PREFIX}_segments`);
      }
    } finally {
      await this.#db.end().catch(() => {});
    }
  }
}

/**
 * Opens the bench on the database of a mysql:// URL (MariaDB or MySQL). Rejects with
 * `StoreUnavailableError` when it cannot connect, `StoreAuthError` when the login is refused.
 */
export async function openMysqlBenchEngine(url: string): Promise<MysqlBenchEngine> {
  const db = await connectMysql(
    url,
    { namespace: BENCH_PREFIX, queryTimeoutMs: STATEMENT_TIMEOUT_MS },
    { multipleStatements: true },
  );
  return new MysqlBenchEngine(db);
}
