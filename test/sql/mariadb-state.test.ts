// MariaDB's Snowflake state under change (issue 32): a re-install that changes the layout and
// the node while sessions mint switches in one step (no ID of the new layout on the old one's
// time scale or with the old node), and a copy of the database (a dump restored under another
// name) refuses to mint until a node is chosen for it; a call whose function's layout is not
// the counter row's refuses. The tests run in order, on one database (and two of their own).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { openSqlFunctions } from '@idforge/stores';
import { inspect, LAYOUTS, type Layout } from 'idforge';
import { layoutKey, sqlFunctions } from 'idforge/sql';
import { cli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import type { Session } from './engine.js';
import {
  mariadbAdmin,
  mariadbEngine,
  mariadbSession,
  mariadbSkip,
  mariadbUrl,
} from './mariadb-engine.js';

const skip = await mariadbSkip();
const engine = mariadbEngine('state');
const OLD = { layout: LAYOUTS['twitter-2010']!, node: 33, fields: { datacenter: 1, worker: 1 } };
const NEW = { layout: LAYOUTS.default!, node: 7, fields: { node: 7 } };
const WRITERS = 4;
const BATCH = 20;
/** What a session may see while an install switches layouts: a refusal, never a wrong ID. */
const SWITCHING = /^40001 idforge_snowflake: the functions are being re-installed/;

before(async () => {
  if (skip) return;
  await engine.create();
});
after(async () => {
  if (skip) return;
  await engine.drop();
});

async function applyLayout(layout: Layout, node: number) {
  const target = await openSqlFunctions(engine.url);
  try {
    return await target.apply(sqlFunctions('mariadb', { layout, node }));
  } finally {
    await target.close();
  }
}

interface Minted {
  readonly id: string;
  /** Whether the install had returned before the statement that minted it began. */
  readonly afterInstall: boolean;
}

/** A session minting BATCH IDs a statement until `stop()`; refusals counted, not kept. */
function writer(s: Session, state: { installed: boolean; stop: boolean }) {
  const minted: Minted[] = [];
  const refusals: string[] = [];
  let roundsAfter = 0;
  const done = (async () => {
    while (!state.stop) {
      const afterInstall = state.installed;
      try {
        const rows = await s.rows(
          `SELECT CAST(idforge_snowflake() AS CHAR) AS v FROM seq_1_to_${BATCH}`,
        );
        for (const r of rows) minted.push({ id: r.v!, afterInstall });
        if (afterInstall) roundsAfter++;
      } catch (e) {
        const { sqlState, message } = e as { sqlState?: string; message: string };
        refusals.push(`${sqlState} ${message}`);
      }
    }
  })();
  return { minted, refusals, done, roundsAfter: () => roundsAfter };
}

/** 'old' or 'new' when the ID decodes to that install's node at a time within [from, to]. */
function whose(id: string, from: number, to: number): 'old' | 'new' | undefined {
  for (const [name, x] of [
    ['old', OLD],
    ['new', NEW],
  ] as const) {
    const r = inspect(BigInt(id), { layout: x.layout });
    const { sequence: _, ...node } = r.fields!;
    if (r.unixMs! >= from && r.unixMs! <= to && JSON.stringify(node) === JSON.stringify(x.fields)) {
      return name;
    }
  }
  return undefined;
}

/** What went wrong in the writers' results: IDs of neither install, old after new, errors. */
function faults(writers: ReturnType<typeof writer>[], from: number, to: number) {
  const mixed: string[] = [];
  const oldAfterNew: string[] = [];
  const errors = new Set<string>();
  for (const w of writers) {
    for (const e of w.refusals) if (!SWITCHING.test(e)) errors.add(e);
    let seenNew = false;
    for (const m of w.minted) {
      const who = whose(m.id, from, to);
      if (who === undefined) mixed.push(m.id);
      if (who === 'old' && (seenNew || m.afterInstall)) oldAfterNew.push(m.id);
      seenNew ||= who === 'new';
    }
  }
  return { mixed: mixed.length, firstMixed: mixed.slice(0, 3), oldAfterNew, errors: [...errors] };
}

test('mariadb: a re-install that changes layout and node while 4 sessions mint switches in one step: every ID is wholly of one install, idforge_time reads the new ones right', {
  skip,
}, async () => {
  await applyLayout(OLD.layout, OLD.node);
  const sessions = await Promise.all(Array.from({ length: WRITERS }, () => engine.session()));
  try {
    const state = { installed: false, stop: false };
    const start = Date.now();
    const writers = sessions.map((s) => writer(s, state));
    try {
      await waitFor(() => writers.every((w) => w.minted.length > 0), 'every writer minting');
      const r = await applyLayout(NEW.layout, NEW.node);
      assert.deepEqual([r.action, r.counterReset], ['upgraded', true]);
      state.installed = true;
      await waitFor(() => writers.every((w) => w.roundsAfter() >= 3), 'three rounds after');
    } finally {
      state.stop = true;
      await Promise.all(writers.map((w) => w.done));
    }
    const minted = writers.flatMap((w) => w.minted.map((m) => m.id));
    // Overflow carries into the time: at most one tick ahead per 4,096 IDs.
    const to = Date.now() + Math.ceil(minted.length / 4096) + 1;
    assert.deepEqual(faults(writers, start - 1, to), {
      mixed: 0,
      firstMixed: [],
      oldAfterNew: [],
      errors: [],
    });
    assert.equal(new Set(minted).size, minted.length, 'no duplicate');
    // idforge_time of a new ID, in SQL, is the library's reading of it.
    const [row] = await sessions[0]!.rows(
      'SELECT CAST(id AS CHAR) AS id, CAST(idforge_ms(idforge_time(id)) AS CHAR) AS ms FROM (SELECT idforge_snowflake() AS id LIMIT 1) x',
    );
    assert.equal(Number(row!.ms), inspect(BigInt(row!.id!), { layout: NEW.layout }).unixMs);
    assert.ok(Number(row!.ms) >= start && Number(row!.ms) <= Date.now() + 1);
  } finally {
    await Promise.all(sessions.map((s) => s.close()));
  }
});

/** A database of the test's own holding a mysqldump of the engine's (tables and functions). */
async function dumpedCopy(name: string): Promise<string> {
  const from = new URL(engine.url);
  const args = ['-h', from.hostname, '-P', from.port || '3306', '-u', from.username];
  const dump = execFileSync('mysqldump', [...args, '--routines', from.pathname.slice(1)]);
  await mariadbAdmin(`CREATE DATABASE ${name}`);
  execFileSync('mysql', [...args, name], { input: dump });
  return mariadbUrl(name);
}

test('mariadb: a copy of the database (mysqldump restored under another name) refuses to mint until a node is chosen for it; the original keeps minting', {
  skip,
}, async () => {
  await applyLayout(NEW.layout, NEW.node);
  const copyDb = `idforge_sql_statecopy_${process.pid}`;
  const url = await dumpedCopy(copyDb);
  const copy = await mariadbSession(url);
  const original = await engine.session();
  const mint = (s: Session) => s.rows('SELECT CAST(idforge_snowflake() AS CHAR) AS v');
  try {
    await assert.rejects(mint(copy), (e: Error & { sqlState?: string }) => {
      assert.equal(e.sqlState, '55000');
      assert.match(
        e.message,
        /node 7 was set for database idforge_sql_state_\d+@\d+, not this one/,
      );
      assert.match(e.message, /idforge sql --store URL --apply --node N/);
      return true;
    });
    const [own] = await mint(original);
    assert.equal(inspect(BigInt(own!.v!), { layout: NEW.layout }).fields!.node, NEW.node);
    // Applying without a node chooses none: still refused.
    const kept = await cli(['sql', '--store', url, '--apply']);
    assert.equal(kept.code, 0, kept.stderr);
    await assert.rejects(mint(copy), /not this one/);
    // A node given chooses it for the copy, even the original's (a restore whose original is
    // gone): not 'unchanged'.
    for (const node of [NEW.node, 8]) {
      const chosen = await cli(['sql', '--store', url, '--apply', '--node', `${node}`, '--json']);
      assert.equal(chosen.code, 0, chosen.stderr);
      assert.equal(JSON.parse(chosen.stdout).action, 'upgraded');
      const [id] = await mint(copy);
      assert.equal(inspect(BigInt(id!.v!), { layout: NEW.layout }).fields!.node, node);
    }
  } finally {
    await copy.close();
    await original.close();
    await mariadbAdmin(`DROP DATABASE IF EXISTS ${copyDb}`);
  }
});

test("mariadb: a function whose layout is not the counter row's refuses (40001), a missing row too", {
  skip,
}, async () => {
  // What a call that began with the old function's text sees once an install switched the row
  // to another layout: a refusal to retry, never an ID of one layout on the other's counter.
  const own = mariadbEngine('statekey');
  await own.create();
  const s = await own.session();
  try {
    const target = await openSqlFunctions(own.url);
    try {
      await target.apply(sqlFunctions('mariadb', { layout: NEW.layout, node: NEW.node }));
    } finally {
      await target.close();
    }
    const mint = () => s.rows('SELECT CAST(idforge_snowflake() AS CHAR) AS v');
    const refused = (e: Error & { sqlState?: string }) =>
      SWITCHING.test(`${e.sqlState} ${e.message}`);
    await mint();
    await s.rows("UPDATE idforge_snowflake_counter SET layout_key = 'another' WHERE id = 1");
    await assert.rejects(mint(), refused, 'another layout in the row');
    await s.rows('DELETE FROM idforge_snowflake_counter');
    await assert.rejects(mint(), refused, 'no row');
  } finally {
    await s.close();
    await own.drop();
  }
});

test('mariadb: an upgrade from v1 (node in idforge_settings, a counter row without layout or node) keeps the node and the counter, and leaves the node in one place', {
  skip,
}, async () => {
  const v1 = mariadbEngine('statev1');
  await v1.create();
  const s = await v1.session();
  try {
    // v1's state as its install left it; its functions do not matter, the upgrade replaces them.
    const ahead = BigInt(Date.now() + 3_600_000 - NEW.layout.epochMs) << 12n; // 1 h ahead
    for (const sql of [
      'CREATE TABLE idforge_sql_version (name VARCHAR(32) PRIMARY KEY, version INT NOT NULL, layout VARCHAR(128) NOT NULL, layout_key VARCHAR(512) NOT NULL, installed_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)) ENGINE=InnoDB',
      'CREATE TABLE idforge_settings (name VARCHAR(32) PRIMARY KEY, value VARCHAR(64) NOT NULL) ENGINE=InnoDB',
      'CREATE TABLE idforge_snowflake_counter (id TINYINT PRIMARY KEY, v BIGINT NOT NULL) ENGINE=Aria TRANSACTIONAL=1',
      `INSERT INTO idforge_snowflake_counter VALUES (1, ${ahead})`,
      "INSERT INTO idforge_settings VALUES ('node', '5')",
      `INSERT INTO idforge_sql_version (name, version, layout, layout_key) VALUES ('functions', 1, 'default', '${layoutKey(NEW.layout)}')`,
    ]) {
      await s.rows(sql);
    }
    const r = await cli(['sql', '--store', v1.url, '--apply', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual([out.action, out.counterReset, out.node], ['upgraded', false, 5]);
    const [id] = await s.rows('SELECT CAST(idforge_snowflake() AS CHAR) AS v');
    const d = inspect(BigInt(id!.v!), { layout: NEW.layout });
    assert.equal(d.fields!.node, 5);
    assert.equal(BigInt(id!.v!) >> 22n, (ahead + 1n) >> 12n, 'the counter went on from v1');
    assert.deepEqual(await s.rows("SELECT value FROM idforge_settings WHERE name = 'node'"), []);
    // A node given later goes to the counter's row alone too.
    const target = await openSqlFunctions(v1.url);
    try {
      await target.apply(sqlFunctions('mariadb', { layout: NEW.layout, node: 6 }));
    } finally {
      await target.close();
    }
    const [row] = await s.rows('SELECT CAST(node AS CHAR) AS v FROM idforge_snowflake_counter');
    assert.equal(row!.v, '6');
    assert.deepEqual(await s.rows("SELECT value FROM idforge_settings WHERE name = 'node'"), []);
  } finally {
    await s.close();
    await v1.drop();
  }
});
