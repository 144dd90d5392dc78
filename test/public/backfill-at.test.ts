// Backdated backfills (issue 22 §3): `runBackfill` with `atColumn` on the real engines fills a
// UUIDv7 or ULID column from each row's own time, so ORDER BY the new column is ORDER BY the
// time: rows inserted in an order unrelated to their time, a hundred of them sharing one
// timestamp, microseconds where the engine keeps them. Refusals (no such column, not a time,
// rows without a time) change nothing. One run through the CLI's --at-column.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { seededRandom, ulidTimestamp } from '../../packages/idforge/src/core/index.js';
import {
  BackfillTableError,
  runBackfill,
  ulidAtValues,
  uuidv7AtValues,
} from '../../packages/idforge/src/public/index.js';
import { openBackfillTarget } from '../../packages/stores/src/index.js';
import { backfillSuite, type Engine, engineSkip, openTestDb } from '../helpers/backfill-db.js';
import { cli } from '../helpers/cli.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-backfill-at-');

const ROWS = 800;
/** 2026-12-03T12:00:00Z in µs; rows spread over 200 ms, so several share a millisecond. */
const BASE_US = 1_796_299_200_000_000;

/** Per engine: the time column's type, its resolution in µs, and how a time is written. */
const TIME: Record<Engine, { type: string; stepUs: number; literal: (us: number) => string }> = {
  postgres: { type: 'timestamptz', stepUs: 1, literal: (us) => `'${iso(us, 6)}'` },
  mysql: {
    type: 'DATETIME(6)',
    stepUs: 1,
    literal: (us) => `'${iso(us, 6).replace('T', ' ').slice(0, -1)}'`,
  },
  sqlite: { type: 'TEXT', stepUs: 1000, literal: (us) => `'${iso(us, 3)}'` },
};

/** ISO 8601 in UTC with `digits` fraction digits (3 or 6). */
function iso(us: number, digits: number): string {
  const ms = Math.floor(us / 1000);
  const frac = String(us % 1_000_000)
    .padStart(6, '0')
    .slice(0, digits);
  return `${new Date(ms).toISOString().slice(0, 19)}.${frac}Z`;
}

/**
 * Times of `ROWS` rows in the engine's resolution: ids in a shuffled order against time, and
 * rows 100..199 all at one instant. Seeded: the same table every run.
 */
function times(stepUs: number): Map<number, number> {
  const random = seededRandom(22);
  const bytes = new Uint8Array(4);
  const next = () => {
    random.fill(bytes);
    return new DataView(bytes.buffer).getUint32(0) / 2 ** 32;
  };
  const out = new Map<number, number>();
  const shared = BASE_US + 300_000;
  for (let id = 1; id <= ROWS; id++) {
    const us = id >= 100 && id < 200 ? shared : BASE_US + Math.floor(next() * 200_000);
    out.set(id, us - (us % stepUs));
  }
  return out;
}

/** The rows as [time µs, value] ordered by the value (bytes as hex, or text), as ORDER BY does. */
function byValue(values: Map<string, string | null>, at: Map<number, number>) {
  return [...values]
    .map(([id, v]) => ({ us: at.get(Number(id))!, v: v! }))
    .sort((a, b) => (a.v < b.v ? -1 : a.v > b.v ? 1 : 0));
}

for (const engine of ['sqlite', 'postgres', 'mysql'] as const) {
  describe(`backdated backfill on ${engine}`, async () => {
    const skip = await engineSkip(engine);
    const { type, stepUs, literal } = TIME[engine];
    const at = times(stepUs);
    const bf = backfillSuite(engine, join(dir, 'app.db'), skip);
    const seed = async (name: string, nulls = 0) => {
      const t = `idf_bfat_${name}_${process.pid}`;
      bf.made.push(t);
      await bf.db.exec(`DROP TABLE IF EXISTS ${t}`);
      await bf.db.exec(
        `CREATE TABLE ${t} (id ${bf.db.bigint} PRIMARY KEY, created_at ${type} NULL)`,
      );
      const tuples = [...at].map(([id, us]) => `(${id}, ${id <= nulls ? 'NULL' : literal(us)})`);
      await bf.db.exec(`INSERT INTO ${t} (id, created_at) VALUES ${tuples.join(',')}`);
      return t;
    };

    test('UUIDv7 from created_at: each value at its row time, ORDER BY uid = ORDER BY created_at', {
      skip,
    }, async () => {
      const table = await seed('v7');
      const report = await runBackfill(bf.target, {
        table,
        column: 'uid',
        values: uuidv7AtValues(),
        atColumn: 'created_at',
        batch: 97,
      });
      assert.equal(report.complete, true);
      assert.equal(report.filled, ROWS);
      const values = await bf.db.values(table, 'uid');
      const rows = byValue(values, at);
      assert.equal(new Set(rows.map((r) => r.v)).size, ROWS, 'every value distinct');
      for (const { us, v } of rows) {
        const hex = v.replaceAll('-', '');
        assert.equal(Number.parseInt(hex.slice(0, 12), 16), Math.floor(us / 1000), v);
        assert.equal(hex[12], '7', 'version 7');
      }
      for (let i = 1; i < rows.length; i++) {
        assert.ok(rows[i - 1]!.us <= rows[i]!.us, `row ${i} sorts before an earlier time`);
      }
      const shared = rows.filter((r) => r.us === BASE_US + 300_000);
      assert.equal(shared.length, 100, 'the hundred rows of one instant are all there, distinct');
      assert.equal(
        (await bf.db.uniqueIndexes(table, 'uid')).length,
        1,
        'the unique index is built',
      );
    });

    test('ULID text from created_at: the same order, each at its row millisecond', {
      skip,
    }, async () => {
      const table = await seed('ulid');
      await runBackfill(bf.target, {
        table,
        column: 'uid',
        values: ulidAtValues(),
        atColumn: 'created_at',
      });
      const rows = (
        await bf.db.rows<{ id: unknown; v: string }>(`SELECT id, uid AS v FROM ${table}`)
      )
        .map((r) => ({ us: at.get(Number(r.id))!, v: r.v }))
        .sort((a, b) => (a.v < b.v ? -1 : a.v > b.v ? 1 : 0));
      assert.equal(new Set(rows.map((r) => r.v)).size, ROWS);
      for (let i = 0; i < rows.length; i++) {
        assert.equal(ulidTimestamp(rows[i]!.v), Math.floor(rows[i]!.us / 1000));
        if (i > 0) assert.ok(rows[i - 1]!.us <= rows[i]!.us);
      }
    });

    test('refusals change nothing: no such column, not a time, rows without a time', {
      skip,
    }, async () => {
      const table = await seed('refuse', 3);
      const attempt = (atColumn: string) =>
        runBackfill(bf.target, { table, column: 'uid', values: uuidv7AtValues(), atColumn });
      await assert.rejects(attempt('made_at'), (e: unknown) => {
        assert.ok(e instanceof BackfillTableError);
        assert.equal(e.reason, 'time-column');
        assert.match(e.message, /"made_at", which does not exist/);
        return true;
      });
      await assert.rejects(attempt('id'), /is "id" of type .*, not a point in time/i);
      await assert.rejects(attempt('created_at'), (e: unknown) => {
        assert.ok(e instanceof BackfillTableError);
        assert.equal(e.reason, 'untimed');
        assert.match(e.message, /^3 row\(s\) to fill have created_at NULL/);
        return true;
      });
      assert.equal(
        (await bf.target.describe(table))!.columns.some((c) => c.name === 'uid'),
        false,
      );
    });
  });
}

describe('idforge backfill --at-column', () => {
  test('fills a UUIDv7 column of a SQLite table by created_at and says so', async () => {
    const db = await openTestDb('sqlite', join(dir, 'cli.db'));
    try {
      await db.exec('CREATE TABLE events (id INTEGER PRIMARY KEY, created_at TEXT)');
      await db.exec(
        "INSERT INTO events VALUES (1, '2026-12-03T12:00:02.000Z'), (2, '2026-12-03 12:00:01'), (3, '2026-12-03T14:00:00.500+02:00')",
      );
      const out = await cli([
        'backfill',
        '--store',
        db.url,
        '--table',
        'events',
        '--column',
        'uid',
        '--scheme',
        'uuidv7',
        '--at-column',
        'created_at',
      ]);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stdout, /scheme uuidv7, key id/);
      const order = await db.rows<{ id: number }>('SELECT id FROM events ORDER BY uid');
      // 14:00:00.5+02:00 is 12:00:00.5Z, before 12:00:01 (no zone: UTC) and 12:00:02Z.
      assert.deepEqual(
        order.map((r) => r.id),
        [3, 2, 1],
      );
    } finally {
      await db.close();
    }
  });
});

describe('backdated backfill on SQLite: microseconds and a row that loses its time (issue 32)', () => {
  test('microsecond text maps to its own millisecond (floored, as PostgreSQL and MariaDB), the order kept within it', async () => {
    const db = await openTestDb('sqlite', join(dir, 'us.db'));
    const target = await openBackfillTarget(db.url);
    try {
      await db.exec('CREATE TABLE ev (id INTEGER PRIMARY KEY, created_at TEXT)');
      // .1236 and .9999: SQLite's own reading rounds them up to .124 and the next second.
      const texts = [
        '2026-12-03T12:00:00.123600Z',
        '2026-12-03 12:00:00.123601',
        '2026-12-03T12:00:00.999900Z',
        '2026-12-03T14:00:00.0005+02:00',
        '2026-12-03T12:00:00.122Z',
      ];
      for (const [i, t] of texts.entries()) {
        await db.exec('INSERT INTO ev VALUES (?, ?)', [i + 1, t]);
      }
      await runBackfill(target, {
        table: 'ev',
        column: 'uid',
        values: uuidv7AtValues(),
        atColumn: 'created_at',
      });
      const noon = Date.UTC(2026, 11, 3, 12);
      const ms = [...(await db.values('ev', 'uid'))]
        .sort(([a], [b]) => Number(a) - Number(b))
        .map(([, v]) => Number.parseInt(v!.slice(0, 12), 16));
      assert.deepEqual(ms, [noon + 123, noon + 123, noon + 999, noon, noon + 122]);
      const order = await db.rows<{ id: number }>('SELECT id FROM ev ORDER BY uid');
      assert.deepEqual(
        order.map((r) => r.id),
        [4, 5, 1, 2, 3],
        '.1236 before .123601',
      );
    } finally {
      await target.close();
      await db.close();
    }
  });

  test('a row inserted with a NULL time during the run stops it, naming the row, the cause and the fix', async () => {
    const db = await openTestDb('sqlite', join(dir, 'late.db'));
    const target = await openBackfillTarget(db.url);
    try {
      await db.exec('CREATE TABLE ev (id INTEGER PRIMARY KEY, created_at TEXT)');
      for (let id = 1; id <= 30; id++) {
        await db.exec('INSERT INTO ev VALUES (?, ?)', [id, '2026-12-03T12:00:00Z']);
      }
      let inserted = false;
      const run = runBackfill(target, {
        table: 'ev',
        column: 'uid',
        values: uuidv7AtValues(),
        atColumn: 'created_at',
        batch: 10,
        onProgress: () => {
          if (inserted) return;
          inserted = true;
          void db.exec('INSERT INTO ev (id, created_at) VALUES (1000, NULL)');
        },
      });
      await assert.rejects(run, (e: unknown) => {
        assert.ok(e instanceof BackfillTableError);
        assert.equal(e.reason, 'untimed');
        assert.doesNotMatch(e.message, /set since the run began/);
        assert.match(e.message, /row with key 1000 has created_at NULL/);
        assert.match(
          e.message,
          /written after the run checked .* \(inserted since, or its time cleared\)/,
        );
        assert.match(e.message, /30 row\(s\) filled before it keep their values/);
        assert.match(e.message, /Set it on those rows \(or fill them apart\), then rerun/);
        return true;
      });
    } finally {
      await target.close();
      await db.close();
    }
  });
});
