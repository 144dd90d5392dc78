// runBackfill's own rules over an in-memory target (no database): the argument checks, the
// refusals built from what the target describes, that a batch is read as `batch` rows after the
// last key, that a value present is never asked to be written, the catch-up passes and their
// limit (a writer that never stops inserting NULLs leaves the run incomplete, said in the
// report), and an abort between batches.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type BackfillColumn,
  type BackfillKey,
  BackfillNoKeyError,
  type BackfillScan,
  BackfillTableError,
  type BackfillTarget,
  MAX_BACKFILL_PASSES,
  runBackfill,
  uuidv4Values,
} from '../../packages/idforge/src/public/index.js';

const ID: BackfillColumn = {
  name: 'id',
  type: 'bigint',
  kind: 'integer',
  length: null,
  nullable: false,
  unique: true,
};

/** A table of integer keys; `onFill` runs after each batch (a concurrent writer). */
class MemoryTarget implements BackfillTarget {
  readonly engine = 'sqlite';
  readonly address = 'memory';
  readonly rows = new Map<bigint, Uint8Array | string | null>();
  readonly reads: [BackfillKey | null, number][] = [];
  columns: BackfillColumn[] = [ID];
  indexes = 0;
  onFill: () => void = () => {};

  constructor(n: number) {
    for (let i = 1n; i <= BigInt(n); i++) this.rows.set(i, null);
  }
  async describe() {
    return { columns: this.columns };
  }
  columnType() {
    return 'BLOB';
  }
  async addColumn(_t: string, column: string) {
    this.columns = [
      ...this.columns,
      { ...ID, name: column, kind: 'bytes16', nullable: true, unique: false },
    ];
  }
  async counts() {
    const values = [...this.rows.values()];
    return { rows: values.length, filled: values.filter((v) => v !== null).length };
  }
  async nextKeys(
    _t: string,
    _k: BackfillColumn,
    _c: string,
    after: BackfillKey | null,
    limit: number,
  ): Promise<BackfillScan> {
    this.reads.push([after, limit]);
    const keys = [...this.rows.keys()]
      .sort((a, b) => (a < b ? -1 : 1))
      .filter((k) => after === null || k > (after as bigint))
      .slice(0, limit);
    return { keys: keys.filter((k) => this.rows.get(k) === null), last: keys.at(-1) ?? null };
  }
  async fill(
    _t: string,
    _k: BackfillColumn,
    _c: string,
    keys: readonly BackfillKey[],
    values: readonly (Uint8Array | string)[],
  ) {
    let n = 0;
    keys.forEach((k, i) => {
      assert.equal(this.rows.get(k as bigint), null, `row ${k} is asked to be filled once`);
      this.rows.set(k as bigint, values[i]!);
      n++;
    });
    this.onFill();
    return n;
  }
  async addUniqueIndex() {
    this.indexes++;
  }
  async untimed(): Promise<number> {
    throw new Error('this table has no time column: backdated values are tested on the engines');
  }
  async close() {}
}

const options = { table: 'orders', column: 'public_id', values: uuidv4Values(), batch: 10 };

test('misuse: malformed names, batch, the key as the column', async () => {
  const t = new MemoryTarget(1);
  await assert.rejects(runBackfill(t, { ...options, table: 'a;b' }), RangeError);
  await assert.rejects(runBackfill(t, { ...options, table: 'a.b.c' }), RangeError);
  await assert.rejects(runBackfill(t, { ...options, column: 'x y' }), RangeError);
  await assert.rejects(
    runBackfill(t, { ...options, batch: 0 }),
    /batch: expected an integer in \[1, 10000\]/,
  );
  await assert.rejects(
    runBackfill(t, { ...options, keyColumn: 'public_id' }),
    /keyColumn: expected a column other/,
  );
});

test('refusals come from what the target describes', async () => {
  const t = new MemoryTarget(1);
  t.columns = [
    { ...ID, nullable: true },
    { ...ID, name: 'uid', kind: 'bytes16', type: 'uuid' },
  ];
  await assert.rejects(
    runBackfill(t, options),
    (e: unknown) =>
      e instanceof BackfillNoKeyError &&
      /unique but nullable/.test(e.found) &&
      e.candidates.join() === 'uid (uuid)',
  );
  t.columns = [
    ID,
    {
      ...ID,
      name: 'public_id',
      kind: 'text',
      type: 'varchar(10)',
      length: 10,
      nullable: true,
      unique: false,
    },
  ];
  await assert.rejects(
    runBackfill(t, options),
    (e: unknown) =>
      e instanceof BackfillTableError && e.reason === 'column-type' && e.found === 'varchar(10)',
  );
});

test('batches of `batch` rows after the last key; catch-up passes for rows inserted behind', async () => {
  const t = new MemoryTarget(95);
  let extra = 0;
  t.onFill = () => {
    if (extra < 3) t.rows.set(BigInt(-++extra), null); // behind the cursor
  };
  const report = await runBackfill(t, options);
  assert.deepEqual(t.reads.slice(0, 3), [
    [null, 10],
    [10n, 10],
    [20n, 10],
  ]);
  assert.equal(report.passes, 2);
  assert.equal(report.filled, 98);
  assert.equal(report.complete, true);
  assert.equal(t.indexes, 1);
});

test('a writer that never stops inserting NULLs: at most MAX_BACKFILL_PASSES, reported incomplete', async () => {
  const t = new MemoryTarget(20);
  let next = 0n;
  t.onFill = () => t.rows.set(--next, null);
  const report = await runBackfill(t, options);
  assert.equal(report.passes, MAX_BACKFILL_PASSES);
  assert.equal(report.complete, false);
  assert.ok(report.remaining > 0);
  assert.equal(report.indexAdded, true, 'the index is built all the same: NULLs do not break it');
});

test('an abort between batches rejects with its reason; what was written stays', async () => {
  const t = new MemoryTarget(50);
  const controller = new AbortController();
  t.onFill = () => controller.abort(new Error('enough'));
  await assert.rejects(runBackfill(t, { ...options, signal: controller.signal }), /enough/);
  assert.equal((await t.counts()).filled, 10);
  assert.equal(t.indexes, 0);
});
