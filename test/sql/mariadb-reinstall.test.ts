// A MariaDB re-install of the layout the counter already runs keeps the counter, whatever
// layout the version row names (as after an install interrupted past its switch, before its
// record): only a counter with no layout yet (v1's) takes the version row's. Otherwise the
// counter restarted from the clock and a frozen tick minted its IDs again (found by the
// mutation run, issue 34).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openSqlFunctions } from '@idforge/stores';
import { LAYOUTS, type Layout } from 'idforge';
import { layoutKey, sqlFunctions } from 'idforge/sql';
import { column } from './engine.js';
import { mariadbEngine, mariadbSkip } from './mariadb-engine.js';

const skip = await mariadbSkip();
const engine = mariadbEngine('reinstall');

before(async () => {
  if (!skip) await engine.create();
});
after(async () => {
  if (!skip) await engine.drop();
});

async function install(layout: Layout, node: number) {
  const target = await openSqlFunctions(engine.url);
  try {
    await target.apply(sqlFunctions('mariadb', { layout, node }));
  } finally {
    await target.close();
  }
}

test('a re-install of the running layout keeps the counter: no ID minted twice', {
  skip,
}, async () => {
  const layout = LAYOUTS.default!;
  await install(layout, 7);
  const s = await engine.session();
  const mint = () =>
    column(s, `SELECT CAST(idforge_snowflake() AS CHAR) AS v FROM ${engine.series(5)}`);
  try {
    await s.rows(engine.setNow(Date.now())); // one frozen tick: a restarted counter repeats it
    const first = await mint();
    await s.rows(
      `UPDATE idforge_sql_version SET layout_key = '${layoutKey(LAYOUTS['twitter-2010']!)}' ` +
        "WHERE name = 'functions'",
    );
    await install(layout, 7);
    const second = await mint();
    assert.equal(new Set([...first, ...second]).size, 10, 'no ID repeats');
    assert.ok(BigInt(second[0]!) > BigInt(first.at(-1)!), 'the counter went on');
  } finally {
    await s.close();
  }
});
