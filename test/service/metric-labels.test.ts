// Issue 19 §3: metric labels from any caller. Every POST /v1/sequences/{tag}/segments for a tag
// that does not exist answered 404 but added 15 idforge_segment_fetch_duration_seconds{tag=…}
// series, never removed, and counted as idforge_store_errors_total{operation="take-segment"};
// with Redis counters every tag "exists", so any caller could open unlimited buffers and
// series. Asserted: a flood of thousands of distinct unknown tags leaves the set of series
// lines of /metrics exactly as it was (only counters' values move) and the store errors
// untouched; with Redis counters, tags past MAX_TRACKED_TAGS share `tag="_other"` and no buffer
// of their own is kept.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { MAX_TRACKED_TAGS } from '../../packages/server/src/service/metrics/metrics.js';
import { dropNamespaces, freshNamespaceUrl, SERVERS } from '../helpers/namespaces.js';
import { openTestService, type TestService } from '../helpers/service.js';
import { serviceSkip } from '../helpers/services.js';

const redisSkip = await serviceSkip('Redis', SERVERS.redis.host, SERVERS.redis.port);

/** The series of a scrape: each sample line without its value (name and labels). */
async function series(s: TestService): Promise<{ idforge: Set<string>; families: Set<string> }> {
  const body = (await s.app.inject('/metrics')).body;
  const idforge = new Set<string>();
  const families = new Set<string>();
  for (const line of body.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const key = line.slice(0, line.lastIndexOf(' '));
    // The default process metrics (nodejs_gc_* by kind...) may gain a label of their own as
    // the process runs; their families are fixed, idforge's series are compared one by one.
    if (key.startsWith('idforge_')) idforge.add(key);
    else families.add(key.replace(/[{].*$/, ''));
  }
  return { idforge, families };
}

function storeErrors(lines: Set<string>): string[] {
  return [...lines].filter((l) => l.startsWith('idforge_store_errors_total'));
}

function assertSameSeries(
  before: { idforge: Set<string>; families: Set<string> },
  after: { idforge: Set<string>; families: Set<string> },
): void {
  const added = [...after.idforge].filter((l) => !before.idforge.has(l));
  const removed = [...before.idforge].filter((l) => !after.idforge.has(l));
  assert.deepEqual(
    { added: added.slice(0, 5), addedCount: added.length, removed },
    { added: [], addedCount: 0, removed: [] },
  );
  assert.deepEqual([...after.families].sort(), [...before.families].sort());
}

const unknown = (i: number) => `nope_${i}_${randomBytes(2).toString('hex')}`;

describe('issue 19 §3: unknown tags add no series and no store errors', () => {
  test('SQLite segment store: 3,000 unknown tags on the three sequence routes', async () => {
    const s = await openTestService();
    try {
      await s.deps.sequences.create('orders', 100, undefined, undefined);
      // A known tag's series, and one 404 per route (their http series), before the first scrape.
      assert.equal((await s.app.inject('/v1/sequences/orders?count=3')).statusCode, 200);
      assert.equal(
        (await s.app.inject({ method: 'POST', url: '/v1/sequences/orders/segments' })).statusCode,
        200,
      );
      assert.equal((await s.app.inject('/api/segment/get/orders')).statusCode, 200);
      const flood = async (from: number, to: number) => {
        for (let i = from; i < to; i++) {
          const tag = unknown(i);
          const r =
            i % 3 === 0
              ? await s.app.inject({ method: 'POST', url: `/v1/sequences/${tag}/segments` })
              : i % 3 === 1
                ? await s.app.inject(`/v1/sequences/${tag}?count=1`)
                : await s.app.inject(`/api/segment/get/${tag}`);
          const expected = i % 3 === 2 ? 500 : 404; // Leaf answers every failure with 500
          assert.equal(r.statusCode, expected, r.body);
          assert.match(r.body, /IDF_UNKNOWN_TAG/);
        }
      };
      await flood(0, 3);
      await s.app.inject('/metrics'); // the route's own series, before the first comparison
      const before = await series(s);
      assert.deepEqual(storeErrors(before.idforge), []);
      await flood(3, 3000);
      const after = await series(s);
      assertSameSeries(before, after);
      assert.deepEqual(storeErrors(after.idforge), []);
      const body = (await s.app.inject('/metrics')).body;
      assert.doesNotMatch(body, /tag="nope_/);
      assert.match(body, /idforge_segment_fetch_duration_seconds_count\{tag="orders"\}/);
    } finally {
      await s.close();
    }
  });

  test('Redis counters: tags past MAX_TRACKED_TAGS share tag="_other" and keep no buffer', {
    skip: redisSkip,
  }, async () => {
    const url = freshNamespaceUrl('redis', 'i19ml');
    const s = await openTestService({ sequences: url });
    try {
      const limit = MAX_TRACKED_TAGS;
      const get = async (tag: string) => {
        const r = await s.app.inject(`/v1/sequences/${tag}?count=1`);
        assert.equal(r.statusCode, 200, r.body);
      };
      // Every slot taken, then one tag past the bound (its series are the `_other` ones).
      for (let i = 0; i <= limit; i++) await get(`t${i}`);
      await s.app.inject('/metrics');
      const before = await series(s);
      for (let i = 0; i < 1000; i++) await get(unknown(i));
      const after = await series(s);
      assertSameSeries(before, after);
      assert.deepEqual(storeErrors(after.idforge), []);
      assert.ok(
        s.deps.sequences.snapshots().length <= limit,
        `${s.deps.sequences.snapshots().length} buffers open, bound ${limit}`,
      );
      // A tracked tag keeps its own series and is still served from its buffer.
      await get('t0');
      const body = (await s.app.inject('/metrics')).body;
      assert.match(body, /tag="t0"/);
      assert.match(body, /idforge_sequence_numbers_issued_total\{tag="_other"\} 1001/);
      assert.match(body, new RegExp(`^idforge_metric_tags ${limit}$`, 'm'));
    } finally {
      await s.close();
      await dropNamespaces('redis', [url]);
    }
  });
});
