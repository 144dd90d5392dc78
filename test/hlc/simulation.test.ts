// Several nodes with skewed, jumping clocks exchange messages with random delays, events
// interleaved at random (fast-check). For every run: every happened-before pair (tracked by
// vector clocks, so send→receive pairs and their transitive closure) has increasing HLC
// timestamps and increasing HLC IDs; each node's timestamps strictly increase; l - pt stays
// within the skew bound (Kulkarni et al. 2014, Theorem: l - pt <= ε); IDs are unique across
// nodes. Negative control: the same scenarios with plain Snowflake IDs break send→receive
// order, so the checker can fail.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type Clock, SnowflakeGenerator } from '../../packages/idforge/src/core/index.js';
import {
  compareHlc,
  HlcIdGenerator,
  type HlcTimestamp,
  HybridLogicalClock,
  hlcOfId,
} from '../../packages/idforge/src/hlc/index.js';

/** ε: every clock's offset from true time stays in [-ε/2, ε/2], so any two differ by <= ε. */
const EPS = 100;
const T0 = Date.parse('2026-03-01T00:00:00Z');

type Cmd =
  | { readonly k: 'tick'; readonly ms: number }
  | { readonly k: 'local'; readonly node: number }
  | { readonly k: 'send'; readonly from: number; readonly to: number; readonly delay: number }
  | { readonly k: 'deliver'; readonly pick: number }
  | { readonly k: 'jump'; readonly node: number; readonly offset: number };

interface Scenario {
  readonly offsets: readonly number[];
  readonly cmds: readonly Cmd[];
}

const offsetArb = fc.integer({ min: -EPS / 2, max: EPS / 2 });
function cmdArb(n: number, jumps: boolean): fc.Arbitrary<Cmd> {
  const node = fc.integer({ min: 0, max: n - 1 });
  const cmds: fc.Arbitrary<Cmd>[] = [
    fc.integer({ min: 0, max: 3 }).map((ms) => ({ k: 'tick', ms })),
    node.map((i) => ({ k: 'local', node: i })),
    fc
      .tuple(node, node, fc.integer({ min: 0, max: 30 }))
      .map(([from, to, delay]) => ({ k: 'send', from, to, delay })),
    fc.nat().map((pick) => ({ k: 'deliver', pick })),
    fc.nat().map((pick) => ({ k: 'deliver', pick })),
  ];
  if (jumps)
    cmds.push(fc.tuple(node, offsetArb).map(([i, offset]) => ({ k: 'jump', node: i, offset })));
  return fc.oneof(...cmds);
}
function scenarioArb(jumps: boolean): fc.Arbitrary<Scenario> {
  return fc.integer({ min: 3, max: 6 }).chain((n) =>
    fc.record({
      offsets: fc.array(offsetArb, { minLength: n, maxLength: n }),
      cmds: fc.array(cmdArb(n, jumps), { minLength: 20, maxLength: 120 }),
    }),
  );
}

/** What each node mints IDs with: the HLC generator, or a plain Snowflake (control). */
interface Minter {
  next(): bigint;
  /** What travels with a message. */
  stamp(): HlcTimestamp | undefined;
  receive(stamp: HlcTimestamp | undefined): void;
}

interface Event {
  readonly node: number;
  /** Vector clock: e happened before f iff e !== f and e.vc[e.node] <= f.vc[e.node]. */
  readonly vc: readonly number[];
  readonly ts: HlcTimestamp;
  readonly id: bigint;
  /** The node's physical clock when the event happened. */
  readonly pt: number;
}

interface Message {
  readonly to: number;
  readonly at: number;
  readonly ts: HlcTimestamp;
  readonly stamp: HlcTimestamp | undefined;
  readonly vc: readonly number[];
  readonly send: Event;
}

interface Run {
  readonly events: Event[];
  readonly pairs: [send: Event, receive: Event][];
}

function simulate(s: Scenario, minter: (node: number, clock: Clock) => Minter): Run {
  const n = s.offsets.length;
  let t = T0;
  const offsets = [...s.offsets];
  const clocks = offsets.map(
    (_, i): Clock => ({
      now: () => Math.floor(t + offsets[i]!),
      nowPrecise: () => t + offsets[i]!,
      sleep: (ms) => {
        t += ms;
      },
    }),
  );
  const hlcs = clocks.map((clock) => new HybridLogicalClock({ clock, maxDriftMs: EPS }));
  const minters = clocks.map((clock, i) => minter(i, clock));
  const vcs = offsets.map(() => new Array<number>(n).fill(0));
  const events: Event[] = [];
  const pairs: Run['pairs'] = [];
  let pending: Message[] = [];
  const record = (i: number, ts: HlcTimestamp, id: bigint): Event => {
    const e = { node: i, vc: [...vcs[i]!], ts, id, pt: clocks[i]!.now() };
    events.push(e);
    return e;
  };
  const deliver = (m: Message) => {
    const vc = vcs[m.to]!;
    for (let j = 0; j < n; j++) vc[j] = Math.max(vc[j]!, m.vc[j]!);
    vc[m.to]!++;
    const ts = hlcs[m.to]!.receive(m.ts);
    minters[m.to]!.receive(m.stamp);
    pairs.push([m.send, record(m.to, ts, minters[m.to]!.next())]);
  };
  for (const c of s.cmds) {
    if (c.k === 'tick') t += c.ms;
    else if (c.k === 'jump') offsets[c.node] = c.offset;
    else if (c.k === 'local') {
      vcs[c.node]![c.node]!++;
      record(c.node, hlcs[c.node]!.now(), minters[c.node]!.next());
    } else if (c.k === 'send') {
      vcs[c.from]![c.from]!++;
      const send = record(c.from, hlcs[c.from]!.now(), minters[c.from]!.next());
      const stamp = minters[c.from]!.stamp();
      pending.push({ to: c.to, at: t + c.delay, ts: send.ts, stamp, vc: send.vc, send });
    } else {
      const due = pending.filter((m) => m.at <= t);
      const m = due[c.pick % Math.max(due.length, 1)];
      if (m === undefined) continue;
      pending = pending.filter((x) => x !== m);
      deliver(m);
    }
  }
  for (const m of pending) {
    t = Math.max(t, m.at);
    deliver(m);
  }
  return { events, pairs };
}

const hlcMinter = (node: number, clock: Clock): Minter => {
  const g = new HlcIdGenerator({ node, clock, maxDriftMs: EPS });
  return { next: () => g.next(), stamp: () => g.last, receive: (s) => g.receive(s!) };
};
const snowflakeMinter = (node: number, clock: Clock): Minter => {
  const g = new SnowflakeGenerator({ node, clock, toleranceMs: EPS });
  return { next: () => g.next(), stamp: () => undefined, receive: () => {} };
};

/** Send→receive pairs whose receive-side ID is not above the sender's ID. */
function idViolations(run: Run): number {
  return run.pairs.filter(([send, receive]) => receive.id <= send.id).length;
}

function check(run: Run): void {
  const { events, pairs } = run;
  for (const [send, receive] of pairs) {
    assert.equal(compareHlc(receive.ts, send.ts), 1, 'receive timestamp > send timestamp');
    assert.ok(receive.id > send.id, 'the ID minted after receipt > the sender ID');
  }
  const last = new Map<number, Event>();
  for (const e of events) {
    const prev = last.get(e.node);
    if (prev !== undefined) {
      assert.equal(compareHlc(e.ts, prev.ts), 1, `node ${e.node}: timestamps strictly increase`);
      assert.ok(e.id > prev.id, `node ${e.node}: IDs strictly increase`);
    }
    last.set(e.node, e);
    assert.ok(e.ts.l - e.pt <= EPS, `l - pt = ${e.ts.l - e.pt} > ε`);
    assert.ok(hlcOfId(e.id).l - e.pt <= EPS, 'the ID generator too: l - pt <= ε');
  }
  // Every happened-before pair, not only the direct ones.
  for (const e of events) {
    for (const f of events) {
      if (e === f || e.vc[e.node]! > f.vc[e.node]!) continue;
      assert.equal(compareHlc(e.ts, f.ts), -1, 'e → f implies ts(e) < ts(f)');
      assert.ok(e.id < f.id, 'e → f implies id(e) < id(f)');
    }
  }
  assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'IDs are unique');
}

test('HLC timestamps and HLC IDs respect happened-before under skewed, jumping clocks', () => {
  let pairs = 0;
  fc.assert(
    fc.property(scenarioArb(true), (s) => {
      const run = simulate(s, hlcMinter);
      check(run);
      pairs += run.pairs.length;
    }),
    { numRuns: 80 },
  );
  assert.ok(pairs > 200, `the runs exchanged messages (${pairs})`);
});

test('negative control: plain Snowflake IDs break send→receive order in the same simulation', () => {
  const scenarios = fc.sample(scenarioArb(false), { seed: 13, numRuns: 20 });
  let violations = 0;
  for (const s of scenarios) {
    const hlc = simulate(s, hlcMinter);
    check(hlc);
    assert.equal(idViolations(hlc), 0);
    violations += idViolations(simulate(s, snowflakeMinter));
  }
  assert.ok(violations > 0, 'skewed Snowflake nodes put a reply before its cause');
  // And the checker itself fails on such a run.
  const bad = scenarios.map((s) => simulate(s, snowflakeMinter)).find((r) => idViolations(r) > 0);
  assert.throws(() => check(bad!), assert.AssertionError);
});
