// Issue 19 §12: an exhausted tag retried forever. After IDF_SEQUENCE_EXHAUSTED its buffer kept
// fetching in the background with nobody asking (the back-off's retry timer, about once a
// second: 14 warnings per 10 s per tag), and each failure raised idforge_store_errors_total.
// Asserted on a real SQLite segment store with a tag near 2^63 - 1: once exhausted, a buffer
// makes no store call however long nobody asks (60 s of the back-off's timers, mocked, run
// through), a request asks the store exactly once more and gets the typed error, and the
// service counts no store error for it. The same for a tag exhausted before its first block
// (the buffer whose opening failed was dropped, but its retry timer went on).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, type TestContext, test } from 'node:test';
import { setImmediate as turn } from 'node:timers/promises';
import {
  MAX_SEQUENCE_VALUE,
  openSegmentSequence,
  type SegmentFetchEvent,
  SequenceExhaustedError,
} from '../../packages/idforge/src/sequences/index.js';
import { openSegmentStore } from '../../packages/stores/src/open.js';
import { openTestService } from '../helpers/service.js';
import { suiteTempDir } from '../helpers/temp.js';

const dir = suiteTempDir('idforge-exhausted-tag-');

/**
 * Mocked time for a buffer: its `now` and its timers (back-off, request waits) move together,
 * by `run(ms)` in 50 ms steps, letting store calls settle in between.
 */
function mockedTime(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let nowMs = 0;
  const run = async (ms: number) => {
    for (let passed = 0; passed < ms; passed += 50) {
      nowMs += 50;
      t.mock.timers.tick(50);
      await turn();
      await turn();
    }
  };
  /** Settles `p` while mocked time runs, at most 10 s of it (a request waits at most 3 s). */
  const settle = async <T>(p: Promise<T>): Promise<T> => {
    let done = false;
    const watched = p.finally(() => {
      done = true;
    });
    watched.catch(() => undefined);
    for (let i = 0; i < 200 && !done; i++) await run(50);
    assert.ok(done, 'still pending after 10 s of mocked time');
    return watched;
  };
  return { now: () => nowMs, run, settle };
}

/** A fresh SQLite segment store with `tag`: step 10, the first number `start`. */
async function storeWith(name: string, tag: string, start: bigint) {
  const store = await openSegmentStore(`sqlite:${join(dir, `${name}.db`)}`);
  await store.createTag(tag, { step: 10, start });
  return store;
}

describe('issue 19 §12: an exhausted tag stops fetching until asked', () => {
  test('a buffer exhausted after two blocks: no store call while nobody asks, one per request', async (t) => {
    // max_id = 2^63 - 26: two blocks of 10 fit below 2^63 - 1, the third does not.
    const store = await storeWith('two', 'near', MAX_SEQUENCE_VALUE - 25n);
    const time = mockedTime(t);
    const events: SegmentFetchEvent[] = [];
    const seq = await time.settle(
      openSegmentSequence(store, 'near', {
        dynamicStep: false,
        now: time.now,
        onFetch: (e) => events.push(e),
      }),
    );
    try {
      const served: bigint[] = [];
      let error: unknown;
      for (let i = 0; i < 21 && error === undefined; i++) {
        try {
          served.push(seq.tryNext() ?? (await time.settle(seq.next())));
        } catch (e) {
          error = e;
        }
      }
      assert.equal(served.length, 20);
      assert.ok(error instanceof SequenceExhaustedError, String(error));
      const calls = events.length;
      await time.run(60_000);
      assert.equal(events.length, calls, 'store calls in 60 s with nobody asking');
      await assert.rejects(time.settle(seq.next()), SequenceExhaustedError);
      assert.equal(events.length, calls + 1, 'a request asks the store once more');
      await time.run(60_000);
      assert.equal(events.length, calls + 1, 'and nothing after it');
    } finally {
      seq.close();
      await store.close();
    }
  });

  test('a tag exhausted before its first block: the failed opening leaves nothing fetching', async (t) => {
    const store = await storeWith('none', 'full', MAX_SEQUENCE_VALUE - 5n);
    const time = mockedTime(t);
    const events: SegmentFetchEvent[] = [];
    try {
      await assert.rejects(
        time.settle(
          openSegmentSequence(store, 'full', { now: time.now, onFetch: (e) => events.push(e) }),
        ),
        SequenceExhaustedError,
      );
      assert.equal(events.length, 1);
      await time.run(60_000);
      assert.equal(events.length, 1, 'store calls in 60 s after the opening failed');
    } finally {
      await store.close();
    }
  });

  test('the service: 503 IDF_SEQUENCE_EXHAUSTED, one store call per request, no store error', async () => {
    const s = await openTestService();
    try {
      // One block of 10 fits; the buffer's second fetch (the step doubled: 20) does not.
      await s.deps.sequences.create('near', 10, MAX_SEQUENCE_VALUE - 15n, undefined);
      const get = () => s.app.inject('/v1/sequences/near?count=10');
      assert.equal((await get()).statusCode, 200);
      const r = await get();
      assert.equal(r.statusCode, 503, r.body);
      assert.equal(JSON.parse(r.body).error.code, 'IDF_SEQUENCE_EXHAUSTED');
      const failures = () => s.deps.sequences.snapshots()[0]?.fetchFailures ?? -1;
      const before = failures();
      for (let i = 0; i < 3; i++) assert.equal((await get()).statusCode, 503);
      assert.equal(failures(), before + 3, 'one store call per request, none of its own');
      const metrics = (await s.app.inject('/metrics')).body;
      assert.doesNotMatch(metrics, /^idforge_store_errors_total\{/m);
    } finally {
      await s.close();
    }
  });
});
