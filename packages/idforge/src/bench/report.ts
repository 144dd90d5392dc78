/**
 * The report of `idforge bench db`, written as report.json (this shape, documented in
 * docs/benchmarks.md) beside report.md and the SVG charts. Figures an engine does not give are
 * null. Sizes are bytes, times seconds, densities 0..1.
 */
import type { EngineWith } from '../core/internal.js';

/** The key schemes the bench compares. */
export const BENCH_SCHEMES = [
  'bigint',
  'sequence',
  'snowflake',
  'uuidv7',
  'ulid',
  'uuidv4',
  'uuidv4-text',
  'uuidv7-text',
  'uuidv1-swap',
] as const;

export type BenchScheme = (typeof BENCH_SCHEMES)[number];

/** The figures of one scheme's table. */
export interface SchemeResult {
  readonly scheme: BenchScheme;
  /** The column type the key was stored in ("uuid", "BINARY(16)", "CHAR(36)", "bigint identity"). */
  readonly storage: string;
  /** The table's name (dropped at the end unless --keep). */
  readonly table: string;
  readonly rows: number;
  /** Wall time of the load: generating keys and inserting, all batches. */
  readonly loadSeconds: number;
  /** rows / loadSeconds. */
  readonly rowsPerSecond: number;
  /** Insert rate over each tenth of the load, in order (10 values; fewer for tiny loads). */
  readonly rowsPerSecondByTenth: readonly number[];
  readonly tableBytes: number | null;
  readonly primaryIndexBytes: number | null;
  readonly secondaryIndexBytes: number | null;
  readonly primaryLeafDensity: number | null;
  readonly primaryLeafFragmentation: number | null;
  readonly primaryLeafPages: number | null;
  /** PostgreSQL: WAL bytes written during the load (LSN difference). */
  readonly walBytes: number | null;
  /** PostgreSQL: full-page images written to the WAL during the load (pg_stat_wal). */
  readonly fullPageImages: number | null;
  /** InnoDB: redo log bytes written during the load. */
  readonly redoBytes: number | null;
  /** InnoDB: index page splits and successful merges during the load (INNODB_METRICS). */
  readonly pageSplits: number | null;
  readonly pageMerges: number | null;
  /** InnoDB: pages read from and written to disk during the load. */
  readonly pagesRead: number | null;
  readonly pagesWritten: number | null;
  /** LevelDB: bytes of keys and values handed to the engine. */
  readonly bytesIngested: number | null;
  /** LevelDB: bytes written by flushes and compactions (the engine's own statistics). */
  readonly compactionBytesWritten: number | null;
  /** LevelDB: compactionBytesWritten / bytesIngested. */
  readonly writeAmplification: number | null;
  /** LevelDB: table files per level after the load, level 0 first. */
  readonly filesPerLevel: readonly number[] | null;
  /**
   * Keys that sorted below a key generated before them: inserts that did not land at the right
   * edge of the index. 0 for keys that are time-ordered within one generator.
   */
  readonly orderInversions: number;
}

/** report.json. */
export interface DbBenchReport {
  /** "idforge.bench-db/1": bumped when a field changes meaning. */
  readonly format: 'idforge.bench-db/1';
  readonly idforgeVersion: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly engine: EngineWith<'bench'>;
  /** The database, password redacted. */
  readonly address: string;
  readonly server: string;
  /** The server settings the figures depend on, as the server shows them. */
  readonly settings: Readonly<Record<string, string>>;
  readonly cacheBytes: number | null;
  /** One line: whether the primary indexes fit the cache, since the ratios depend on it. */
  readonly regime: string;
  readonly rows: number;
  readonly batch: number;
  readonly schemes: readonly SchemeResult[];
}
