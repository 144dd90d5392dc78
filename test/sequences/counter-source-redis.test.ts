// counterBlockSource on the shared Redis (127.0.0.1:6379, a namespace of its own) with marks
// in a temporary SQLite file: the boundary of the regression check, a counter restored by hand
// to exactly one below the mark. Its next INCRBY returns the mark itself, a number already
// served, so the block must count as a regression ("at or below the mark"), not as fresh.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { counterBlockSource } from '../../packages/idforge/src/sequences/counter-source.js';
import { CounterRegressedError } from '../../packages/idforge/src/sequences/index.js';
import { openRedisCounterStore } from '../../packages/stores/src/redis/counter-store.js';
import { openMarks } from '../contract/mark-store.js';
import { withRedis } from '../helpers/redis.js';
import { serviceSkip } from '../helpers/services.js';
import { tempDir } from '../helpers/temp.js';

const URL = 'redis://127.0.0.1:6379';
const skip = await serviceSkip('Redis', '127.0.0.1', 6379);
const ns = `idforge-test-${randomUUID().slice(0, 8)}`;
const { dir, remove: removeDir } = tempDir('idforge-counter-src-');
const quiet = { warn() {} };
let n = 0;

after(async () => {
  removeDir();
  if (skip !== false) return;
  await withRedis(URL, async (redis) => {
    const keys = await redis.keys(`${ns}:*`);
    if (keys.length > 0) await redis.unlink(...keys);
  });
});

/**
 * A source whose counter has served 1..300 (mark 300) and was then set back by hand to 299,
 * with its stores; `close` closes both.
 */
async function restoredToMarkMinusOne(onRegression: 'refuse' | 'reseed') {
  const tag = `t${n++}`;
  const counter = await openRedisCounterStore(`${URL}?namespace=${ns}`, { connectTimeoutMs: 2000 });
  const marks = await openMarks(`sqlite:${join(dir, `${tag}.db`)}`);
  const take = counterBlockSource(counter, marks, tag, { onRegression, logger: quiet });
  for (let i = 0; i < 3; i++) await take(100);
  assert.equal(await marks.read(tag), 300n);
  await withRedis(URL, (redis) => redis.set(`${ns}:counter:${tag}`, '299'));
  const close = async () => {
    await counter.close();
    await marks.close();
  };
  return { take, close };
}

describe('counterBlockSource on Redis, counter restored to mark - 1', { skip }, () => {
  test('refuse: the mark itself is not served again', async () => {
    const { take, close } = await restoredToMarkMinusOne('refuse');
    try {
      await assert.rejects(
        take(1),
        (e: unknown) =>
          e instanceof CounterRegressedError && e.value === 300n && e.markValue === 300n,
      );
      // The refusal moved the counter to 300: the next number is the first above the mark.
      assert.deepEqual(await take(1), { first: 301n, last: 301n });
    } finally {
      await close();
    }
  });

  test('reseed: the block holding the mark is dropped and the counter raised above it', async () => {
    const { take, close } = await restoredToMarkMinusOne('reseed');
    try {
      const block = await take(1);
      assert.ok(block.first > 300n, `served ${block.first}, at or below the mark 300`);
      assert.equal(take.stats().regressions, 1);
      assert.equal(take.stats().reseeds, 1);
    } finally {
      await close();
    }
  });
});
