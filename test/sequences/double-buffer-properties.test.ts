// Properties of the double buffer shared by SegmentBuffer and the client's sequences, over
// random runs (fast-check) on a source and a back-off timer driven by hand
// (./double-buffer-harness.ts): calls, answers, failures, timers and close in any order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import fc from 'fast-check';
import type { NumberRange } from '../../packages/idforge/src/wire/index.js';
import { CLOSED, FINAL, harness, observe } from './double-buffer-harness.js';

const DOWN = new Error('down');

type Op =
  | { readonly op: 'try' }
  | { readonly op: 'next' }
  | { readonly op: 'batch'; readonly count: number }
  | { readonly op: 'answer'; readonly size: number; readonly gap: number }
  | { readonly op: 'fail'; readonly final: boolean }
  | { readonly op: 'fire' }
  | { readonly op: 'close' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ op: 'try' as const }) },
  { weight: 2, arbitrary: fc.constant({ op: 'next' as const }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('batch' as const), count: fc.nat(25) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('answer' as const),
      size: fc.integer({ min: 1, max: 30 }),
      gap: fc.nat(5),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('fail' as const), final: fc.boolean() }) },
  { weight: 2, arbitrary: fc.constant({ op: 'fire' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'close' as const }) },
);

/** Every number of `blocks` handed out is a prefix of its block, and a block is begun only once the one before is used up. */
function assertPrefixes(blocks: readonly NumberRange[], handed: ReadonlySet<bigint>): void {
  let laterBegun = false;
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i]!;
    let k = 0n;
    while (b.first + k <= b.last && handed.has(b.first + k)) k++;
    for (let v = b.first + k; v <= b.last; v++) {
      assert.ok(
        !handed.has(v),
        `${v} handed out, but ${b.first + k} of [${b.first}, ${b.last}] not`,
      );
    }
    const full = b.first + k > b.last;
    assert.ok(
      !laterBegun || full,
      `a later block begun before [${b.first}, ${b.last}] was used up`,
    );
    if (k > 0n) laterBegun = true;
  }
}

test('any run: numbers unique, increasing per call, within received blocks, a block a prefix; one fetch at a time; no call stranded', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(opArb, { maxLength: 60 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      fc.boolean(),
      async (ops, prefetchAt, waitThroughFailures) => {
        const backoff = { initialMs: 20, maxMs: 160 };
        const h = harness({ prefetchAt, waitThroughFailures, backoff });
        const calls: ReturnType<typeof observe<bigint | bigint[]>>[] = [];
        const batches: ReturnType<typeof observe<bigint | bigint[]>>[] = [];
        const synced: bigint[] = [];
        for (const o of ops) {
          if (o.op === 'try') {
            const v = h.buffer.tryNext();
            if (v !== undefined) synced.push(v);
          } else if (o.op === 'next') calls.push(observe(h.buffer.next()));
          else if (o.op === 'batch') {
            const b = observe<bigint | bigint[]>(h.buffer.batch(o.count));
            calls.push(b);
            batches.push(b);
          } else if (o.op === 'answer' && h.fetches.length > 0)
            await h.answer(o.size, BigInt(o.gap));
          else if (o.op === 'fail' && h.fetches.length > 0) await h.fail(o.final ? FINAL : DOWN);
          else if (o.op === 'fire' && h.timers.some((t) => t.live)) await h.fire();
          else if (o.op === 'close') h.buffer.close();
          await turn();
          // A waiting call always has something coming to wake it: a fetch, a timer, or close.
          const stranded = calls.some((c) => !c.done);
          const coming = h.fetches.length > 0 || h.timers.some((t) => t.live);
          assert.ok(!stranded || coming, `a call waits on nothing after ${JSON.stringify(o)}`);
        }
        h.buffer.close();
        await turn();
        assert.equal(h.buffer.tryNext(), undefined, 'nothing served after close');
        assert.ok(
          calls.every((c) => c.done),
          'close ends every waiting call',
        );
        assert.ok(
          h.timers.every((t) => !t.live),
          'close cancels the timer',
        );
        assert.deepEqual(h.faults, []);
        for (let i = 1; i < synced.length; i++) assert.ok(synced[i]! > synced[i - 1]!);
        const handed = [...synced];
        for (const c of calls) {
          if (c.error !== undefined) assert.ok([DOWN, FINAL, CLOSED].includes(c.error as Error));
          else if (Array.isArray(c.value)) {
            for (let i = 1; i < c.value.length; i++) assert.ok(c.value[i]! > c.value[i - 1]!);
            handed.push(...c.value);
          } else handed.push(c.value as bigint);
        }
        const set = new Set(handed);
        assert.equal(set.size, handed.length, 'no number handed out twice');
        for (const v of handed) {
          assert.ok(
            h.blocks.some((b) => b.first <= v && v <= b.last),
            `${v} outside every block`,
          );
        }
        // A batch that failed half-way took numbers nobody saw (a gap, never a duplicate).
        const gaps = batches.some((b) => b.error !== undefined);
        if (!gaps) assertPrefixes(h.blocks, set);
        for (const t of h.timers) assert.ok(t.ms >= 10 && t.ms <= 160, `back-off ${t.ms} ms`);
        const served = h.buffer.counts.served;
        if (gaps) assert.ok(served >= BigInt(set.size));
        else assert.equal(served, BigInt(set.size));
      },
    ),
    { numRuns: 300 },
  );
});

test('the prefetch starts when number first + floor(size x prefetchAt) is handed out, never after', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 1, max: 100_000 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      async (size, prefetchAt) => {
        const h = harness({ prefetchAt });
        h.buffer.tryNext();
        const block = await h.answer(size);
        // The index in the block of the number whose handing out started the fetch: at most
        // size x prefetchAt (never later), and less than a millionth of the block (plus the
        // floor's 1) earlier. The first tryNext makes the block current: prefetchAt 0 is index 0.
        let handed = 0;
        while (h.fetches.length === 0 && handed < size) {
          assert.equal(h.buffer.tryNext(), block.first + BigInt(handed));
          handed++;
        }
        const index = handed - 1;
        assert.ok(index <= size * prefetchAt, `trigger ${index} of ${size} at ${prefetchAt}`);
        assert.ok(index > size * prefetchAt - size / 1e6 - 1, `trigger ${index} too early`);
        assert.equal(h.fetches.length, 1);
      },
    ),
    { numRuns: 200 },
  );
});

test('failed fetches are retried after bounded, jittered, growing delays; a success resets them', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      fc.integer({ min: 1, max: 100 }),
      fc.integer({ min: 1, max: 20 }),
      async (outcomes, random, initialMs, factor) => {
        const maxMs = initialMs * factor;
        const h = harness({ backoff: { initialMs, maxMs, random: () => random } });
        h.buffer.tryNext();
        let streak = 0;
        for (const ok of outcomes) {
          if (ok) {
            await h.answer(1);
            streak = 0;
            h.buffer.tryNext(); // the block's only number is its trigger: the next fetch starts
          } else {
            await h.fail();
            const step = Math.min(initialMs * 2 ** streak, maxMs);
            streak++;
            const ms = h.timers.at(-1)!.ms;
            // [step/2, step): a random just below 1 may round up to step itself.
            assert.ok(ms >= step / 2 && ms <= step, `delay ${ms} for step ${step}`);
            assert.equal(h.fetches.length, 0, 'no retry before the timer');
            await h.fire();
          }
          assert.equal(h.buffer.counts.failingStreak, streak);
          assert.equal(h.fetches.length, 1);
        }
        assert.deepEqual(h.faults, []);
      },
    ),
    { numRuns: 200 },
  );
});
