/**
 * What `idforge bench db` needs from a database: one implementation per engine with a bench
 * trait in core/engines.ts, in @idforge/stores' `<engine>/bench-engine.ts` (the only place
 * drivers are imported). The runner
 * (runner.ts) creates one table per key scheme through it, loads rows batch by batch, reads
 * the engine's cumulative counters before and after each load, and measures each table.
 */
import type { EngineWith } from '../core/internal.js';

/** How a scheme's key travels to the engine. */
export type KeyKind =
  /** The engine numbers the rows itself (identity, AUTO_INCREMENT, INTEGER PRIMARY KEY). */
  | 'identity'
  /** A signed 64-bit integer made by idforge (`bigint` values). */
  | 'int64'
  /** 16 bytes in the engine's native form (`uuid`, `BINARY(16)`, BLOB); `Uint8Array` values. */
  | 'bytes16'
  /** The 36-character canonical UUID text (`text`, `CHAR(36)`); `string` values. */
  | 'text36';

/**
 * One batch of rows, column by column (index i of each array is row i). `keys` is null for
 * 'identity'; otherwise it holds `bigint`, `Uint8Array` or `string` values as the kind says.
 * `at` holds epoch milliseconds (the timestamp column), `n` a 32-bit integer, `payload` a
 * short ASCII string.
 */
export interface BenchBatch {
  readonly keys: readonly (bigint | Uint8Array | string)[] | null;
  readonly at: readonly number[];
  readonly n: readonly number[];
  readonly payload: readonly string[];
}

/**
 * What an engine measured of one loaded table. A figure the engine cannot give is null
 * (never 0): a reader must tell "none" from "not measured".
 */
export interface TableMeasures {
  /** Bytes of the table (the heap; in InnoDB the clustered primary index, which holds the rows). */
  readonly tableBytes: number | null;
  /** Bytes of the primary-key index (InnoDB and LevelDB: the same structure as the table). */
  readonly primaryIndexBytes: number | null;
  /** Bytes of the secondary index on the timestamp. */
  readonly secondaryIndexBytes: number | null;
  /** Share of the primary index's leaf pages in use, 0..1 (pgstatindex, dbstat). */
  readonly primaryLeafDensity: number | null;
  /** Share of leaf pages out of key order, 0..1 (pgstatindex's leaf_fragmentation). */
  readonly primaryLeafFragmentation: number | null;
  /** Leaf pages of the primary index. */
  readonly primaryLeafPages: number | null;
  /** LevelDB: table files per level, level 0 first. */
  readonly filesPerLevel?: readonly number[];
}

/**
 * Cumulative counters of the engine (or, for LevelDB, of one table's own database). The
 * runner reads them before and after a load and reports the differences. Names the runner
 * knows: walBytes, fullPageImages (PostgreSQL); redoBytes, pageSplits, pageMerges, pagesRead,
 * pagesWritten (InnoDB); bytesIngested, compactionBytesRead, compactionBytesWritten (LevelDB).
 */
export type EngineCounters = Readonly<Record<string, number>>;

/** The server's settings that the figures depend on, as text, and the cache they imply. */
export interface EngineSettings {
  /** e.g. "PostgreSQL 15.20", "MariaDB 10.11.19", "SQLite 3.50.4", "LevelDB (classic-level 3.0.0)". */
  readonly server: string;
  /** Setting name to value as the server shows it (shared_buffers, innodb_flush_method, ...). */
  readonly values: Readonly<Record<string, string>>;
  /** Bytes of the page cache the indexes compete for (shared_buffers, buffer pool, cache_size). */
  readonly cacheBytes: number | null;
  /** What `cacheBytes` is called on this engine, for the regime line ("shared_buffers"). */
  readonly cacheName: string;
}

/** Where the bench's numbers for the `sequence` scheme come from. */
export interface BenchSequence {
  /** The next `count` numbers, increasing. */
  nextBatch(count: number): Promise<bigint[]>;
  close(): Promise<void>;
}

/**
 * One database opened for the bench. Tables are named by the runner (`idforge_bench_<scheme>`,
 * with `_` for `-`); the engine records every table it creates in a marker of its own so that a
 * later run knows them as its own.
 */
export interface BenchEngine {
  /** Its name in core/engines.ts (an engine with the bench trait: 'postgres', 'leveldb', ...). */
  readonly engine: EngineWith<'bench'>;
  /** The database with its password redacted, for the report and errors. */
  readonly address: string;
  /** The column type a key kind is stored in here ("uuid", "BINARY(16)", "bigint identity"). */
  storage(kind: KeyKind): string;
  settings(): Promise<EngineSettings>;
  /**
   * Tables (or, for LevelDB, files) in the target that the bench did not create: the runner
   * refuses to run while there are any, unless forced.
   */
  foreignObjects(): Promise<string[]>;
  /** Creates (replacing one of its own left by a kept run) the table for a scheme. */
  createTable(table: string, kind: KeyKind): Promise<void>;
  /** Inserts a batch in one multi-row INSERT, in one transaction. */
  insert(table: string, kind: KeyKind, batch: BenchBatch): Promise<void>;
  /** Flushes what the engine buffers so that sizes and counters are final (checkpoint, compaction stats). */
  settle(table: string): Promise<void>;
  counters(table: string): Promise<EngineCounters>;
  measure(table: string, kind: KeyKind): Promise<TableMeasures>;
  dropTable(table: string): Promise<void>;
  /** A sequence of segment-allocated numbers stored in this database; absent where there is none. */
  openSequence?(tag: string): Promise<BenchSequence>;
  close(): Promise<void>;
}
