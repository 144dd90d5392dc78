// HLC IDs from a coordinated node: HlcNodeClock's factory gives each lease a generator over the
// node's clock and fence that starts from the state the previous lease reached; HlcNodeGenerator
// reports a Snowflake generator's counters (lastTick: the l of the last ID) and refuses a gene.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NodeGeneratorFactory } from '../../packages/idforge/src/coord/index.js';
import { NotReadyError } from '../../packages/idforge/src/coord/index.js';
import { ManualClock } from '../../packages/idforge/src/core/index.js';
import {
  HLC_LAYOUT,
  HlcDriftError,
  HlcIdGenerator,
  HlcNodeClock,
  HlcNodeGenerator,
  type HlcNodeInit,
  hlcOfId,
} from '../../packages/idforge/src/hlc/index.js';

const T = Date.parse('2026-03-01T00:00:00Z');

function lease(node: number, clock = new ManualClock(T), admitted: number[] = []): HlcNodeInit {
  return { fields: { node }, clock, admit: (l) => void admitted.push(l) };
}

test("the factory is a node's generator factory (coord's NodeGeneratorFactory)", () => {
  const factory: NodeGeneratorFactory = new HlcNodeClock().factory;
  assert.equal(typeof factory, 'function');
});

test('each lease mints for its worker ID, fenced by the node: admit once per new l', () => {
  const clock = new ManualClock(T);
  const admitted: number[] = [];
  const g = new HlcNodeClock().factory(lease(9, clock, admitted));
  const [a, b] = g.batch(2);
  clock.advance(5);
  const c = g.next();
  assert.deepEqual(g.nodeFields, { node: 9 });
  assert.equal(g.generator.node, 9);
  assert.deepEqual(
    [hlcOfId(a!), hlcOfId(b!), hlcOfId(c)],
    [
      { l: T, c: 0 },
      { l: T, c: 1 },
      { l: T + 5, c: 0 },
    ],
  );
  assert.deepEqual(admitted, [T, T + 5]);
});

test('a new lease starts from the state the previous one reached, received leads included', () => {
  const hlc = new HlcNodeClock({ maxDriftMs: 1000 });
  const clock = new ManualClock(T);
  const first = hlc.factory(lease(1, clock));
  const before = first.next();
  hlc.receive({ l: T + 300, c: 4 });
  assert.deepEqual(hlc.last, { l: T + 300, c: 5 }); // the receipt is an event: c_m + 1
  // The lease is lost and another worker ID taken: nothing received is forgotten.
  const second = hlc.factory(lease(2, clock));
  const after = second.next();
  assert.ok(after > before);
  assert.deepEqual(hlcOfId(after), { l: T + 300, c: 6 });
  assert.deepEqual(hlc.last, { l: T + 300, c: 6 });
});

test('before the first lease: last is null and receive throws NotReadyError', () => {
  const hlc = new HlcNodeClock();
  assert.equal(hlc.last, null);
  assert.throws(() => hlc.receive({ l: T, c: 0 }), NotReadyError);
});

test('receive refuses drift past maxDriftMs and leaves the clock unchanged', () => {
  const hlc = new HlcNodeClock({ maxDriftMs: 100 });
  hlc.factory(lease(3)).next();
  assert.throws(() => hlc.receive({ l: T + 101, c: 0 }), HlcDriftError);
  assert.deepEqual(hlc.last, { l: T, c: 0 });
});

test("stats are a Snowflake generator's: lastTick is the last ID's l, in layout ticks", () => {
  const clock = new ManualClock(T);
  const g = new HlcNodeGenerator(new HlcIdGenerator({ node: 4, clock }), { node: 4 });
  assert.deepEqual(g.stats, { issued: 0, exhaustionWaits: 0, rollbackWaits: 0, lastTick: -1 });
  g.batch(3);
  assert.deepEqual(g.stats, {
    issued: 3,
    exhaustionWaits: 0,
    rollbackWaits: 0,
    lastTick: T - HLC_LAYOUT.epochMs,
  });
  assert.deepEqual(g.batch(0), []);
  assert.equal(g.stats.lastTick, T - HLC_LAYOUT.epochMs);
});

test('a gene is refused (layout hlc has none); so are bad options and generators', () => {
  const g = new HlcNodeClock().factory(lease(0));
  assert.throws(() => g.next({ gene: 1 }), RangeError);
  assert.throws(() => g.batch(2, { gene: 1 }), RangeError);
  assert.equal(g.generator.stats.issued, 0);
  assert.throws(() => new HlcNodeClock({ maxDriftMs: -1 }), RangeError);
  assert.throws(() => new HlcNodeClock({ maxWaitMs: '5' as never }), TypeError);
  assert.throws(() => new HlcNodeClock({ clock: new ManualClock(T) } as never), RangeError);
  assert.throws(() => new HlcNodeClock(null as never), TypeError);
  assert.throws(() => new HlcNodeGenerator({} as never, {}), TypeError);
  assert.throws(() => new HlcNodeClock().factory(lease(1024)), RangeError);
});
