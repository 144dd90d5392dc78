// PostgreSQL: a re-install under load switches atomically (issue 32, item 3). While sessions
// mint in autocommit, `idforge sql --apply` changes the layout and the node at once (default,
// node 1 → sonyflake, node 2, whose ticks are 10 ms and sequence 8 bits). Every ID must be
// wholly one install's: its layout, its node and a time near the clock; a call that crosses
// the switch may fail, but only with the retryable serialization_failure (40001), never with
// an internal error (XX000: the dropped sequence's OID) or an ID that mixes the two.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inspect, LAYOUTS, type Layout } from 'idforge';
import { sqlFunctions, sqlText } from 'idforge/sql';
import { serviceSkip } from '../helpers/services.js';
import { waitFor } from '../helpers/wait.js';
import { applyFunctions, PG_BASE, pgDb, sqlState } from './pg-db.js';

const base = new URL(PG_BASE);
const skip = await serviceSkip('PostgreSQL', base.hostname, Number(base.port || 5432));
const db = pgDb(PG_BASE, 'idforge_sqlswitch');
const OLD = { layout: LAYOUTS.default!, node: 1, field: 'node' };
const NEW = { layout: LAYOUTS.sonyflake!, node: 2, field: 'machine' };

/** Which install `id` wholly belongs to (its node, and a time within `slackMs` of the run). */
function installOf(id: bigint, fromMs: number, toMs: number): 'old' | 'new' | 'mixed' {
  const slackMs = 2000;
  for (const [name, want] of [['old', OLD] as const, ['new', NEW] as const]) {
    const r = inspect(id, { layout: want.layout });
    const t = r.unixMs ?? Number.NaN;
    if (r.fields?.[want.field] === want.node && t >= fromMs - slackMs && t <= toMs + slackMs) {
      return name;
    }
  }
  return 'mixed';
}

describe('PostgreSQL: a layout and node change under load', { skip }, () => {
  before(() => db.create(OLD.layout, OLD.node));
  after(() => db.drop());

  test('4 minting sessions across the switch: every ID wholly the old or the new install, only 40001 fails', async (t) => {
    const sessions = await Promise.all(Array.from({ length: 4 }, () => db.client()));
    const ids: { id: bigint; afterSwitch: boolean }[] = [];
    const errors: string[] = [];
    let switched = false;
    let afterCalls = 0;
    const start = Date.now();
    const loops = sessions.map(async (c) => {
      while (!switched || afterCalls < 400) {
        const began = switched;
        try {
          const { rows } = await c.query('SELECT idforge_snowflake()::text AS id');
          ids.push({ id: BigInt(rows[0].id), afterSwitch: began });
          if (began) afterCalls++;
        } catch (e) {
          errors.push(`${sqlState(e)} ${(e as Error).message}`);
        }
      }
    });
    await waitFor(() => ids.length >= 400, '400 IDs before the switch');
    const applyStart = performance.now();
    const r = await applyFunctions(db.url, NEW.layout, NEW.node);
    const applyMs = Math.round(performance.now() - applyStart);
    switched = true;
    await Promise.all(loops);
    const end = Date.now();
    assert.equal(r.counterReset, true);
    const kinds = ids.map((x) => installOf(x.id, start, end));
    const mixed = ids.filter((_, i) => kinds[i] === 'mixed').map((x) => x.id);
    const stale = ids.filter((x, i) => x.afterSwitch && kinds[i] !== 'new').length;
    const bad = errors.filter((e) => !e.startsWith('40001 '));
    t.diagnostic(
      `${ids.length} IDs (${kinds.filter((k) => k === 'old').length} old, ` +
        `${kinds.filter((k) => k === 'new').length} new), apply took ${applyMs} ms, ` +
        `${errors.length} calls failed (${errors.length - bad.length} with 40001)`,
    );
    assert.deepEqual(bad, [], 'only the retryable 40001 fails a call');
    assert.deepEqual(mixed, [], 'no ID mixes the two installs');
    assert.equal(stale, 0, 'a call begun after the apply returned mints with the new install');
    assert.equal(new Set(ids.map((x) => x.id)).size, ids.length, 'no duplicate');
  });
});

// The printed script (`idforge sql > f.sql; psql -f f.sql`) changes the layout without the
// apply's code: it must restart the counter itself. Before, a switch from twitter-2010 (ticks
// since 2010) to default (since 2025) kept the old counter, far ahead of the new layout's
// clock: every new ID read 2041-02-03 until the next change.
describe('PostgreSQL: the printed script changes the layout', { skip }, () => {
  const printed = pgDb(PG_BASE, 'idforge_sqlprint');
  before(() => printed.create(LAYOUTS['twitter-2010']!, 33));
  after(() => printed.drop());

  test('the counter restarts: IDs of the new layout carry the clock’s time', async () => {
    const c = await printed.client();
    const mint = async (layout: Layout) => {
      const { rows } = await c.query('SELECT idforge_snowflake()::text AS id');
      return inspect(BigInt(rows[0].id), { layout }).unixMs ?? Number.NaN;
    };
    const before = Date.now();
    assert.ok((await mint(LAYOUTS['twitter-2010']!)) >= before - 2000);
    await c.query(sqlText(sqlFunctions('postgres', { layout: LAYOUTS.default!, node: 1 })));
    const ms = await mint(LAYOUTS.default!);
    assert.ok(
      ms >= before - 2000 && ms <= Date.now() + 2000,
      `an ID of the new layout reads ${new Date(ms).toISOString()}`,
    );
    // The same script again (unchanged layout) leaves the counter: no ID goes back.
    const last = BigInt((await c.query('SELECT idforge_snowflake()::text AS id')).rows[0].id);
    await c.query(sqlText(sqlFunctions('postgres', { layout: LAYOUTS.default!, node: 1 })));
    const next = BigInt((await c.query('SELECT idforge_snowflake()::text AS id')).rows[0].id);
    assert.ok(next > last, 'an unchanged layout keeps its counter');
  });
});
