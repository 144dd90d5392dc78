// PostgreSQL: a clock stepped back plus a crash never repeats a Snowflake that a committed
// transaction took, read-only or not (issue 32, item 2). The project's own PostgreSQL on port
// from the OS (scripts/services/postgres.sh; the shared server is never touched) runs under
// libfaketime, its wall clock stepped 10 min back, so idforge_snowflake() takes its values from
// the sequence alone (the clock is behind the counter: no setval). nextval WAL-logs 32 values
// ahead and hands out the next 31 without writing WAL; the record is flushed by the commit of
// the transaction that wrote it, and a read-only transaction's commit flushed nothing. The
// crash is made to land in that window on purpose: after a CHECKPOINT (so the next nextval
// logs), one session takes an ID in a transaction it leaves open, and another takes IDs in
// autocommit SELECTs (or INSERTs); then an immediate shutdown (no flush, no checkpoint) and a
// restart under the same clock.
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fakeWallEnv, libfaketime, stepWall } from '../helpers/faketime.js';
import { freePort, ownServer } from '../helpers/server.js';
import { serviceSkip } from '../helpers/services.js';
import { tempDir } from '../helpers/temp.js';
import { onServer, pgDb } from './pg-db.js';

const faketime = libfaketime();
const skip = (await serviceSkip('PostgreSQL', '127.0.0.1', 5432)) || faketime.skip;
const PORT = await freePort();
const base = `postgres://postgres@127.0.0.1:${PORT}/postgres`;
const db = pgDb(base, 'idforge_sqlcrash');
// The faked clock's file is read by the server, which runs as the postgres user.
const { dir, remove: removeDir } = tempDir('idforge-sqlcrash-');
chmodSync(dir, 0o755);
const clockFile = join(dir, 'clock');
const server = faketime.path
  ? ownServer('postgres', PORT, [], fakeWallEnv(faketime.path, clockFile))
  : null;
const BACK_MS = 600_000;

/** `n` IDs taken by `sql`, one autocommit statement each, after an ID left in an open transaction. */
async function crashAfter(sql: string, n: number): Promise<bigint[]> {
  await onServer(db.url, (c) => c.query('CHECKPOINT'));
  const open = await db.client();
  await open.query('BEGIN');
  await open.query('SELECT idforge_snowflake()');
  const s = await db.client();
  const acked: bigint[] = [];
  for (let i = 0; i < n; i++) acked.push(BigInt((await s.query(sql)).rows[0].id));
  await server!.stop(true); // pg_ctl -m immediate: a crash, recovery from the WAL at the start
  await server!.start();
  return acked;
}

async function take(sql: string, n: number): Promise<bigint[]> {
  const c = await db.client();
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) out.push(BigInt((await c.query(sql)).rows[0].id));
  await c.end();
  return out;
}

describe('PostgreSQL: clock stepped back, then crashes (own server, libfaketime)', {
  skip,
}, () => {
  before(async () => {
    await server!.stop(true, true); // whatever a previous run left: gone
    await server!.start();
    await db.create();
    await onServer(db.url, (c) => c.query('CREATE TABLE t (id bigint PRIMARY KEY)'));
    await take('SELECT idforge_snowflake() AS id', 10); // the counter at the real clock
    stepWall(clockFile, -BACK_MS);
    const { rows } = await onServer(db.url, (c) =>
      c.query('SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms'),
    );
    assert.ok(Number(rows[0].ms) < Date.now() - BACK_MS / 2, 'the server runs 10 min behind');
  });

  after(async () => {
    await db.drop().catch(() => undefined);
    await server?.stop(false, true).catch(() => undefined);
    removeDir();
  });

  for (const [kind, sql] of [
    ['autocommit SELECT', 'SELECT idforge_snowflake() AS id'],
    ['autocommit INSERT … RETURNING', 'INSERT INTO t VALUES (idforge_snowflake()) RETURNING id'],
  ] as const) {
    test(`a crash after ${kind}s: no committed ID is issued again, the next ones are above them`, async (t) => {
      const acked = await crashAfter(sql, 20);
      const next = await take(sql, 40);
      const seen = new Set(acked);
      const repeated = next.filter((id) => seen.has(id));
      t.diagnostic(
        `${acked.length} committed before the crash, up to ${acked.at(-1)}; next ${next[0]}`,
      );
      assert.deepEqual(
        repeated,
        [],
        `${repeated.length} committed IDs issued again after the crash`,
      );
      assert.ok(next[0]! > acked.at(-1)!, `${next[0]} after the crash, ${acked.at(-1)} before`);
    });
  }
});
