// The suite's checks of decoding (suite.ts): the library's IDs and the shared vectors decoded
// in SQL, bounds equal to the library's, every preset with published vectors installed in
// turn (an upgrade each), a custom layout, and a removal that leaves the user's objects.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openSqlFunctions } from '@idforge/stores';
import {
  defineLayout,
  inspect,
  LAYOUTS,
  type Layout,
  SnowflakeGenerator,
  snowflakeTimestamp,
  ulid,
  uuidv7,
} from 'idforge';
import { snowflakeBounds } from 'idforge/snowflake';
import { sqlFunctions } from 'idforge/sql';
import { uuidv7Bounds } from 'idforge/uuid';
import { cli } from '../helpers/cli.js';
import { snowflakeVectors } from '../vectors/snowflake.js';
import {
  BOUNDS_FROM_MS,
  BOUNDS_TO_MS,
  snowflakeBoundVectors,
  uuidv7BoundVectors,
} from '../vectors/sql-bounds.js';
import { ulidVectors } from '../vectors/ulid.js';
import { RFC9562_VECTORS } from '../vectors/uuid.js';
import { column, type Engine, type Session } from './engine.js';

/** idforge_time(literal) in unix ms. */
async function timeOf(engine: Engine, s: Session, literal: string): Promise<number> {
  const [v] = await column(s, `SELECT ${engine.ms(`idforge_time(${literal})`)} AS v`);
  return Number(v);
}

async function boundsOf(engine: Engine, s: Session, kind: 'uuidv7' | 'snowflake') {
  const [r] = await s.rows(engine.bounds(kind, engine.ts(BOUNDS_FROM_MS), engine.ts(BOUNDS_TO_MS)));
  return { lowest: r!.lowest!, highest: r!.highest! };
}

export function registerDecoding(engine: Engine, s: () => Session, skip: string | false): void {
  test(`${engine.name}: the library's IDs and the shared vectors decode in SQL to the library's times`, {
    skip,
  }, async () => {
    const g = new SnowflakeGenerator({ layout: 'default', node: 7 });
    for (const id of [g.next(), g.next(), 0n, 1n << 40n]) {
      assert.equal(await timeOf(engine, s(), `'${id}'`), snowflakeTimestamp(LAYOUTS.default!, id));
    }
    const v7 = RFC9562_VECTORS.filter((v) => v.version === 7);
    assert.ok(v7.length > 0);
    for (const v of v7) assert.equal(await timeOf(engine, s(), `'${v.text}'`), v.unixMs);
    for (const u of [uuidv7(), uuidv7()]) {
      assert.equal(await timeOf(engine, s(), `'${u}'`), inspect(u).unixMs);
    }
    for (const v of ulidVectors) {
      if (v.time <= engine.maxTimeMs) {
        assert.equal(await timeOf(engine, s(), `'${v.ulid}'`), v.time);
      } else {
        await assert.rejects(timeOf(engine, s(), `'${v.ulid}'`), /overflow|out of range/);
      }
    }
    const u = ulid();
    assert.equal(await timeOf(engine, s(), `'${u}'`), inspect(u).unixMs);
    const at = BOUNDS_FROM_MS;
    const [minted] = await column(
      s(),
      `SELECT ${engine.text(`idforge_uuidv7_at(${engine.ts(at)})`)} AS v`,
    );
    assert.equal(inspect(minted!, { scheme: 'uuidv7' }).unixMs, at);
    const b = await boundsOf(engine, s(), 'uuidv7');
    assert.deepEqual(b, uuidv7Bounds(BOUNDS_FROM_MS, BOUNDS_TO_MS));
    assert.deepEqual(b, {
      lowest: uuidv7BoundVectors[0].lowest,
      highest: uuidv7BoundVectors[1].highest,
    });
  });
}

/** Applies `layout` (and `node`) through the store's target, as `idforge sql --apply` does. */
async function applyLayout(engine: Engine, layout: Layout, node: number) {
  const target = await openSqlFunctions(engine.url);
  try {
    return await target.apply(sqlFunctions(engine.name, { layout, node }));
  } finally {
    await target.close();
  }
}

export function registerLayouts(engine: Engine, s: () => Session, skip: string | false): void {
  test(`${engine.name}: a new node upgrades without touching the counter; each layout with vectors installs in turn, decodes them and bounds as the library`, {
    skip,
  }, async () => {
    const node = await cli(['sql', '--store', engine.url, '--apply', '--node', '6', '--json']);
    assert.equal(node.code, 0, node.stderr);
    assert.deepEqual(
      [JSON.parse(node.stdout).action, JSON.parse(node.stdout).counterReset],
      ['upgraded', false],
    );
    const layouts = [
      ...new Set([...snowflakeVectors.map((v) => v.layout), 'default', 'sonyflake']),
    ];
    for (const name of layouts) {
      const layout = LAYOUTS[name]!;
      const r = await applyLayout(engine, layout, 1);
      assert.equal(r.counterReset, r.previous?.layout !== name, name);
      for (const v of snowflakeVectors.filter((x) => x.layout === name)) {
        const ms = await timeOf(engine, s(), `'${v.id}'`);
        assert.equal(ms, snowflakeTimestamp(layout, BigInt(v.id)), `${name} ${v.id}`);
        assert.ok(
          Math.abs(ms - v.unixMs) < v.timePrecisionMs,
          `${name} ${v.id}: ${ms} vs ${v.unixMs}`,
        );
      }
      const vector = snowflakeBoundVectors.find((x) => x.layout === name);
      if (vector === undefined) continue;
      const b = await boundsOf(engine, s(), 'snowflake');
      const lib = snowflakeBounds(layout, BOUNDS_FROM_MS, BOUNDS_TO_MS);
      assert.deepEqual(b, { lowest: String(lib.lowest), highest: String(lib.highest) }, name);
      assert.deepEqual(b, { lowest: vector.lowest, highest: vector.highest }, name);
      const [id] = await column(s(), `SELECT ${engine.text('idforge_snowflake()')} AS v`);
      assert.equal(inspect(BigInt(id!), { layout }).layout, name);
    }
  });

  test(`${engine.name}: a custom layout (node fields above and below the time, 4 ms ticks) mints IDs the library decodes`, {
    skip,
  }, async () => {
    const layout = defineLayout({
      name: 'sql-custom',
      epoch: '2024-06-01',
      unitMs: 4,
      fields: [
        { name: 'region', bits: 3 },
        { name: 'time', bits: 40 },
        { name: 'host', bits: 6 },
        { name: 'sequence', bits: 10 },
      ],
    });
    const r = await applyLayout(engine, layout, (5 << 6) | 51);
    assert.equal(r.counterReset, true);
    const start = Date.now();
    const ids = await column(
      s(),
      `SELECT ${engine.text('idforge_snowflake()')} AS v FROM ${engine.series(3000)}`,
    );
    assert.equal(new Set(ids).size, 3000);
    for (const id of ids) {
      const d = inspect(BigInt(id), { layout });
      assert.deepEqual([d.fields!.region, d.fields!.host], [5, 51]);
      assert.ok(d.unixMs! >= start - 4 && d.unixMs! <= Date.now() + 12, `${id}: ${d.unixMs}`);
    }
    await assert.rejects(
      s().rows(`SELECT ${engine.text(`idforge_snowflake_lowest(${engine.ts(start)})`)} AS v`),
      /do not sort by time/,
    );
  });
}

export function registerRemove(engine: Engine, s: () => Session, skip: string | false): void {
  test(`${engine.name}: --remove drops everything the install made and nothing else`, {
    skip,
  }, async () => {
    await s().rows(engine.userFunction);
    const removed = await cli(['sql', '--store', engine.url, '--remove']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /^removed idforge SQL functions from /);
    assert.deepEqual(await engine.objects(s()), ['idforge_mine']);
    const again = await cli(['sql', '--store', engine.url, '--remove']);
    assert.match(again.stdout, /^nothing to remove/);
  });
}

export function registerPrinted(engine: Engine, s: () => Session, skip: string | false): void {
  test(`${engine.name}: the printed script, run by the engine's own client, is the install --apply makes`, {
    skip,
  }, async () => {
    const printed = await cli(['sql', '--engine', engine.name, '--node', '3']);
    assert.equal(printed.code, 0, printed.stderr);
    await engine.runScript(printed.stdout);
    const [id] = await column(s(), `SELECT ${engine.text('idforge_snowflake()')} AS v`);
    assert.equal(inspect(BigInt(id!), { layout: LAYOUTS.default! }).fields!.node, 3);
    const applied = await cli(['sql', '--store', engine.url, '--apply', '--node', '3']);
    assert.match(applied.stdout, /^unchanged: /);
    const removed = await cli(['sql', '--store', engine.url, '--remove']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(await engine.objects(s()), ['idforge_mine']);
  });
}
