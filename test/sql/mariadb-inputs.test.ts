// MariaDB: the functions' edge inputs answer as the library (and PostgreSQL's functions) do
// (issue 32, item 7). A NULL time is an error (22004) and a time the function cannot encode
// one of class 22 (MariaDB's own 22007 for a text it cannot read in strict mode, 22008 for a
// zero date or a time out of range) where MariaDB said 45000; idforge_time refuses a v7 UUID
// whose variant is not RFC 9562's (inspect() gives it no time), a Snowflake above the signed
// 64-bit range (22003, as PostgreSQL's bigint), and takes the UUID spellings inspect() takes
// ({…}, urn:uuid:…) and no other. Also: MariaDB runs the function again for each reference
// to a column of a merged derived table, which docs/in-database.md says and this pins.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inspect, uuidv7 } from 'idforge';
import { cli } from '../helpers/cli.js';
import type { Session } from './engine.js';
import { mariadbEngine, mariadbSkip } from './mariadb-engine.js';

const skip = await mariadbSkip();
const engine = mariadbEngine('inputs');

/** The SQLSTATE `sql` fails with, or 'ok'. */
async function stateOf(s: Session, sql: string): Promise<string> {
  return s.rows(sql).then(
    () => 'ok',
    (e: { sqlState?: string; message: string }) => e.sqlState ?? e.message,
  );
}

describe('MariaDB: edge inputs of the functions', { skip }, () => {
  let s: Session;
  before(async () => {
    await engine.create();
    const r = await cli(['sql', '--store', engine.url, '--apply', '--node', '1']);
    assert.equal(r.code, 0, r.stderr);
    s = await engine.session();
  });
  after(async () => {
    await s?.close();
    await engine.drop();
  });

  test('a NULL time is 22004, an unreadable or out-of-range time class 22 (never 45000), in every time function; a NULL to is from', async () => {
    const fns = ['idforge_uuidv7_lowest', 'idforge_uuidv7_highest', 'idforge_uuidv7_at'];
    fns.push('idforge_snowflake_lowest', 'idforge_snowflake_highest');
    const bad = ["'infinity'", "'0000-00-00'", "'2024-12-31 23:59:59'"]; // the last: before the epoch
    const got: Record<string, string> = {};
    for (const mode of ['STRICT_TRANS_TABLES', '']) {
      await s.rows(`SET sql_mode = '${mode}'`);
      for (const f of fns) {
        for (const arg of ['NULL', ...bad]) {
          if (f.startsWith('idforge_uuidv7') && arg.startsWith("'2024")) continue;
          got[`${mode} ${f}(${arg})`] = await stateOf(s, `SELECT ${f}(${arg})`);
        }
      }
      for (const k of ['idforge_uuidv7', 'idforge_snowflake']) {
        for (const args of ["NULL, '2026-01-01'", "'infinity', NULL", "'2026-01-01', 'infinity'"]) {
          got[`${mode} ${k}_bounds(${args})`] = await stateOf(s, `SELECT ${k}_bounds(${args})`);
        }
      }
    }
    // Strict mode refuses a text that is no DATETIME itself (22007) before the function runs;
    // without it MariaDB passes a zero date, which the function refuses as out of range.
    const want = (k: string) =>
      k.startsWith('STRICT') && k.includes('infinity')
        ? '22007'
        : k.includes('(NULL')
          ? '22004'
          : '22008';
    assert.deepEqual(got, Object.fromEntries(Object.keys(got).map((k) => [k, want(k)])));
    await s.rows('SET sql_mode = DEFAULT');
    const [one] = await s.rows(
      "SELECT idforge_uuidv7_bounds('2026-01-01', NULL) = idforge_uuidv7_bounds('2026-01-01', '2026-01-01') AS v",
    );
    assert.equal(Number(one!.v), 1, 'a NULL to is from, as PostgreSQL’s default');
  });

  test('idforge_time: a v7 UUID of another variant and a Snowflake above 2^63 - 1 are refused; the UUID spellings are the library’s', async () => {
    const u = uuidv7();
    const v0 = `${u.slice(0, 19)}0${u.slice(20)}`;
    assert.equal(inspect(v0).unixMs, undefined, 'the library gives variant 0 no time');
    assert.equal(await stateOf(s, `SELECT idforge_time('${v0}')`), '22023');
    assert.throws(() => inspect('9223372036854775808'));
    for (const big of ['9223372036854775808', '9999999999999999999']) {
      assert.equal(await stateOf(s, `SELECT idforge_time('${big}')`), '22003', big);
    }
    assert.throws(() => inspect('0042'), /leading zero/);
    assert.equal(await stateOf(s, "SELECT idforge_time('0042')"), '22023');
    const ms = inspect(u).unixMs;
    const hex = u.replaceAll('-', '');
    for (const text of [u, u.toUpperCase(), `{${u}}`, hex, `{${hex}}`, `urn:uuid:${u}`]) {
      assert.equal(inspect(text).unixMs, ms, text);
      const [r] = await s.rows(`SELECT CAST(idforge_ms(idforge_time('${text}')) AS CHAR) AS ms`);
      assert.equal(Number(r!.ms), ms, text);
    }
    const odd = `${hex.slice(0, 8)}-${hex.slice(8, 16)}-${hex.slice(16, 24)}-${hex.slice(24)}`;
    for (const text of [odd, `{urn:uuid:${u}}`, `{${u}`]) {
      assert.throws(() => inspect(text), text);
      assert.equal(await stateOf(s, `SELECT idforge_time('${text}')`), '22023', text);
    }
  });

  test('a merged derived table runs idforge_snowflake() once per reference; derived_merge=off or a LIMIT runs it once per row', async () => {
    const per = async (sql: string) =>
      (await s.rows(sql)).map((r) => new Set([r.a, r.b, r.c]).size);
    const inner = 'SELECT CAST(idforge_snowflake() AS CHAR) AS id FROM seq_1_to_3';
    const outer = (t: string) => `SELECT id AS a, id AS b, id AS c FROM (${t}) t`;
    assert.deepEqual(await per(outer(inner)), [3, 3, 3], 'merged: three IDs a row');
    assert.deepEqual(await per(outer(`${inner} LIMIT 3`)), [1, 1, 1]);
    await s.rows("SET SESSION optimizer_switch = 'derived_merge=off'");
    try {
      assert.deepEqual(await per(outer(inner)), [1, 1, 1]);
    } finally {
      await s.rows("SET SESSION optimizer_switch = 'derived_merge=default'");
    }
  });
});
