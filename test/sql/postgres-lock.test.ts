// PostgreSQL: idforge_snowflake()'s counter lock survives no cancel (issue 32, item 1). A
// cancel, lock_timeout or statement_timeout that lands while a call waits for the lock may be
// processed after PostgreSQL has granted it; the call then fails, and the lock must be free
// anyway, or every other session waits on it for good. In a database of the file's own on the
// shared server (IDFORGE_POSTGRES_URL).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import { PG_LOCK_KEY } from '../../packages/idforge/src/sql/postgres.js';
import { serviceSkip } from '../helpers/services.js';
import { waitFor } from '../helpers/wait.js';
import { PG_BASE, pgDb, sqlState } from './pg-db.js';

const base = new URL(PG_BASE);
const skip = await serviceSkip('PostgreSQL', base.hostname, Number(base.port || 5432));
const db = pgDb(PG_BASE, 'idforge_sqllock');

/** Advisory locks on the counter's key that backend `pid` holds. */
async function held(c: pg.Client, pid: number): Promise<number> {
  const { rows } = await c.query(
    `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted
      AND pid = $1 AND ((classid::bigint << 32) | objid::bigint) = $2`,
    [pid, String(PG_LOCK_KEY)],
  );
  return rows[0].n;
}

const pidOf = async (c: pg.Client): Promise<number> =>
  (await c.query('SELECT pg_backend_pid() AS p')).rows[0].p;

describe('PostgreSQL: a cancelled idforge_snowflake() leaves the counter lock free', {
  skip,
}, () => {
  before(() => db.create());
  after(() => db.drop());

  test('100 cancels landing as the lock is granted: the cancelled session holds no lock, every other session mints', async (t) => {
    const blocker = await db.client();
    const victim = await db.client();
    const other = await db.client();
    await other.query("SET lock_timeout = '5s'");
    const victimPid = await pidOf(victim);
    let cancelled = 0;
    let leaked = 0;
    for (let i = 0; i < 100; i++) {
      await blocker.query('SELECT pg_advisory_lock($1)', [String(PG_LOCK_KEY)]);
      const call = victim.query('SELECT idforge_snowflake()').then(
        () => 'minted',
        (e: unknown) => sqlState(e),
      );
      await waitFor(
        async () =>
          (
            await blocker.query(
              "SELECT 1 FROM pg_locks WHERE pid = $1 AND locktype = 'advisory' AND NOT granted",
              [victimPid],
            )
          ).rowCount === 1,
        'the call to wait for the counter lock',
      );
      // Released, then the waiter cancelled at once: the grant and the cancel cross.
      await blocker.query('SELECT pg_advisory_unlock($1), pg_cancel_backend($2)', [
        String(PG_LOCK_KEY),
        victimPid,
      ]);
      const outcome = await call;
      if (outcome === '57014') cancelled++;
      else assert.equal(outcome, 'minted');
      if ((await held(blocker, victimPid)) > 0) {
        leaked++;
        await victim.query('SELECT pg_advisory_unlock_all()'); // so the next try starts clean
      }
      await other.query('SELECT idforge_snowflake()');
    }
    t.diagnostic(`${cancelled} of 100 calls cancelled as the lock was granted, ${leaked} leaked`);
    assert.ok(cancelled > 0, 'some cancels landed');
    assert.equal(leaked, 0, `the counter lock leaked in ${leaked} of ${cancelled} cancels`);
  });

  test('16 sessions under a 100 ms statement_timeout: no lock leaks, every session keeps minting', async (t) => {
    const sessions = await Promise.all(Array.from({ length: 16 }, () => db.client()));
    const made = sessions.map(() => 0);
    let timedOut = 0;
    await Promise.all(
      sessions.map(async (c, k) => {
        await c.query("SET statement_timeout = '100ms'");
        // One call, then 500 (which the timeout often cuts while the call waits for the
        // lock), in turn: the long statements make the timeouts, the short ones the progress.
        for (let i = 0; i < 40; i++) {
          try {
            const r = await c.query(
              `SELECT count(idforge_snowflake())::int AS n FROM generate_series(1, ${i % 2 === 0 ? 1 : 500})`,
            );
            made[k]! += r.rows[0].n;
          } catch (e) {
            assert.equal(sqlState(e), '57014', String(e));
            timedOut++;
          }
        }
      }),
    );
    // Each session, alone now, mints again: a lock left behind by any other would time out
    // every one of its tries.
    const after = await Promise.all(
      sessions.map(async (c) => {
        for (let i = 0; i < 20; i++) {
          try {
            await c.query('SELECT idforge_snowflake()');
            return true;
          } catch (e) {
            assert.equal(sqlState(e), '57014', String(e));
          }
        }
        return false;
      }),
    );
    const watcher = await db.client();
    let leaks = 0;
    for (const c of sessions) leaks += await held(watcher, await pidOf(c));
    t.diagnostic(`${timedOut} statements timed out; IDs per session: ${made.join(', ')}`);
    assert.equal(leaks, 0, `counter locks held after the storm (${timedOut} statements timed out)`);
    assert.deepEqual(
      after,
      sessions.map(() => true),
      'every session mints after the storm',
    );
    assert.ok(
      made.every((n) => n > 0),
      `every session made progress: ${made.join(', ')}`,
    );
  });
});
