// The LevelDB engine of `idforge bench db` on a temporary directory: its URL, what it counts as
// someone else's, each key kind loaded and measured, settle compacting nothing by itself, random
// keys costing more compaction than sequential ones, and the marker across a reopen.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { BenchBatch, KeyKind } from '../../packages/idforge/src/bench/ports.js';
import {
  LEVEL_BENCH_MARKER,
  type LevelBenchEngine,
  openLevelBenchEngine,
} from '../../packages/stores/src/leveldb/bench-engine.js';
import {
  compactionDue,
  parseLevelStats,
  parseLevelUrl,
} from '../../packages/stores/src/leveldb/connect.js';
import { mulberry32 } from '../helpers/seeded-random.js';
import { suiteTempDir } from '../helpers/temp.js';

const root = suiteTempDir('idforge-leveldb-bench-');
let n = 0;
/** A new, empty bench directory. */
const freshDir = () => join(root, `bench-${n++}`);

/** The smallest memtable LevelDB allows: flushes every ~64 KiB, so a few MB compact. */
const SMALL = { writeBufferSize: 64 * 1024 };

/** 16 bytes: random (seeded) or a big-endian row number then random bytes (UUIDv7-like order). */
function key16(rand: () => number, row: number, sequential: boolean): Uint8Array {
  const b = Buffer.alloc(16);
  for (let i = 0; i < 16; i += 4) b.writeUInt32BE(rand(), i);
  if (sequential) b.writeBigUInt64BE(BigInt(row), 0);
  return b;
}

function keyOf(kind: KeyKind, rand: () => number, row: number): bigint | Uint8Array | string {
  if (kind === 'int64') return BigInt(rand()) * 2n ** 31n + BigInt(rand() >>> 1);
  const bytes = Buffer.from(key16(rand, row, false));
  if (kind === 'bytes16') return bytes;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Loads `rows` rows in batches of 1000, as the runner does; the payload is 24 characters. */
async function load(
  engine: LevelBenchEngine,
  table: string,
  kind: KeyKind,
  rows: number,
  key: (row: number) => bigint | Uint8Array | string,
): Promise<void> {
  for (let first = 1; first <= rows; first += 1000) {
    const size = Math.min(1000, rows - first + 1);
    const batch: BenchBatch = {
      keys: kind === 'identity' ? null : Array.from({ length: size }, (_, i) => key(first + i)),
      at: new Array(size).fill(1_700_000_000_000),
      n: Array.from({ length: size }, (_, i) => first + i),
      payload: Array.from(
        { length: size },
        (_, i) => `payload-${(first + i).toString(36).padStart(16, '0')}`,
      ),
    };
    await engine.insert(table, kind, batch);
  }
}

const KEY_BYTES: Record<KeyKind, number> = { identity: 8, int64: 8, bytes16: 16, text36: 36 };
const VALUE_BYTES = 8 + 4 + 24;

test('leveldb: URLs name a directory; anything else is a RangeError', async () => {
  assert.equal(parseLevelUrl('leveldb:/tmp/x'), '/tmp/x');
  assert.equal(parseLevelUrl('leveldb:./rel'), './rel');
  assert.equal(parseLevelUrl('leveldb:///tmp/x'), '/tmp/x');
  for (const bad of [
    'leveldb:',
    'leveldb://',
    'sqlite:/tmp/x',
    '/tmp/x',
    'leveldb:/x?sync=1',
    'leveldb:/x#a',
  ]) {
    assert.throws(
      () => parseLevelUrl(bad),
      (e: Error) => e instanceof RangeError && /expected leveldb:DIR/.test(e.message),
      bad,
    );
  }
  await assert.rejects(openLevelBenchEngine('leveldb:'), RangeError);
  await assert.rejects(
    openLevelBenchEngine(`leveldb:${freshDir()}`, { writeBufferSize: 1000 }),
    RangeError,
  );
});

test('leveldb.stats and the compaction rule are read as LevelDB 1.20 writes them', () => {
  const stats = [
    '                               Compactions',
    'Level  Files Size(MB) Time(sec) Read(MB) Write(MB)',
    '--------------------------------------------------',
    '  0        7        2         0        0         5',
    '  1        2        4         0       10        10',
    '',
  ].join('\n');
  assert.deepEqual(parseLevelStats(stats), { read: 10 * 1048576, written: 15 * 1048576 });
  assert.throws(() => parseLevelStats('nonsense'), TypeError);
  assert.equal(compactionDue([[1, 2, 3]]), false);
  assert.equal(compactionDue([[1, 2, 3, 4]]), true);
  assert.equal(compactionDue([[], [10 * 1048576 - 1]]), false);
  assert.equal(compactionDue([[], [], [100 * 1048576]]), true);
});

test('leveldb: foreign objects are every entry but the marker and the tables it lists', async () => {
  const dir = freshDir();
  const engine = await openLevelBenchEngine(`leveldb:${dir}`);
  try {
    assert.equal(engine.address, `leveldb:${dir}`);
    assert.deepEqual(await engine.foreignObjects(), []);
    writeFileSync(join(dir, 'notes.txt'), 'not the bench');
    assert.deepEqual(await engine.foreignObjects(), ['notes.txt']);
    await engine.createTable('idforge_bench_uuidv4', 'bytes16');
    assert.ok(existsSync(join(dir, 'idforge_bench_uuidv4', 'CURRENT')));
    assert.deepEqual(await engine.foreignObjects(), ['notes.txt']);
    // A directory of a table's name the marker does not list is not the bench's to replace.
    mkdirSync(join(dir, 'idforge_bench_ulid'));
    writeFileSync(join(dir, 'idforge_bench_ulid', 'data'), 'theirs');
    await assert.rejects(engine.createTable('idforge_bench_ulid', 'bytes16'), /did not create it/);
    assert.ok(existsSync(join(dir, 'idforge_bench_ulid', 'data')));
    await assert.rejects(engine.dropTable('idforge_bench_ulid'), RangeError);
    await assert.rejects(engine.createTable('../escape', 'bytes16'), RangeError);
  } finally {
    await engine.close();
  }
});

test('leveldb: every key kind loads, settles and measures', async () => {
  const engine = await openLevelBenchEngine(`leveldb:${freshDir()}`, SMALL);
  const rows = 20_000;
  try {
    const settings = await engine.settings();
    assert.match(settings.server, /^LevelDB \(classic-level \d+\.\d+\.\d+\)$/);
    assert.equal(settings.values.write_buffer_size, '65536');
    assert.equal(settings.cacheBytes, 8 * 1048576);
    for (const kind of ['identity', 'int64', 'bytes16', 'text36'] as const) {
      const table = `t_${kind}`;
      await engine.createTable(table, kind);
      const before = await engine.counters(table);
      assert.deepEqual(before, {
        bytesIngested: 0,
        compactionBytesRead: 0,
        compactionBytesWritten: 0,
      });
      const rand = mulberry32(7);
      await load(engine, table, kind, rows, (row) => keyOf(kind, rand, row));
      await engine.settle(table);
      const after = await engine.counters(table);
      assert.equal(after.bytesIngested, rows * (KEY_BYTES[kind] + VALUE_BYTES), kind);
      assert.equal(
        after.compactionBytesWritten! % 1048576,
        0,
        'whole MiB, as leveldb.stats prints',
      );
      const m = await engine.measure(table, kind);
      // Uncompressed: the files hold every byte put, plus LevelDB's 8-byte sequence and framing.
      assert.ok(m.tableBytes! > after.bytesIngested! * 0.8, `${kind}: ${m.tableBytes} bytes`);
      assert.ok(m.tableBytes! < after.bytesIngested! * 3, `${kind}: ${m.tableBytes} bytes`);
      assert.equal(m.primaryIndexBytes, m.tableBytes);
      assert.equal(m.secondaryIndexBytes, null);
      assert.equal(m.primaryLeafPages, null);
      assert.ok(
        m.filesPerLevel!.length >= 1 && m.filesPerLevel!.at(-1)! > 0,
        String(m.filesPerLevel),
      );
      assert.ok(
        m.filesPerLevel![0]! < 4,
        `settled: no level-0 compaction due (${m.filesPerLevel})`,
      );
      assert.match(engine.storage(kind), /byte/);
    }
    await assert.rejects(
      engine.insert('t_int64', 'bytes16', { keys: [], at: [], n: [], payload: [] }),
      RangeError,
    );
    const bad = { keys: [new Uint8Array(15)], at: [0], n: [1], payload: ['x'] };
    await assert.rejects(engine.insert('t_bytes16', 'bytes16', bad), TypeError);
  } finally {
    await engine.close();
  }
});

test('leveldb: settle flushes the memtable and compacts nothing', async () => {
  const engine = await openLevelBenchEngine(`leveldb:${freshDir()}`);
  try {
    await engine.createTable('t', 'identity');
    await load(engine, 't', 'identity', 2000, () => 0n); // ~100 KB: all in the 4 MiB memtable
    assert.equal((await engine.measure('t', 'identity')).tableBytes, 0);
    await engine.settle('t');
    const m = await engine.measure('t', 'identity');
    assert.ok(m.tableBytes! > 2000 * (8 + VALUE_BYTES), String(m.tableBytes));
    assert.equal(
      m.filesPerLevel!.reduce((a, b) => a + b),
      1,
    );
    assert.equal((await engine.counters('t')).compactionBytesRead, 0);
  } finally {
    await engine.close();
  }
});

test('leveldb: random keys cost more compaction than sequential ones (same bytes, seeded)', async () => {
  const engine = await openLevelBenchEngine(`leveldb:${freshDir()}`, SMALL);
  const rows = 40_000; // ~2 MB of rows: ~40 memtable flushes
  const seen: Record<string, { read: number; written: number; levels: readonly number[] }> = {};
  try {
    for (const order of ['sequential', 'random'] as const) {
      await engine.createTable(order, 'bytes16');
      const rand = mulberry32(42);
      await load(engine, order, 'bytes16', rows, (row) => key16(rand, row, order === 'sequential'));
      await engine.settle(order);
      const c = await engine.counters(order);
      assert.equal(c.bytesIngested, rows * (16 + VALUE_BYTES));
      const levels = (await engine.measure(order, 'bytes16')).filesPerLevel!;
      seen[order] = { read: c.compactionBytesRead!, written: c.compactionBytesWritten!, levels };
    }
  } finally {
    await engine.close();
  }
  const { sequential, random } = seen as Record<'sequential' | 'random', (typeof seen)[string]>;
  const why = JSON.stringify(seen);
  // Sequential keys: each flushed memtable overlaps no file, so LevelDB places it at level 2
  // and never merges it: every byte is written once and none is read back.
  assert.deepEqual(sequential.levels.slice(0, 2), [0, 0], why);
  assert.equal(sequential.read, 0, why);
  assert.ok(sequential.written > 0, why);
  // Random keys: every flush overlaps level 1 whole, so each level-0 compaction rewrites it.
  // (Measured: ~5x the bytes written at 40k rows, ~12x at 100k; 3x leaves room for timing.)
  assert.ok(random.levels[1]! > 0, why);
  assert.ok(random.read > 0, why);
  assert.ok(random.written >= 3 * sequential.written, why);
});

test('leveldb: dropTable removes the directory; the marker outlives the engine', async () => {
  const dir = freshDir();
  let engine = await openLevelBenchEngine(`leveldb:${dir}`);
  await engine.createTable('kept', 'int64');
  await engine.createTable('dropped', 'int64');
  await engine.dropTable('dropped');
  assert.ok(!existsSync(join(dir, 'dropped')));
  const marker = JSON.parse(readFileSync(join(dir, LEVEL_BENCH_MARKER), 'utf8'));
  assert.deepEqual(marker.tables, ['kept']);
  const rand = mulberry32(1);
  await load(engine, 'kept', 'int64', 1000, () => keyOf('int64', rand, 0));
  await engine.close();
  await engine.close(); // idempotent

  engine = await openLevelBenchEngine(`leveldb:${dir}`);
  try {
    assert.deepEqual(await engine.foreignObjects(), []);
    assert.ok(existsSync(join(dir, 'kept', 'CURRENT')));
    // A kept run's table is the bench's own: created again, it starts empty.
    await engine.createTable('kept', 'int64');
    assert.equal((await engine.counters('kept')).bytesIngested, 0);
    assert.equal((await engine.measure('kept', 'int64')).tableBytes, 0);
    await engine.dropTable('kept');
    assert.deepEqual(await engine.foreignObjects(), []);
  } finally {
    await engine.close();
  }
  writeFileSync(join(dir, LEVEL_BENCH_MARKER), '{"tables": 3}');
  await assert.rejects(openLevelBenchEngine(`leveldb:${dir}`), /expected \{"format"/);
});
