// MariaDB's functions at their edges (found by the mutation run, issue 34): idforge_uuidv7()'s
// counter uses all of 0..4095 within a millisecond before it carries into the next, and it
// mints from UUIDv7's first millisecond to its last; a gene layout's random gene stays inside
// its bits (never spilling into the sequence above it); idforge_time() checks a ULID to its
// last character; idforge_snowflake() mints in the layout's last tick and refuses past it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openSqlFunctions } from '@idforge/stores';
import { inspect, LAYOUTS } from 'idforge';
import { sqlFunctions } from 'idforge/sql';
import { assertCounterCarries, column } from './engine.js';
import { mariadbEngine, mariadbSkip } from './mariadb-engine.js';

const skip = await mariadbSkip();
const engine = mariadbEngine('edges');
const layout = LAYOUTS['gene-8']!;
const NODE = 5;

before(async () => {
  if (skip) return;
  await engine.create();
  const target = await openSqlFunctions(engine.url);
  try {
    await target.apply(sqlFunctions('mariadb', { layout, node: NODE }));
  } finally {
    await target.close();
  }
});
after(async () => {
  if (!skip) await engine.drop();
});

test('idforge_uuidv7() reaches counter 4095 in a millisecond, then carries to the next', {
  skip,
}, async () => {
  const s = await engine.session();
  try {
    const t = Date.now();
    await s.rows(engine.setNow(t));
    const ids = await column(s, `SELECT idforge_uuidv7() AS v FROM ${engine.series(4200)}`);
    assertCounterCarries(ids, t);
  } finally {
    await s.close();
  }
});

test("a gene layout's IDs keep their gene in its 8 bits: the rest counts up by one", {
  skip,
}, async () => {
  const s = await engine.session();
  try {
    await s.rows(engine.setNow(Date.now()));
    const ids = (
      await column(
        s,
        `SELECT ${engine.text('idforge_snowflake()')} AS v FROM ${engine.series(300)}`,
      )
    ).map(BigInt);
    for (let i = 1; i < ids.length; i++) {
      // time | node | sequence above the gene: the counter's next value, exactly.
      const step = (ids[i]! >> 8n) - (ids[i - 1]! >> 8n);
      assert.ok(step === 1n || inspect(ids[i]!, { layout }).fields?.sequence === 0, `ID ${i}`);
    }
    for (const id of ids) assert.equal(inspect(id, { layout }).fields?.node, NODE);
  } finally {
    await s.close();
  }
});

test('idforge_time() checks a ULID to its last character', { skip }, async () => {
  const s = await engine.session();
  try {
    const good = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const [time] = await column(s, `SELECT ${engine.text(`idforge_time('${good}')`)} AS v`);
    assert.match(time!, /^2016-07-/, 'the spec example ULID decodes');
    for (const bad of ['01ARZ3NDEKTSV4RRFFQ69G5FAU', '01ARZ3NDEKTSV4RRFFQ69G5FA!']) {
      await assert.rejects(s.rows(`SELECT idforge_time('${bad}') AS v`), /not a ULID/, bad);
    }
  } finally {
    await s.close();
  }
});

test("idforge_uuidv7() mints in UUIDv7's last millisecond and refuses after it", {
  skip,
}, async () => {
  const s = await engine.session();
  try {
    await s.rows(engine.setNow(2 ** 48 - 1));
    const [id] = await column(s, 'SELECT idforge_uuidv7() AS v');
    assert.match(id!, /^ffffffff-ffff-7/);
    const fresh = await engine.session(); // no counter state: the clock alone
    try {
      await fresh.rows(engine.setNow(2 ** 48));
      await assert.rejects(fresh.rows('SELECT idforge_uuidv7() AS v'), /outside UUIDv7's range/);
    } finally {
      await fresh.close();
    }
  } finally {
    await s.close();
  }
});

test('idforge_uuidv7() mints at 1970-01-01T00:00:00.000Z', { skip }, async () => {
  const s = await engine.session();
  try {
    await s.rows(engine.setNow(0));
    const [id] = await column(s, 'SELECT idforge_uuidv7() AS v');
    assert.match(id!, /^00000000-0000-7/);
  } finally {
    await s.close();
  }
});

// Last: it moves the counter to the end of the layout's time.
test("idforge_snowflake() mints in the layout's last tick and refuses the next", {
  skip,
}, async () => {
  const s = await engine.session();
  try {
    await s.rows(engine.setNow(layout.horizonMs - 1));
    const [id] = await column(s, `SELECT ${engine.text('idforge_snowflake()')} AS v`);
    assert.equal(inspect(BigInt(id!), { layout }).unixMs, layout.horizonMs - 1);
    await s.rows(engine.setNow(layout.horizonMs));
    await assert.rejects(
      s.rows('SELECT idforge_snowflake() AS v'),
      /past the horizon of the layout/,
    );
  } finally {
    await s.close();
  }
});

test('the largest ID a signed BIGINT holds is minted, then refused past it', { skip }, async () => {
  // The default layout fills 63 bits: its last tick, node 1023 and sequence 4095 are 2^63 - 1.
  const top = mariadbEngine('edges_top');
  await top.create();
  try {
    const target = await openSqlFunctions(top.url);
    try {
      await target.apply(sqlFunctions('mariadb', { layout: LAYOUTS.default!, node: 1023 }));
    } finally {
      await target.close();
    }
    const s = await top.session();
    try {
      await s.rows(top.setNow(LAYOUTS.default!.horizonMs - 1));
      const ids = await column(
        s,
        `SELECT ${top.text('idforge_snowflake()')} AS v FROM ${top.series(4096)}`,
      );
      assert.equal(ids.at(-1), '9223372036854775807');
      await assert.rejects(s.rows('SELECT idforge_snowflake() AS v'), /past the horizon/);
    } finally {
      await s.close();
    }
  } finally {
    await top.drop();
  }
});
