// HLC IDs: the layout as drawn, strictly increasing IDs through counter overflow, order after
// receive, horizon and admit refusals leaving the state unchanged, hlcOfId, options.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  decompose,
  describeLayout,
  HorizonExceededError,
  InvalidIdError,
  ManualClock,
} from '../../packages/idforge/src/core/index.js';
import {
  compareHlc,
  HLC_LAYOUT,
  HlcDriftError,
  HlcIdGenerator,
  hlcOfId,
} from '../../packages/idforge/src/hlc/index.js';

const T = Date.parse('2026-03-01T00:00:00Z');

test('the layout is the one drawn in its doc comment: time 41, counter 12, node 10 (lowest)', () => {
  const src = readFileSync(
    new URL('../../packages/idforge/src/hlc/ids.ts', import.meta.url),
    'utf8',
  );
  const drawn = describeLayout(HLC_LAYOUT).split('\n').slice(1);
  for (const line of drawn) assert.ok(src.includes(` * ${line}\n`), `diagram line: ${line}`);
  assert.deepEqual(
    HLC_LAYOUT.fields.map((f) => [f.name, f.role, f.bits, f.shift]),
    [
      ['time', 'time', 41, 22],
      ['counter', 'sequence', 12, 10],
      ['node', 'node', 10, 0],
    ],
  );
  assert.equal(HLC_LAYOUT.epochMs, Date.parse('2025-01-01T00:00:00Z'));
  assert.equal(HLC_LAYOUT.signBit, true);
});

test('IDs strictly increase, through a full counter (4,096 per l), and decode to their (l, c)', () => {
  const clock = new ManualClock(T);
  const g = new HlcIdGenerator({ node: 7, clock });
  const ids = g.batch(10_000);
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, `at ${i}`);
  assert.deepEqual(hlcOfId(ids[0]!), { l: T, c: 0 });
  assert.deepEqual(hlcOfId(ids[4095]!), { l: T, c: 4095 });
  assert.deepEqual(hlcOfId(ids[4096]!), { l: T + 1, c: 0 });
  assert.deepEqual(hlcOfId(ids.at(-1)!.toString()), g.last);
  assert.equal(decompose(HLC_LAYOUT, ids[9]!).fields.node, 7);
  assert.equal(g.stats.issued, 10_000);
  assert.equal(g.stats.waits, 2);
  assert.equal(g.node, 7);
  assert.equal(g.layout, HLC_LAYOUT);
});

test('after receive(t), every ID is above every ID stamped at or below t, whatever the nodes', () => {
  const ahead = new HlcIdGenerator({ node: 1, clock: new ManualClock(T + 200) });
  const behind = new HlcIdGenerator({ node: 0, clock: new ManualClock(T) });
  const sent = ahead.batch(3);
  behind.receive(ahead.last);
  const after = behind.next();
  for (const id of sent) assert.ok(after > id);
  assert.equal(compareHlc(hlcOfId(after), ahead.last), 1);
  // Same (l, c) on two nodes: distinct IDs, ordered by node.
  const a = new HlcIdGenerator({ node: 3, clock: new ManualClock(T) }).next();
  const b = new HlcIdGenerator({ node: 4, clock: new ManualClock(T) }).next();
  assert.deepEqual(hlcOfId(a), hlcOfId(b));
  assert.ok(a < b);
});

test('a time before the epoch or past the horizon is refused; the state is unchanged', () => {
  assert.throws(
    () => new HlcIdGenerator({ node: 0, clock: new ManualClock(HLC_LAYOUT.epochMs - 1) }).next(),
    HorizonExceededError,
  );
  const end = HLC_LAYOUT.horizonMs;
  const clock = new ManualClock(end - 1);
  const g = new HlcIdGenerator({ node: 0, clock, maxDriftMs: 10 });
  assert.deepEqual(hlcOfId(g.next()), { l: end - 1, c: 0 });
  assert.throws(() => g.receive({ l: end + 5, c: 0 }), HorizonExceededError);
  assert.deepEqual(g.last, { l: end - 1, c: 0 });
  clock.set(end);
  assert.throws(() => g.next(), HorizonExceededError);
  assert.deepEqual(g.last, { l: end - 1, c: 0 });
});

test('admit is asked once per new l; a refusal reaches the caller and changes nothing', () => {
  const clock = new ManualClock(T);
  const asked: number[] = [];
  let refuse = false;
  const admit = (l: number) => {
    asked.push(l);
    if (refuse) throw new Error('fenced');
  };
  const g = new HlcIdGenerator({ node: 2, clock, admit });
  g.next();
  g.next();
  g.receive({ l: T + 50, c: 9 });
  refuse = true;
  assert.throws(() => g.next(), /fenced/);
  assert.deepEqual(g.last, { l: T + 50, c: 10 });
  refuse = false;
  assert.deepEqual(hlcOfId(g.next()), { l: T + 50, c: 11 });
  assert.deepEqual(asked, [T, T + 50, T + 50]);
});

test('drift refusal leaves the generator unchanged and is counted', () => {
  const g = new HlcIdGenerator({ node: 2, clock: new ManualClock(T), maxDriftMs: 100 });
  const first = g.next();
  assert.throws(() => g.receive({ l: T + 101, c: 0 }), HlcDriftError);
  assert.equal(g.stats.refused, 1);
  assert.deepEqual(hlcOfId(g.next()), { l: T, c: 1 });
  assert.ok(g.next() > first);
});

test('initial: a restored high-water mark keeps a restarted node above its old IDs', () => {
  const clock = new ManualClock(T);
  const g1 = new HlcIdGenerator({ node: 5, clock });
  g1.receive({ l: T + 400, c: 0 });
  const old = g1.batch(3);
  const g2 = new HlcIdGenerator({ node: 5, clock, initial: g1.last });
  assert.ok(g2.next() > old.at(-1)!);
  // Without it, the same node reissues the old (l, c) range once the clock reaches it.
  const g3 = new HlcIdGenerator({ node: 5, clock: new ManualClock(T + 400) });
  assert.ok(old.includes(g3.batch(3).at(-1)!));
});

test('options and arguments are validated', () => {
  const clock = new ManualClock(T);
  assert.throws(() => new HlcIdGenerator({} as never), /node: expected an integer in \[0, 1023\]/);
  assert.throws(() => new HlcIdGenerator({ node: 1024 }), RangeError);
  assert.throws(() => new HlcIdGenerator({ node: 0, tick: 1 } as never), /only node, clock/);
  assert.throws(() => new HlcIdGenerator({ node: 0, admit: 1 as never }), TypeError);
  assert.throws(() => new HlcIdGenerator({ node: 0, maxWaitMs: -1 }), RangeError);
  assert.throws(() => new HlcIdGenerator(undefined as never), TypeError);
  const g = new HlcIdGenerator({ node: 0, clock });
  assert.throws(() => g.batch(-1), RangeError);
  assert.throws(() => g.receive({ l: -1, c: 0 }), RangeError);
  assert.throws(() => hlcOfId(1 as never), TypeError);
  assert.throws(() => hlcOfId('x1'), InvalidIdError);
  assert.throws(() => hlcOfId(2n ** 63n), InvalidIdError);
});
