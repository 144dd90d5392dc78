// The suite's checks of minting (suite.ts): concurrent sessions, the counter's overflow and
// the clock-rollback rule, and that an open transaction holds no other session back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect, LAYOUTS } from 'idforge';
import { CALLS, column, type Engine, NODE, SESSIONS, type Session } from './engine.js';

const layout = LAYOUTS.default!;
const PER_TICK = 4096;

/** `n` calls of `fn` in each of SESSIONS new sessions at once; the values per session. */
async function inSessions(engine: Engine, expr: string): Promise<string[][]> {
  const sessions = await Promise.all(Array.from({ length: SESSIONS }, () => engine.session()));
  try {
    return await Promise.all(
      sessions.map((x) =>
        column(x, `SELECT ${engine.text(expr)} AS v FROM ${engine.series(CALLS)}`),
      ),
    );
  } finally {
    await Promise.all(sessions.map((x) => x.close()));
  }
}

function assertIncreasing(values: readonly bigint[], what: string): void {
  for (let i = 1; i < values.length; i++) {
    if (values[i]! <= values[i - 1]!) assert.fail(`${what}: ${values[i]} after ${values[i - 1]}`);
  }
}

export function registerConcurrency(engine: Engine, s: () => Session, skip: string | false): void {
  test(`${engine.name}: ${SESSIONS} sessions × ${CALLS} idforge_snowflake(): no duplicate, each decodes to node ${NODE} and its time`, {
    skip,
  }, async () => {
    const start = Date.now();
    const batches = await inSessions(engine, 'idforge_snowflake()');
    const end = Date.now();
    const all = new Set<string>();
    for (const batch of batches) {
      assertIncreasing(batch.map(BigInt), 'one session');
      for (const id of batch) all.add(id);
    }
    assert.equal(all.size, SESSIONS * CALLS, 'no duplicate');
    // Overflow carries into the time: at most one tick ahead per 4,096 IDs.
    const ahead = Math.ceil((SESSIONS * CALLS) / PER_TICK);
    for (const id of all) {
      const r = inspect(BigInt(id), { layout });
      assert.equal(r.layout, 'default');
      assert.deepEqual(r.fields, { node: NODE, sequence: r.fields!.sequence });
      if (r.unixMs! < start - 1 || r.unixMs! > end + ahead) {
        assert.fail(`${id} decodes to ${r.unixMs}, outside [${start}, ${end} + ${ahead}]`);
      }
    }
    assert.ok(s());
  });

  test(`${engine.name}: ${SESSIONS} sessions × ${CALLS} idforge_uuidv7(): no duplicate, increasing per session, version 7 at the clock's time`, {
    skip,
  }, async () => {
    const start = Date.now();
    const batches = await inSessions(engine, 'idforge_uuidv7()');
    const end = Date.now();
    const all = new Set<string>();
    for (const batch of batches) {
      assertIncreasing(
        batch.map((u) => BigInt(`0x${u.replaceAll('-', '')}`)),
        'one session',
      );
      for (const u of batch) all.add(u);
    }
    assert.equal(all.size, SESSIONS * CALLS, 'no duplicate');
    for (const u of all) {
      const r = inspect(u, { scheme: 'uuidv7' });
      // A 4,096-ID burst within one ms carries into the ms field.
      if (r.unixMs! < start - 1 || r.unixMs! > end + Math.ceil(CALLS / 2048)) {
        assert.fail(`${u} decodes to ${r.unixMs}, outside [${start}, ${end}]`);
      }
    }
  });
}

export function registerClockRule(engine: Engine, s: () => Session, skip: string | false): void {
  test(`${engine.name}: overflow carries into the next tick, a clock set back never moves the counter back`, {
    skip,
  }, async () => {
    // A session clock 60 s ahead: the counter jumps to its tick, sequence 0.
    const t = Date.now() + 60_000;
    const tick = BigInt(t - layout.epochMs);
    await s().rows(engine.setNow(t));
    const n = PER_TICK + 904;
    const ids = (
      await column(
        s(),
        `SELECT ${engine.text('idforge_snowflake()')} AS v FROM ${engine.series(n)}`,
      )
    ).map(BigInt);
    assertIncreasing(ids, 'one statement');
    ids.forEach((id, i) => {
      const expect =
        ((tick + BigInt(Math.floor(i / PER_TICK))) << 22n) |
        (BigInt(NODE) << 12n) |
        BigInt(i % PER_TICK);
      if (id !== expect) assert.fail(`call ${i}: ${id}, expected ${expect}`);
    });
    // The clock steps back 10 s: the next ID continues the counter (tick t + 1, sequence 904),
    // ahead of the clock; nothing waits, nothing fails.
    await s().rows(engine.setNow(t - 10_000));
    const [back] = await column(s(), `SELECT ${engine.text('idforge_snowflake()')} AS v`);
    assert.equal(BigInt(back!), ((tick + 1n) << 22n) | (BigInt(NODE) << 12n) | 904n);
    // Another session on the real clock (60 s behind the counter) continues it too.
    const other = await engine.session();
    try {
      const [real] = await column(other, `SELECT ${engine.text('idforge_snowflake()')} AS v`);
      assert.equal(BigInt(real!), BigInt(back!) + 1n);
    } finally {
      await other.close();
    }
    await s().rows(engine.setNow(null));
  });

  test(`${engine.name}: a transaction that has called idforge_snowflake() holds no other session back`, {
    skip,
  }, async () => {
    const a = await engine.session();
    const b = await engine.session();
    try {
      await b.rows(engine.boundWaits);
      await a.rows('BEGIN');
      const [first] = await column(a, `SELECT ${engine.text('idforge_snowflake()')} AS v`);
      const [second] = await column(b, `SELECT ${engine.text('idforge_snowflake()')} AS v`);
      await a.rows('ROLLBACK');
      const [third] = await column(a, `SELECT ${engine.text('idforge_snowflake()')} AS v`);
      assert.ok(BigInt(second!) > BigInt(first!) && BigInt(third!) > BigInt(second!));
    } finally {
      await a.close();
      await b.close();
    }
  });
}
