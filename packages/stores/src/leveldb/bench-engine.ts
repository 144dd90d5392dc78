/**
 * LevelDB for `idforge bench db` (classic-level). The URL's directory is the bench's: each table
 * is a LevelDB database of its own in DIR/<table>/, so LevelDB's statistics are per scheme, and
 * DIR/idforge-bench.json lists the tables the bench created; every other entry of DIR is
 * someone else's (`foreignObjects`). A row is one put: the key as the kind says (identity: an
 * 8-byte big-endian counter kept here, from 1) and the value 8-byte big-endian timestamp (ms) +
 * 4-byte big-endian int + the payload's bytes. Figures: bytes of the .ldb/.sst files (the table
 * is the key order: no separate index), table files per level, and the bytes compactions and
 * memtable flushes read and wrote (`leveldb.stats`, whole MiB per level).
 */
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  BenchBatch,
  BenchEngine,
  EngineCounters,
  EngineSettings,
  KeyKind,
  TableMeasures,
} from 'idforge/bench';
import type { LevelDatabase } from '../driver-types.js';
import { storeError } from '../store-error.js';
import {
  compactionDue,
  encodeRows,
  type LevelBenchOptions,
  type LevelDriver,
  type LevelOpenOptions,
  levelOpenOptions,
  loadClassicLevel,
  openLevelDb,
  parseLevelBytes,
  parseLevelStats,
  parseLevelUrl,
} from './connect.js';
import { leveldbSite } from './rules.js';

export type { LevelBenchOptions };

/** The file in DIR naming the tables the bench created (JSON: format and tables). */
export const LEVEL_BENCH_MARKER = 'idforge-bench.json';
const MARKER_FORMAT = 'idforge.bench-leveldb/1';

/** Sorts after every key the bench writes: at most 36 bytes, and no run of 0xff past 16 bytes. */
const BEYOND_ALL_KEYS = Buffer.alloc(64, 0xff);
/** `settle` gives up when LevelDB's files stop changing for this long while a compaction is due. */
const STALL_MS = 5 * 60_000;

const STORAGE: Readonly<Record<KeyKind, string>> = {
  identity: '8-byte big-endian key (counter)',
  int64: '8-byte big-endian key',
  bytes16: '16-byte key',
  text36: '36-byte text key',
};

type Db = LevelDatabase;

interface LevelTable {
  readonly db: Db;
  readonly kind: KeyKind;
  readonly dir: string;
  /** The next identity key. */
  next: number;
  /** Bytes of keys and values put so far. */
  ingested: number;
}

/** The bench's directory, used by one caller at a time (as the runner does). */
export class LevelBenchEngine implements BenchEngine {
  readonly engine = 'leveldb' as const;
  readonly address: string;
  readonly #driver: LevelDriver;
  readonly #dir: string;
  readonly #open: LevelOpenOptions;
  readonly #tables = new Map<string, LevelTable>();
  #closed = false;

  /** Use {@link openLevelBenchEngine}, which checks the URL and the directory. */
  constructor(driver: LevelDriver, dir: string, options: LevelBenchOptions = {}) {
    this.#driver = driver;
    this.#dir = dir;
    this.address = `leveldb:${dir}`;
    this.#open = levelOpenOptions(options);
  }

  storage(kind: KeyKind): string {
    return STORAGE[assertKind(kind)];
  }

  async settings(): Promise<EngineSettings> {
    const o = this.#open;
    return {
      server: `LevelDB (classic-level ${this.#driver.version})`,
      values: {
        write_buffer_size: String(o.writeBufferSize),
        max_file_size: String(o.maxFileSize),
        block_size: String(o.blockSize),
        cache_size: String(o.cacheSize),
        compression: 'none',
      },
      cacheBytes: o.cacheSize,
      cacheName: 'block cache',
    };
  }

  /** Entries of DIR other than the marker (and its temporary files) and the tables it lists. */
  async foreignObjects(): Promise<string[]> {
    const own = new Set(await this.#readMarker());
    const names = await this.#fs('list', () => readdir(this.#dir));
    return names
      .filter(
        (n) => !own.has(n) && n !== LEVEL_BENCH_MARKER && !n.startsWith(`${LEVEL_BENCH_MARKER}.`),
      )
      .sort();
  }

  /**
   * Creates DIR/<table> as a new database, replacing one the marker lists (a kept run's). Rejects
   * with an Error, touching nothing, when DIR/<table> exists and the marker does not list it. The
   * table is listed before its directory is made, so a crash leaves nothing unlisted behind.
   */
  async createTable(table: string, kind: KeyKind): Promise<void> {
    if (this.#closed) {
      throw new TypeError('LevelBenchEngine: expected an open engine, got a closed one');
    }
    assertTableName(table);
    assertKind(kind);
    await this.#tables.get(table)?.db.close();
    this.#tables.delete(table);
    const dir = join(this.#dir, table);
    const listed = await this.#readMarker();
    if (!listed.includes(table)) {
      if (await exists(dir)) {
        throw new Error(
          `${this.address}: ${table} exists and the bench did not create it (${LEVEL_BENCH_MARKER} does not list it); remove it or use another directory`,
        );
      }
      await this.#writeMarker([...listed, table]);
    }
    await this.#fs('create', () => rm(dir, { recursive: true, force: true }));
    const db = await this.#fs('create', () => openLevelDb(this.#driver, dir, this.#open));
    this.#tables.set(table, { db, kind, dir, next: 1, ingested: 0 });
  }

  /** Puts the batch's rows in one `db.batch()`. Throws `TypeError`/`RangeError` for a malformed batch. */
  async insert(table: string, kind: KeyKind, batch: BenchBatch): Promise<void> {
    const t = this.#table(table, kind);
    const { ops, bytes } = encodeRows(kind, batch, t.next);
    await this.#fs('insert', () => t.db.batch(ops));
    if (batch.keys === null) t.next += ops.length;
    t.ingested += bytes;
  }

  /**
   * Makes the table's files and counters final, compacting nothing LevelDB would not compact on
   * its own. First the memtable (up to write_buffer_size of the last rows, held in memory and
   * the log only, so in neither the files nor `leveldb.stats`) is flushed as LevelDB flushes a
   * full one, to the level it picks. classic-level's only way to ask for that is compactRange:
   * LevelDB's CompactRange flushes the memtable, then compacts the files overlapping the range;
   * the range here lies beyond every key, so no file overlaps it and no data is compacted. (A
   * close and reopen would flush too, but always to level 0, reset `leveldb.stats`, and abandon
   * a compaction in progress.) Then it waits until no compaction is due by LevelDB's own rule
   * ({@link compactionDue}), polling the file list, so compactions the load caused are counted.
   */
  async settle(table: string): Promise<void> {
    const { db } = this.#table(table);
    await this.#fs('settle', () => db.compactRange(BEYOND_ALL_KEYS, BEYOND_ALL_KEYS));
    let seen = '';
    let since = Date.now();
    for (let pause = 1; ; pause = Math.min(pause * 2, 50)) {
      const files = db.getProperty('leveldb.sstables');
      if (!compactionDue(parseLevelBytes(files))) return;
      if (files !== seen) [seen, since] = [files, Date.now()];
      else if (Date.now() - since > STALL_MS) {
        const why = new Error(`no compaction finished in ${STALL_MS / 1000} s while one is due`);
        throw storeError(leveldbSite(this.address), 'settle', why);
      }
      await sleep(pause);
    }
  }

  /** bytesIngested (keys and values put), compactionBytesRead and -Written since createTable. */
  async counters(table: string): Promise<EngineCounters> {
    const t = this.#table(table);
    const { read, written } = parseLevelStats(t.db.getProperty('leveldb.stats'));
    return {
      bytesIngested: t.ingested,
      compactionBytesRead: read,
      compactionBytesWritten: written,
    };
  }

  /** Bytes of the table files (table and primary index alike) and table files per level. */
  async measure(table: string, kind: KeyKind): Promise<TableMeasures> {
    const t = this.#table(table, kind);
    let bytes = 0;
    for (const name of await this.#fs('measure', () => readdir(t.dir))) {
      if (!/\.(ldb|sst)$/.test(name)) continue;
      // A compaction's inputs may be deleted between readdir and stat: they are no longer the table's.
      bytes += (await stat(join(t.dir, name)).catch(() => null))?.size ?? 0;
    }
    const filesPerLevel: number[] = [];
    for (let level = 0; level <= 6; level++) {
      filesPerLevel.push(Number(t.db.getProperty(`leveldb.num-files-at-level${level}`)));
    }
    while (filesPerLevel.length > 1 && filesPerLevel.at(-1) === 0) filesPerLevel.pop();
    return {
      tableBytes: bytes,
      primaryIndexBytes: bytes,
      secondaryIndexBytes: null,
      primaryLeafDensity: null,
      primaryLeafFragmentation: null,
      primaryLeafPages: null,
      filesPerLevel,
    };
  }

  /** Closes and removes DIR/<table>, then unlists it. `RangeError` for a table the marker does not list. */
  async dropTable(table: string): Promise<void> {
    assertTableName(table);
    const listed = await this.#readMarker();
    if (!listed.includes(table)) {
      throw new RangeError(`dropTable: expected a table the bench created, got "${table}"`);
    }
    await this.#tables.get(table)?.db.close();
    this.#tables.delete(table);
    await this.#fs('drop', () => rm(join(this.#dir, table), { recursive: true, force: true }));
    await this.#writeMarker((await this.#readMarker()).filter((n) => n !== table));
  }

  /** Closes every open table; idempotent. Kept tables stay on disk and listed. */
  async close(): Promise<void> {
    this.#closed = true;
    const dbs = [...this.#tables.values()].map((t) => t.db);
    this.#tables.clear();
    const failed = (await Promise.allSettled(dbs.map((db) => db.close()))).find(
      (r) => r.status === 'rejected',
    );
    if (failed) throw storeError(leveldbSite(this.address), 'close', failed.reason);
  }

  #table(table: string, kind?: KeyKind): LevelTable {
    const t = this.#tables.get(table);
    if (t === undefined)
      throw new RangeError(`expected a table created on this engine, got "${table}"`);
    if (kind !== undefined && kind !== t.kind) {
      throw new RangeError(`${table}: expected key kind ${t.kind} (as created), got ${kind}`);
    }
    return t;
  }

  async #fs<T>(op: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw storeError(leveldbSite(this.address), op, error);
    }
  }

  /** The tables the marker lists ([] when there is no marker). */
  async #readMarker(): Promise<string[]> {
    const path = join(this.#dir, LEVEL_BENCH_MARKER);
    const text = await readFile(path, 'utf8').catch((error: { code?: unknown }) => {
      if (error.code === 'ENOENT') return null;
      throw storeError(leveldbSite(this.address), 'marker', error);
    });
    if (text === null) return [];
    let tables: unknown;
    try {
      const marker = JSON.parse(text) as { format?: unknown; tables?: unknown } | null;
      tables = marker?.format === MARKER_FORMAT ? marker.tables : undefined;
    } catch {}
    if (!Array.isArray(tables) || !tables.every((n) => typeof n === 'string')) {
      const want = `{"format":"${MARKER_FORMAT}","tables":[...]}`;
      throw new Error(`${path}: expected ${want}, got ${text.slice(0, 80)}`);
    }
    return tables;
  }

  /** Replaces the marker atomically: a temporary file renamed over it. */
  async #writeMarker(tables: readonly string[]): Promise<void> {
    const path = join(this.#dir, LEVEL_BENCH_MARKER);
    const tmp = `${path}.${process.pid}.tmp`;
    const text = `${JSON.stringify({ format: MARKER_FORMAT, tables }, null, 2)}\n`;
    await this.#fs('marker', async () => {
      await writeFile(tmp, text);
      await rename(tmp, path);
    });
  }
}

/**
 * Opens the bench's directory of a `leveldb:DIR` URL (see `parseLevelUrl`), creating it when
 * missing. Throws `RangeError` for a malformed URL or option; rejects with `DriverMissingError`
 * when classic-level is not installed, `StoreUnavailableError` when DIR cannot be made or read
 * (or is a file), and an Error when its marker is not the bench's.
 */
export async function openLevelBenchEngine(
  url: string,
  options: LevelBenchOptions = {},
): Promise<LevelBenchEngine> {
  const dir = parseLevelUrl(url);
  const driver = await loadClassicLevel();
  const engine = new LevelBenchEngine(driver, dir, options);
  try {
    await mkdir(dir, { recursive: true });
    if (!(await stat(dir)).isDirectory()) throw new Error(`expected a directory, got a file`);
  } catch (error) {
    throw storeError(leveldbSite(engine.address), 'connect', error);
  }
  await engine.foreignObjects(); // reads the marker: a malformed one fails here, not mid-run
  return engine;
}

function assertKind(kind: KeyKind): KeyKind {
  if (!Object.hasOwn(STORAGE, kind)) {
    throw new RangeError(
      `key kind: expected identity, int64, bytes16 or text36, got ${String(kind)}`,
    );
  }
  return kind;
}

/** A table is a directory name: it must not climb out of DIR or name the marker. */
function assertTableName(table: string): void {
  if (typeof table !== 'string' || !/^[a-z_][a-z0-9_]{0,62}$/.test(table)) {
    throw new RangeError(`table: expected [a-z_][a-z0-9_]* (at most 63), got "${String(table)}"`);
  }
}

async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null)) !== null;
}
