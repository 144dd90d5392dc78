// PostgreSQL: the functions' edge inputs answer as the library does (issue 32, item 7). An
// infinite time is out of range (22008, not 0A000 from a bigint cast), a NULL time for a bound
// is an error (22004) rather than a NULL bound, a UUID whose variant is not RFC 9562's has no
// UUIDv7 time (inspect() gives none either), and idforge_time(text) takes the UUID spellings
// inspect() takes (36 with hyphens, 32 digits, {…}, urn:uuid:…) and no other.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inspect, uuidv7 } from 'idforge';
import type pg from 'pg';
import { serviceSkip } from '../helpers/services.js';
import { PG_BASE, pgDb, sqlState } from './pg-db.js';

const base = new URL(PG_BASE);
const skip = await serviceSkip('PostgreSQL', base.hostname, Number(base.port || 5432));
const db = pgDb(PG_BASE, 'idforge_sqlinputs');

/** The SQLSTATE `sql` fails with, or 'ok'. */
async function stateOf(c: pg.Client, sql: string): Promise<string> {
  return c.query(sql).then(
    () => 'ok',
    (e: unknown) => sqlState(e) ?? String(e),
  );
}

describe('PostgreSQL: edge inputs of the functions', { skip }, () => {
  let c: pg.Client;
  before(async () => {
    await db.create();
    c = await db.client();
  });
  after(() => db.drop());

  test("'infinity' is out of range (22008) and a NULL bound is an error (22004) in every time function", async () => {
    const fns = ['idforge_uuidv7_lowest', 'idforge_uuidv7_highest', 'idforge_uuidv7_at'];
    fns.push('idforge_snowflake_lowest', 'idforge_snowflake_highest');
    const got: Record<string, string> = {};
    for (const f of fns) {
      for (const arg of ["'infinity'", "'-infinity'", 'NULL']) {
        got[`${f}(${arg})`] = await stateOf(c, `SELECT ${f}(${arg}::timestamptz)`);
      }
    }
    for (const k of ['idforge_uuidv7', 'idforge_snowflake']) {
      got[`${k}_bounds(infinity)`] = await stateOf(c, `SELECT * FROM ${k}_bounds('infinity')`);
      got[`${k}_bounds(NULL, now())`] = await stateOf(c, `SELECT * FROM ${k}_bounds(NULL, now())`);
      got[`${k}_bounds(now(), infinity)`] = await stateOf(
        c,
        `SELECT * FROM ${k}_bounds(now(), 'infinity')`,
      );
    }
    const want = Object.fromEntries(
      Object.keys(got).map((k) => [k, k.includes('NULL') ? '22004' : '22008']),
    );
    assert.deepEqual(got, want);
  });

  test('idforge_time: a v7 UUID of another variant is refused as inspect() gives it no time; the spellings are the library’s', async () => {
    const u = uuidv7();
    const v0 = `${u.slice(0, 19)}0${u.slice(20)}`;
    assert.equal(inspect(v0).unixMs, undefined, 'the library gives variant 0 no time');
    assert.equal(await stateOf(c, `SELECT idforge_time('${v0}'::uuid)`), '22023');
    assert.equal(await stateOf(c, `SELECT idforge_time('${v0}'::text)`), '22023');
    const ms = inspect(u).unixMs;
    const hex = u.replaceAll('-', '');
    for (const text of [u, u.toUpperCase(), `{${u}}`, hex, `{${hex}}`, `urn:uuid:${u}`]) {
      assert.equal(inspect(text).unixMs, ms, text);
      const { rows } = await c.query(
        `SELECT floor(extract(epoch FROM idforge_time($1::text)) * 1000)::bigint::text AS ms`,
        [text],
      );
      assert.equal(Number(rows[0].ms), ms, text);
    }
    // PostgreSQL's uuid input takes hyphens after any group of four digits; the library does not.
    const odd = `${hex.slice(0, 8)}-${hex.slice(8, 16)}-${hex.slice(16, 24)}-${hex.slice(24)}`;
    assert.throws(() => inspect(odd));
    assert.equal(await stateOf(c, `SELECT idforge_time('${odd}'::text)`), '22023');
  });
});
