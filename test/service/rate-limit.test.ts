// The service's rate limit (rate-limit.ts): a fixed window per key opened by its first
// request, the headers' values, and a bounded number of keys.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateLimiter, rateHeaders } from '../../packages/server/src/service/http/rate-limit.js';

test('a fixed window per key: max requests, then limited until the window closes', () => {
  let now = 1_000_000;
  const l = new RateLimiter({ max: 3, windowMs: 10_000, now: () => now });
  assert.deepEqual(l.take('a'), { limited: false, limit: 3, remaining: 2, resetS: 10 });
  now += 2_500;
  assert.deepEqual(l.take('a'), { limited: false, limit: 3, remaining: 1, resetS: 8 });
  assert.equal(l.full('a'), false);
  assert.equal(l.take('a').remaining, 0);
  assert.equal(l.full('a'), true, 'the next one would be over');
  assert.equal(l.full('b'), false, 'another key has its own window');
  assert.deepEqual(l.take('a'), { limited: true, limit: 3, remaining: 0, resetS: 8 });
  now += 7_499;
  assert.equal(l.take('a').limited, true, '1 ms before the window closes');
  now += 1;
  assert.deepEqual(l.take('a'), { limited: false, limit: 3, remaining: 2, resetS: 10 });
});

test('at most maxKeys keys: the one whose window opened first goes', () => {
  let now = 0;
  const l = new RateLimiter({ max: 1, windowMs: 60_000, maxKeys: 2, now: () => now });
  l.take('a');
  now += 1;
  l.take('b');
  l.take('a');
  assert.equal(l.full('a'), true);
  now += 1;
  l.take('c');
  assert.equal(l.full('a'), false, 'a, opened first, was dropped: a new window');
  assert.equal(l.full('b'), true);
  assert.equal(l.full('c'), true);
});

test('a window reopened after it closed counts as opened then: a full map drops older ones first', () => {
  // windowMs 1000, three keys: b at 0, e at 100, a at 500. At 1150 b and e have closed, a has
  // not. e reopens: it is now the newest window, so c and d, new keys, drop b (closed) and then
  // a (opened at 500), never e's window, opened at 1150.
  let now = 0;
  const l = new RateLimiter({ max: 1, windowMs: 1_000, maxKeys: 3, now: () => now });
  l.take('b');
  now = 100;
  l.take('e');
  now = 500;
  l.take('a');
  now = 1_150;
  l.take('e');
  now = 1_200;
  l.take('c');
  now = 1_250;
  l.take('d');
  assert.equal(l.full('e'), true, "e's window kept");
  assert.equal(l.full('a'), false, 'a, the oldest open window, dropped');
  assert.equal(l.full('c'), true);
  assert.equal(l.full('d'), true);
});

test('takeUnlessFull counts as take does, and refuses with nothing counted when full', () => {
  let now = 5_000;
  const l = new RateLimiter({ max: 2, windowMs: 10_000, now: () => now });
  assert.deepEqual(l.takeUnlessFull('a'), { limited: false, limit: 2, remaining: 1, resetS: 10 });
  assert.deepEqual(l.takeUnlessFull('a'), { limited: false, limit: 2, remaining: 0, resetS: 10 });
  assert.equal(l.takeUnlessFull('a'), null, 'the third would be over: refused');
  assert.equal(l.takeUnlessFull('a'), null, 'and the refusal counted nothing');
  assert.deepEqual(l.take('a'), { limited: true, limit: 2, remaining: 0, resetS: 10 });
  now += 10_000;
  assert.deepEqual(l.takeUnlessFull('a'), { limited: false, limit: 2, remaining: 1, resetS: 10 });
});

test('rateHeaders appends to a list it is given', () => {
  const into = ['content-type', 'text/plain'];
  const d = { limited: true, limit: 5, remaining: 0, resetS: 3 };
  assert.equal(rateHeaders(d, into), into);
  assert.deepEqual(into, [
    'content-type',
    'text/plain',
    'x-ratelimit-limit',
    '5',
    'x-ratelimit-remaining',
    '0',
    'x-ratelimit-reset',
    '3',
    'retry-after',
    '3',
  ]);
});

test('grant: what is asked, or a share of what is left, never past the limit (--processes)', () => {
  let now = 0;
  const l = new RateLimiter({ max: 20, windowMs: 10_000, now: () => now });
  assert.deepEqual(l.grant('a', 1, 4), { granted: 5, remaining: 15, resetAtMs: 10_000 });
  assert.deepEqual(l.grant('a', 1, 4), { granted: 3, remaining: 12, resetAtMs: 10_000 });
  assert.deepEqual(l.grant('a', 13, 4), { granted: 12, remaining: 0, resetAtMs: 10_000 });
  assert.deepEqual(l.grant('a', 1, 4), { granted: 0, remaining: 0, resetAtMs: 10_000 });
  assert.equal(l.full('a'), true, 'what was granted counts in the window');
  now += 10_000;
  assert.deepEqual(l.grant('a', 1, 4), { granted: 5, remaining: 15, resetAtMs: 20_000 });
});
