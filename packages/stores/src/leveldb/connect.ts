/**
 * LevelDB for `idforge bench db` (classic-level), below the engine: `leveldb:DIR` URLs, loading
 * the driver and opening a table's database, a bench row as a LevelDB key and value, and reading
 * what LevelDB says of itself (`leveldb.stats`, `leveldb.sstables`). classic-level is an
 * optional peer dependency: this is the one file that imports it, lazily.
 */
// Buffer is Node's: the declarations name @types/node, for projects whose TypeScript does not
// load it by itself (TypeScript 6 and later default to `types: []`).
/// <reference types="node" preserve="true" />
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ClassicLevel } from 'classic-level';
import type { BenchBatch, KeyKind } from 'idforge/bench';
import { INT64_MAX } from 'idforge/internal';
import { loadDriver } from '../driver.js';
import type { LevelDatabase } from '../driver-types.js';

/**
 * classic-level's `ClassicLevel` class and its version (from its package.json; 'unknown' if
 * unreadable). The class is opaque outside this file, which gives it its own type.
 */
export interface LevelDriver {
  readonly ClassicLevel: abstract new (...args: never[]) => unknown;
  readonly version: string;
}

/**
 * The directory of a `leveldb:DIR` URL (`leveldb://DIR` is tolerated, as `sqlite://` is):
 * `leveldb:/tmp/bench` is `/tmp/bench`, `leveldb:./bench` is relative to the working
 * directory. Throws `RangeError` for another scheme, an empty directory, or a `?` or `#`
 * (no parameters are accepted: a typo must not become part of a directory name).
 */
export function parseLevelUrl(url: string): string {
  if (typeof url !== 'string') {
    throw new TypeError(`store URL: expected a string, got ${typeof url}`);
  }
  const shown = url.length > 80 ? `${url.slice(0, 77)}...` : url;
  const m = /^leveldb:(?:\/\/)?(.*)$/is.exec(url);
  if (m === null || m[1] === '') {
    throw new RangeError(`store URL: expected leveldb:DIR, got "${shown}"`);
  }
  if (/[?#\0]/.test(m[1]!)) {
    throw new RangeError(`store URL: expected leveldb:DIR without parameters, got "${shown}"`);
  }
  return m[1]!;
}

let driver: Promise<LevelDriver> | undefined;

/** classic-level, loaded on first use; `DriverMissingError` ('classic-level') when not installed. */
export function loadClassicLevel(): Promise<LevelDriver> {
  driver ??= loadDriver('classic-level', 'leveldb', () => import('classic-level')).then(
    (mod) => ({ ClassicLevel: mod.ClassicLevel, version: classicLevelVersion() }),
    (error: unknown) => {
      driver = undefined; // installing it later in the same process may still work
      throw error;
    },
  );
  return driver;
}

function classicLevelVersion(): string {
  try {
    const path = createRequire(import.meta.url).resolve('classic-level/package.json');
    const version = (JSON.parse(readFileSync(path, 'utf8')) as { version?: unknown }).version;
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}

const KIB = 1024;
const MIB = 1024 * KIB;

/** Options of the bench's LevelDB databases (see {@link levelOpenOptions}). */
export interface LevelBenchOptions {
  /**
   * Bytes of the memtable, 64 KiB..1 GiB. Default 4 MiB (classic-level's default). A smaller one
   * flushes and compacts sooner: tests use it to see compactions with little data.
   */
  readonly writeBufferSize?: number;
}

/** What every table's database is opened with (the settings the report shows). */
export interface LevelOpenOptions {
  readonly writeBufferSize: number;
  readonly maxFileSize: number;
  readonly blockSize: number;
  readonly cacheSize: number;
  readonly compression: false;
}

/**
 * The open options for `options`: classic-level's defaults, passed explicitly so that the
 * report's settings are what ran whatever a later classic-level defaults to; except compression,
 * off: Snappy would shrink the hex digits of text keys and the repeated payload but not random
 * bytes, and sizes would measure compressibility instead of the key's cost. Throws `RangeError`
 * for a writeBufferSize out of range (LevelDB would silently clamp it).
 */
export function levelOpenOptions(options: LevelBenchOptions = {}): LevelOpenOptions {
  const bytes = options.writeBufferSize ?? 4 * MIB;
  if (!Number.isInteger(bytes) || bytes < 64 * KIB || bytes > 1024 * MIB) {
    throw new RangeError(
      `writeBufferSize: expected an integer from 65536 to 1073741824, got ${bytes}`,
    );
  }
  return {
    writeBufferSize: bytes,
    maxFileSize: 2 * MIB,
    blockSize: 4 * KIB,
    cacheSize: 8 * MIB,
    compression: false,
  };
}

/**
 * Opens a new database in `dir` (which must not hold one: errorIfExists) with buffer keys and
 * values. Rejects with classic-level's error.
 */
export async function openLevelDb(
  driver: LevelDriver,
  dir: string,
  options: LevelOpenOptions,
): Promise<LevelDatabase> {
  // classic-level's own type inside (driver-types.ts)
  const Level = driver.ClassicLevel as unknown as typeof ClassicLevel;
  const db = new Level<Buffer, Buffer>(dir, {
    ...options,
    keyEncoding: 'buffer',
    valueEncoding: 'buffer',
    createIfMissing: true,
    errorIfExists: true,
  });
  await db.open();
  return db;
}

/** A batch as LevelDB puts, and the bytes of its keys and values. */
export interface EncodedRows {
  readonly ops: { type: 'put'; key: Buffer; value: Buffer }[];
  readonly bytes: number;
}

/**
 * The puts of one bench batch. Key: 'identity' an 8-byte big-endian counter from `next` (the
 * caller advances it by the row count), 'int64' the bigint's 8 bytes big-endian (0..2^63-1, so
 * byte order is number order), 'bytes16' a copy of the 16 bytes, 'text36' the 36 ASCII bytes.
 * Value: the timestamp as 8 bytes big-endian, n as 4, then the payload's UTF-8 bytes. Throws
 * `TypeError` for keys of the wrong type or size, `RangeError` for columns of unequal length or
 * a timestamp or n out of range.
 */
export function encodeRows(kind: KeyKind, batch: BenchBatch, next: number): EncodedRows {
  const rows = batch.at.length;
  if (batch.n.length !== rows || batch.payload.length !== rows) {
    throw new RangeError(
      `insert: expected columns of ${rows} rows, got n ${batch.n.length}, payload ${batch.payload.length}`,
    );
  }
  const keys = batch.keys;
  if ((keys === null) !== (kind === 'identity') || (keys !== null && keys.length !== rows)) {
    const want = kind === 'identity' ? 'no keys' : `${rows} keys`;
    throw new TypeError(`insert: expected ${want}, got ${keys === null ? 'none' : keys.length}`);
  }
  const ops: EncodedRows['ops'] = new Array(rows);
  let bytes = 0;
  for (let i = 0; i < rows; i++) {
    const key = keys === null ? counterKey(next + i) : keyBytes(kind, keys[i]);
    const value = rowValue(batch.at[i]!, batch.n[i]!, batch.payload[i]!);
    ops[i] = { type: 'put', key, value };
    bytes += key.length + value.length;
  }
  return { ops, bytes };
}

function counterKey(n: number): Buffer {
  const key = Buffer.allocUnsafe(8);
  key.writeUInt32BE(Math.floor(n / 2 ** 32), 0);
  key.writeUInt32BE(n >>> 0, 4);
  return key;
}

function keyBytes(kind: KeyKind, key: bigint | Uint8Array | string | undefined): Buffer {
  if (kind === 'int64' && typeof key === 'bigint' && key >= 0n && key <= INT64_MAX) {
    const out = Buffer.allocUnsafe(8);
    out.writeBigUInt64BE(key);
    return out;
  }
  if (kind === 'bytes16' && key instanceof Uint8Array && key.length === 16) return Buffer.from(key);
  if (
    kind === 'text36' &&
    typeof key === 'string' &&
    key.length === 36 &&
    /^[\x20-\x7e]*$/.test(key)
  ) {
    return Buffer.from(key, 'latin1');
  }
  const what = {
    int64: 'a bigint from 0 to 2^63-1',
    bytes16: '16 bytes',
    text36: '36 ASCII characters',
  };
  const got =
    key instanceof Uint8Array
      ? `${key.length} bytes`
      : typeof key === 'string'
        ? `"${key.slice(0, 40)}"`
        : String(key);
  throw new TypeError(`${kind} key: expected ${what[kind as keyof typeof what]}, got ${got}`);
}

function rowValue(at: number, n: number, payload: string): Buffer {
  if (!Number.isSafeInteger(at) || !Number.isInteger(n) || n < -(2 ** 31) || n >= 2 ** 31) {
    throw new RangeError(
      `insert: expected an integer ms timestamp and a 32-bit n, got ${at} and ${n}`,
    );
  }
  const size = Buffer.byteLength(payload, 'utf8');
  const value = Buffer.allocUnsafe(12 + size);
  value.writeBigInt64BE(BigInt(at), 0);
  value.writeInt32BE(n, 8);
  value.write(payload, 12, 'utf8');
  return value;
}

/** Cumulative bytes LevelDB's compactions (memtable flushes included) read and wrote. */
export interface LevelCompactionBytes {
  readonly read: number;
  readonly written: number;
}

/**
 * Sums the Read(MB) and Write(MB) columns of `leveldb.stats` over the levels, in bytes. LevelDB
 * prints them as whole MB (`%9.0f`), so each level's figure is exact to ±0.5 MiB only. The
 * figures are cumulative since the database was opened; a flush counts as a write at the level
 * it went to. Throws `TypeError` when the text is not that table.
 */
export function parseLevelStats(stats: string): LevelCompactionBytes {
  const lines = stats.split('\n');
  const head = lines.findIndex((l) =>
    /^Level\s+Files\s+Size\(MB\)\s+Time\(sec\)\s+Read\(MB\)\s+Write\(MB\)/.test(l),
  );
  if (head < 0) {
    throw new TypeError(
      `leveldb.stats: expected the compaction table, got "${stats.slice(0, 80)}"`,
    );
  }
  let read = 0;
  let written = 0;
  for (const line of lines.slice(head + 2)) {
    const m = /^\s*\d+\s+\d+\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+([\d.]+)\s*$/.exec(line);
    if (m === null) continue;
    read += Number(m[1]) * MIB;
    written += Number(m[2]) * MIB;
  }
  return { read, written };
}

/**
 * Bytes of table files per level (index = level) from `leveldb.sstables`, whose lines are
 * `--- level N ---` followed by ` NUMBER:SIZE[smallest .. largest]` (keys escaped, one line each).
 */
export function parseLevelBytes(sstables: string): number[][] {
  const levels: number[][] = [];
  let current: number[] | undefined;
  for (const line of sstables.split('\n')) {
    const level = /^--- level (\d+) ---$/.exec(line);
    if (level !== null) {
      current = [];
      levels[Number(level[1])] = current;
      continue;
    }
    const file = /^ \d+:(\d+)\[/.exec(line);
    if (file !== null && current !== undefined) current.push(Number(file[1]));
  }
  return levels;
}

/** LevelDB's level-0 trigger: 4 files (kL0_CompactionTrigger, db/dbformat.h). */
const L0_TRIGGER = 4;

/**
 * Whether LevelDB (1.20, as classic-level 3 builds it) has a size compaction due, by its own
 * rule (VersionSet::Finalize): level 0 holding 4 files or more, or level N in 1..5 holding
 * 10 MiB × 10^(N-1) bytes or more. While one is due a background compaction runs or is about to;
 * when none is due and no memtable awaits its flush, LevelDB starts none until the next write
 * (seek-triggered compactions come from reads, which the bench does not do).
 */
export function compactionDue(levels: readonly (readonly number[] | undefined)[]): boolean {
  if ((levels[0]?.length ?? 0) >= L0_TRIGGER) return true;
  for (let level = 1; level <= 5; level++) {
    const bytes = (levels[level] ?? []).reduce((a, b) => a + b, 0);
    if (bytes >= 10 * MIB * 10 ** (level - 1)) return true;
  }
  return false;
}
