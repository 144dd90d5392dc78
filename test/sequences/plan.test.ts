// The offset/increment planner: statements per writer, disjoint series, headroom, caveat.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PLAN_CAVEAT, planWriters } from '../../packages/idforge/src/sequences/plan.js';

describe('planWriters', () => {
  test("mysql: two writers get the seeds' SET GLOBAL pair, offsets 1 and 2", () => {
    const plan = planWriters(2, 'mysql');
    assert.equal(plan.increment, 2);
    assert.deepEqual(plan.spareOffsets, []);
    assert.deepEqual(
      plan.perWriter.map((w) => w.statements),
      [
        ['SET GLOBAL auto_increment_increment = 2;', 'SET GLOBAL auto_increment_offset = 1;'],
        ['SET GLOBAL auto_increment_increment = 2;', 'SET GLOBAL auto_increment_offset = 2;'],
      ],
    );
    assert.deepEqual(plan.perWriter[1]!.config, [
      'auto_increment_increment = 2',
      'auto_increment_offset = 2',
    ]);
    assert.deepEqual(plan.perWriter[0]!.sample, [1n, 3n, 5n]);
    assert.deepEqual(plan.perWriter[1]!.sample, [2n, 4n, 6n]);
  });

  test('postgres: CREATE SEQUENCE ... INCREMENT BY N START WITH i, named', () => {
    const plan = planWriters(3, 'postgres', { tag: 'photos' });
    assert.deepEqual(
      plan.perWriter.map((w) => w.statements),
      [1, 2, 3].map((i) => [
        `CREATE SEQUENCE photos AS bigint INCREMENT BY 3 START WITH ${i} MINVALUE 1 NO CYCLE;`,
      ]),
    );
    assert.ok(plan.perWriter.every((w) => w.config.length === 0));
    assert.match(planWriters(1, 'postgres').perWriter[0]!.statements[0]!, /^CREATE SEQUENCE ids /);
  });

  test('mysql with a name also creates the InnoDB ticket table', () => {
    const [w] = planWriters(1, 'mysql', { tag: 'orders' }).perWriter;
    assert.match(
      w!.statements[2]!,
      /^CREATE TABLE IF NOT EXISTS tickets_orders .* ENGINE = InnoDB;$/,
    );
  });

  test("the writers' series never meet, for every writer count and headroom tried", () => {
    for (const [writers, increment] of [
      [1, 1],
      [2, 2],
      [3, 3],
      [2, 4],
      [5, 8],
      [7, 7],
    ] as const) {
      const plan = planWriters(writers, 'mysql', { increment });
      const seen = new Set<bigint>();
      for (const w of plan.perWriter) {
        for (let k = 0n; k < 200n; k++) {
          const v = BigInt(w.offset) + k * BigInt(w.increment);
          assert.ok(!seen.has(v), `${writers}/${increment}: ${v} twice`);
          seen.add(v);
        }
      }
      assert.deepEqual(
        plan.spareOffsets,
        Array.from({ length: increment - writers }, (_, i) => writers + 1 + i),
      );
    }
  });

  test('every plan carries the caveat about adding a writer later', () => {
    const plan = planWriters(2, 'postgres');
    assert.equal(plan.caveat, PLAN_CAVEAT);
    assert.match(PLAN_CAVEAT, /Adding a writer beyond the increment means re-planning/);
    assert.match(PLAN_CAVEAT, /Leave headroom/);
    assert.match(PLAN_CAVEAT, /SET GLOBAL is lost at a restart/);
  });

  test('misuse is a RangeError naming the argument', () => {
    const cases: [number, string, object, RegExp][] = [
      [0, 'mysql', {}, /^writers: /],
      [65_536, 'mysql', {}, /^writers: /],
      [2.5, 'mysql', {}, /^writers: /],
      [2, 'oracle', {}, /^dialect: /],
      [3, 'mysql', { increment: 2 }, /^increment: /],
      [3, 'mysql', { increment: 65_536 }, /^increment: /],
      [1, 'postgres', { tag: 'Bad-Name' }, /^ticket tag: /],
      [1, 'postgres', { tag: 'x; DROP TABLE y' }, /^ticket tag: /],
    ];
    for (const [n, dialect, options, message] of cases) {
      assert.throws(
        () => planWriters(n, dialect as 'mysql', options),
        (e: unknown) => e instanceof RangeError && message.test(e.message),
        `${n} ${dialect} ${JSON.stringify(options)}`,
      );
    }
  });
});
