// The double buffer shared by SegmentBuffer and the client's sequences
// (packages/idforge/src/sequences/double-buffer.ts), on a source and a back-off timer driven by
// hand (./double-buffer-harness.ts): the prefetch point, the back-off, waits, final errors and
// close, each step asserted as it happens. Properties over random runs:
// double-buffer-properties.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import { DoubleBuffer } from '../../packages/idforge/src/sequences/double-buffer.js';
import { CLOSED, FINAL, harness, observe } from './double-buffer-harness.js';

describe('DoubleBuffer', () => {
  test('prefetch at number first + floor(size x prefetchAt), one fetch at a time, above the last block', async () => {
    const h = harness({ prefetchAt: 0.25 });
    assert.equal(h.buffer.tryNext(), undefined, 'empty: a fetch starts');
    assert.equal(h.buffer.tryNext(), undefined);
    assert.equal(h.fetches.length, 1, 'one fetch, however often asked');
    assert.deepEqual([h.fetches[0]!.need, h.fetches[0]!.after], [1, -1n]);
    await h.answer(10);
    assert.deepEqual([h.buffer.tryNext(), h.buffer.tryNext()], [1n, 2n]);
    assert.equal(
      h.fetches.length,
      0,
      'the trigger, 1 + floor(10 x 0.25) = 3, is not handed out yet',
    );
    assert.equal(h.buffer.tryNext(), 3n);
    assert.equal(h.fetches.length, 1, 'handing out the trigger starts the fetch, synchronously');
    assert.equal(h.fetches[0]!.after, 10n, 'the next block must start above 10');
    await h.answer(5, 100n);
    for (let v = 4n; v <= 10n; v++) assert.equal(h.buffer.tryNext(), v);
    assert.equal(h.buffer.tryNext(), 111n, 'the next block becomes current');
    assert.deepEqual(h.buffer.counts, {
      served: 11n,
      buffered: 4n,
      started: 2,
      received: 2,
      failures: 0,
      failingStreak: 0,
      waits: 0,
    });
    assert.deepEqual(h.faults, []);
  });

  test('prefetchAt 0: the next fetch starts as a block becomes current', async () => {
    const h = harness({ prefetchAt: 0 });
    const first = observe(h.buffer.next());
    await h.answer(3);
    assert.equal(first.value, 1n);
    assert.equal(h.fetches.length, 1, 'started when the block was installed');
    await h.answer(3);
    assert.deepEqual(h.buffer.view().next, { first: 4n, last: 6n });
  });

  test('a failed fetch: the numbers held are served, the back-off timer alone retries, with bounded delays', async () => {
    const h = harness({ backoff: { initialMs: 50, maxMs: 400, random: () => 0.5 } });
    h.buffer.tryNext();
    await h.answer(10);
    for (let v = 1n; v <= 3n; v++) assert.equal(h.buffer.tryNext(), v); // 3 starts the fetch
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      await h.fail();
      assert.equal(h.fetches.length, 0);
      assert.equal(h.buffer.tryNext(), BigInt(4 + i), 'buffered numbers are still served');
      assert.equal(h.fetches.length, 0, 'no fetch while the timer is pending');
      delays.push(h.timers.at(-1)!.ms);
      await h.fire();
      assert.equal(h.fetches.length, 1, 'the timer starts the retry');
    }
    // Half the step plus half of the other half (random 0.5): 50, 100, 200, 400, 400, 400.
    assert.deepEqual(delays, [37.5, 75, 150, 300, 300, 300]);
    assert.equal(h.buffer.counts.failingStreak, 6);
    await h.answer(10);
    assert.equal(h.buffer.counts.failingStreak, 0);
    for (let v = 10n; v <= 13n; v++) assert.equal(h.buffer.tryNext(), v); // 13 starts a fetch
    await h.fail();
    assert.equal(h.timers.at(-1)!.ms, 37.5, 'a success resets the back-off');
    assert.deepEqual(h.faults, []);
  });

  test('while backing off a call starts no fetch: the timer fetches what waiting calls miss, and is held by them', async () => {
    const h = harness({ waitThroughFailures: true });
    h.buffer.tryNext();
    await h.fail();
    const batch = observe(h.buffer.batch(250));
    const one = observe(h.buffer.next());
    await turn();
    assert.equal(h.fetches.length, 0, 'the calls wait for the timer');
    assert.equal(h.timers[0]!.held, true, 'an unbounded wait keeps the process alive');
    await h.fire();
    assert.equal(h.fetches[0]!.need, 250, 'the largest need of the waiting calls');
    await h.answer(251);
    // The two calls take in turns: each gets increasing numbers, together all 251 once.
    const all = [...batch.value!, one.value!].sort((a, b) => (a < b ? -1 : 1));
    assert.deepEqual(
      all,
      Array.from({ length: 251 }, (_, i) => BigInt(i + 1)),
    );
    assert.ok(batch.value!.every((v, i) => i === 0 || v > batch.value![i - 1]!));
    assert.equal(h.buffer.counts.waits, 2);
    h.buffer.tryNext();
    assert.equal(h.fetches[0]!.need, 1, 'a later fetch is for no waiting call');
  });

  test('a waiting call: rejected by the first failure it waited for, or through failures when asked to', async () => {
    const once = harness();
    const call = observe(once.buffer.next());
    const failure = new Error('every node down');
    await once.fail(failure);
    assert.equal(call.error, failure);
    const through = harness({ waitThroughFailures: true });
    const patient = observe(through.buffer.next());
    await through.fail();
    await through.fire();
    await through.fail();
    await through.fire();
    assert.equal(patient.done, false, 'still waiting after two failed fetches');
    await through.answer(1);
    assert.equal(patient.value, 1n);
  });

  test('batch: what is buffered first, then a block of what is still missing', async () => {
    const h = harness({ prefetchAt: 0.9, waitThroughFailures: true });
    h.buffer.tryNext();
    await h.answer(4);
    assert.deepEqual([h.buffer.tryNext(), h.buffer.tryNext()], [1n, 2n]);
    const batch = observe(h.buffer.batch(7));
    await turn();
    assert.equal(h.fetches[0]!.need, 1, 'number 4, the trigger, started the prefetch');
    await h.fail();
    await h.fire();
    assert.equal(h.fetches[0]!.need, 5, '2 taken from the buffer, 5 missing');
    await h.answer(5);
    assert.deepEqual(batch.value, [3n, 4n, 5n, 6n, 7n, 8n, 9n]);
  });

  test('a final failure: no background fetch, each call on an empty buffer asks once, calls at the same time share it', async () => {
    const h = harness({ waitThroughFailures: true });
    const first = observe(h.buffer.next());
    await h.fail(FINAL);
    assert.equal(h.timers.length, 0, 'no back-off timer');
    assert.equal(h.fetches.length, 1, 'the call that found it final asks once more');
    await h.fail(FINAL);
    assert.equal(first.error, FINAL);
    assert.equal(h.buffer.tryNext(), undefined);
    assert.equal(h.fetches.length, 0, 'tryNext asks nothing of a final source');
    const [a, b] = [observe(h.buffer.next()), observe(h.buffer.next())];
    await turn();
    assert.equal(h.fetches.length, 1, 'one fetch for both calls');
    await h.fail(FINAL);
    assert.deepEqual([a.error, b.error], [FINAL, FINAL]);
    assert.equal(h.buffer.counts.started, 3);

    // An ask that fails otherwise backs off; a call that came meanwhile asks for itself.
    const c = observe(h.buffer.next());
    await turn();
    await h.fail();
    const d = observe(h.buffer.next());
    await h.fire();
    await h.fail(FINAL);
    assert.equal(c.error, FINAL, 'its own ask failed finally');
    assert.equal(d.done, false, 'd shared no ask: it asks once more');
    assert.equal(h.fetches.length, 1);
    await h.answer(1);
    assert.equal(d.value, 1n);
  });

  test('close(): waiting calls end at once, the buffered numbers are dropped, the timer is cancelled', async () => {
    const h = harness({ waitThroughFailures: true });
    h.buffer.tryNext();
    await h.answer(10);
    assert.equal(h.buffer.tryNext(), 1n);
    for (let i = 0; i < 9; i++) h.buffer.tryNext(); // 3 started the fetch
    await h.fail();
    const waiting = [observe(h.buffer.next()), observe(h.buffer.batch(3))];
    await turn();
    h.buffer.close();
    await turn();
    assert.deepEqual(
      waiting.map((w) => w.error),
      [CLOSED, CLOSED],
    );
    assert.equal(h.timers[0]!.cancelled, true);
    assert.equal(h.buffer.tryNext(), undefined);
    await assert.rejects(h.buffer.next(), (e) => e === CLOSED);
    assert.equal(h.buffer.counts.served, 10n);

    const held = harness({ prefetchAt: 0 });
    held.buffer.tryNext();
    await held.answer(3);
    assert.equal(held.buffer.tryNext(), 1n);
    await held.answer(3);
    assert.equal(held.buffer.counts.buffered, 5n, 'the rest of the current block and the next');
    held.buffer.close();
    assert.deepEqual(held.buffer.counts.buffered, 0n);
    assert.deepEqual(held.buffer.view(), { current: null, next: null, loading: false });
    assert.equal(held.buffer.counts.served, 1n);

    const late = harness();
    late.buffer.tryNext();
    late.buffer.close();
    await late.answer(5);
    assert.equal(late.buffer.tryNext(), undefined, 'an answer after close is not served');
    assert.equal(late.buffer.counts.buffered, 0n);
  });

  test('warm(): fetches the first block; on a buffer holding numbers, even one, it fetches nothing', async () => {
    const h = harness({ prefetchAt: 0.9 });
    const warming = observe(h.buffer.warm());
    await turn();
    assert.equal(h.fetches.length, 1);
    await h.answer(3);
    assert.equal(warming.done, true);
    assert.deepEqual(h.buffer.view().current, { first: 1n, last: 3n, next: 1n });
    assert.deepEqual([h.buffer.tryNext(), h.buffer.tryNext()], [1n, 2n]);
    await h.buffer.warm();
    assert.equal(h.fetches.length, 0, 'one number left: nothing to load');
    assert.equal(h.buffer.tryNext(), 3n, 'the last number is not skipped');

    // On a source that failed finally, warm() asks once; a call meanwhile shares that ask.
    const final = harness({ waitThroughFailures: true });
    final.buffer.tryNext();
    await final.fail(FINAL);
    const warmed = observe(final.buffer.warm());
    const call = observe(final.buffer.next());
    await turn();
    await final.fail(FINAL);
    assert.deepEqual([warmed.error, call.error], [FINAL, FINAL]);
    assert.equal(final.buffer.counts.started, 2, 'one ask for both');

    const closing = harness();
    const pending = observe(closing.buffer.warm());
    await turn();
    closing.buffer.close();
    await turn();
    assert.equal(pending.error, CLOSED, 'closed while warming');
  });

  test('a fetch that throws instead of rejecting is a failed fetch, never a throw from tryNext', async () => {
    let calls = 0;
    let retry: () => void = () => undefined;
    const buffer = new DoubleBuffer({
      fetch: () => {
        calls++;
        throw new Error('synchronous');
      },
      prefetchAt: 0.2,
      backoff: { initialMs: 50 },
      isFinal: () => false,
      waitThroughFailures: false,
      closedError: () => CLOSED,
      schedule: (run) => {
        retry = run;
        return { cancel: () => undefined, hold: () => undefined };
      },
    });
    assert.equal(buffer.tryNext(), undefined);
    await turn();
    assert.equal(calls, 1);
    assert.equal(buffer.counts.failures, 1);
    const call = buffer.next();
    retry();
    await assert.rejects(call, /synchronous/);
    assert.equal(calls, 2);
  });
});
