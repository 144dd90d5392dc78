// PostgreSQL's functions at their edges (found by the mutation run, issue 34):
// idforge_uuidv7()'s counter uses all of 0..4095 within a millisecond before it carries,
// idforge_uuidv7_at() takes 1970-01-01T00:00:00.000Z and refuses the instants just outside its
// range, idforge_uuidv7() mints in UUIDv7's last millisecond, and idforge_snowflake() and
// idforge_snowflake_lowest() take the layout's last millisecond and refuse past it; the
// epoch's first millisecond is minted (node 0's first ID there is 0), and a 1-bit gene is
// drawn at random like a wider one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { defineLayout, inspect, LAYOUTS } from 'idforge';
import type pg from 'pg';
import { serviceSkip } from '../helpers/services.js';
import { assertCounterCarries } from './engine.js';
import { PG_BASE, pgDb, sqlState } from './pg-db.js';

const base = new URL(PG_BASE);
const skip = await serviceSkip('PostgreSQL', base.hostname, Number(base.port || 5432));
const db = pgDb(PG_BASE, 'idforge_sql_edges');
const layout = LAYOUTS.default!;
let c: pg.Client;

before(async () => {
  if (skip) return;
  await db.create(layout, 3);
  c = await db.client();
});
after(async () => {
  if (!skip) await db.drop();
});

test('idforge_uuidv7() reaches counter 4095 in a millisecond, then carries to the next', {
  skip,
}, async () => {
  const t = Date.now();
  await c.query(`SET idforge.now_ms = '${t}'`);
  const { rows } = await c.query(
    'SELECT idforge_uuidv7()::text AS v FROM generate_series(1, 4200)',
  );
  await c.query('RESET idforge.now_ms');
  assertCounterCarries(
    rows.map(({ v }: { v: string }) => v),
    t,
  );
});

test('idforge_uuidv7_at() takes the first millisecond of 1970 and refuses just outside', {
  skip,
}, async () => {
  const at = (iso: string) => c.query(`SELECT idforge_uuidv7_at('${iso}'::timestamptz)::text AS v`);
  const { rows } = await at('1970-01-01T00:00:00.000Z');
  assert.match(rows[0].v, /^00000000-0000-7/);
  for (const outside of ['1969-12-31T23:59:59.999Z', '10889-08-02T05:31:50.656Z']) {
    await assert.rejects(at(outside), (e: unknown) => sqlState(e) === '22008', outside);
  }
});

test("idforge_snowflake() mints in the layout's last tick and refuses the next", {
  skip,
}, async () => {
  const lastMs = layout.horizonMs - 1;
  await c.query(`SET idforge.now_ms = '${lastMs}'`);
  try {
    const { rows } = await c.query('SELECT idforge_snowflake()::text AS v');
    const d = inspect(BigInt(rows[0].v), { layout });
    assert.equal(d.unixMs, lastMs);
    assert.equal(d.fields?.node, 3);
    await c.query(`SET idforge.now_ms = '${layout.horizonMs}'`);
    await assert.rejects(
      c.query('SELECT idforge_snowflake()'),
      (e: unknown) => sqlState(e) === '22008',
    );
  } finally {
    await c.query('RESET idforge.now_ms');
  }
});

test("idforge_uuidv7() mints in UUIDv7's last millisecond and refuses after it", {
  skip,
}, async () => {
  const fresh = await db.client(); // no counter state in the session: the clock alone
  try {
    await fresh.query(`SET idforge.now_ms = '${2 ** 48 - 1}'`);
    const { rows } = await fresh.query('SELECT idforge_uuidv7()::text AS v');
    assert.match(rows[0].v, /^ffffffff-ffff-7/);
    await fresh.query('RESET idforge.uuidv7_state');
    await fresh.query(`SET idforge.now_ms = '${2 ** 48}'`);
    await assert.rejects(
      fresh.query('SELECT idforge_uuidv7()'),
      (e: unknown) => sqlState(e) === '22008',
    );
  } finally {
    await fresh.end();
  }
});

test("idforge_snowflake_lowest() takes the layout's last millisecond and refuses the next", {
  skip,
}, async () => {
  const at = (ms: number) =>
    c.query(
      `SELECT idforge_snowflake_lowest('${new Date(ms).toISOString()}'::timestamptz)::text AS v`,
    );
  const { rows } = await at(layout.horizonMs - 1);
  assert.equal(inspect(BigInt(rows[0].v), { layout }).unixMs, layout.horizonMs - 1);
  await assert.rejects(at(layout.horizonMs), (e: unknown) => sqlState(e) === '22008');
});

test("idforge_snowflake() mints in the epoch's first millisecond: node 0's first ID is 0", {
  skip,
}, async () => {
  const zero = pgDb(PG_BASE, 'idforge_sql_zero');
  await zero.create(layout, 0);
  try {
    const z = await zero.client();
    await z.query(`SET idforge.now_ms = '${layout.epochMs}'`);
    const { rows } = await z.query(
      'SELECT idforge_snowflake()::text AS v FROM generate_series(1, 2)',
    );
    assert.deepEqual(
      rows.map((r: { v: string }) => r.v),
      ['0', '1'],
    );
  } finally {
    await zero.drop();
  }
});

test('a 1-bit gene is random too: both values among 64 IDs, the rest counting up', {
  skip,
}, async () => {
  const gene1 = defineLayout({
    name: 'gene-1',
    epoch: '2025-01-01T00:00:00Z',
    fields: [
      { name: 'time', bits: 41 },
      { name: 'node', bits: 10 },
      { name: 'sequence', bits: 11 },
      { name: 'gene', bits: 1, role: 'gene' },
    ],
  });
  const g = pgDb(PG_BASE, 'idforge_sql_gene1');
  await g.create(gene1, 5);
  try {
    const gc = await g.client();
    await gc.query(`SET idforge.now_ms = '${Date.now()}'`);
    const { rows } = await gc.query(
      'SELECT idforge_snowflake()::text AS v FROM generate_series(1, 64)',
    );
    const ids = rows.map((r: { v: string }) => BigInt(r.v));
    // 2^-63 that a fair draw gives one value 64 times.
    assert.deepEqual(new Set(ids.map((id: bigint) => id & 1n)), new Set([0n, 1n]));
    for (let i = 1; i < ids.length; i++) assert.equal((ids[i]! >> 1n) - (ids[i - 1]! >> 1n), 1n);
    assert.equal(inspect(ids[0]!, { layout: gene1 }).fields?.node, 5);
  } finally {
    await g.drop();
  }
});
