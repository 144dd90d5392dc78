// The SegmentStore contract (src/sequences/ports.ts), run on every backend the registry lists
// for segments by ./segment-store.test.ts, with functions that open a fresh, empty store of the
// backend's fixture (test/helpers/backend-fixtures.ts: a SQLite file, a PostgreSQL schema, a
// MySQL table prefix).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  SequenceExhaustedError,
  TagExistsError,
  UnknownTagError,
} from '../../packages/idforge/src/sequences/index.js';
import type { Segment, SegmentStore } from '../../packages/idforge/src/sequences/ports.js';
import { StoreNotMigratedError } from '../../packages/stores/src/index.js';
import { fixtureOf } from '../helpers/backend-fixtures.js';
import { waitFor } from '../helpers/wait.js';
import { type RaceCall, raceInProcesses } from './fixtures/race.js';

export interface SegmentContractOptions {
  /** Opens a fresh store with an empty namespace, migrated. */
  readonly open: () => Promise<SegmentStore>;
  /** Opens a fresh store with an empty namespace, not migrated. */
  readonly openUnmigrated: () => Promise<SegmentStore>;
  /** Reason to skip, when the server is absent and services are not required. */
  readonly skip?: string | false;
  /**
   * For a store whose calls block their thread (SQLite): a fresh location's URL and how to open
   * it, migrated. The "concurrent" test then races separate processes on it
   * (./fixtures/race.ts): promises in one process would take one segment after another.
   */
  readonly processes?: {
    readonly freshUrl: () => string;
    readonly open: (url: string) => Promise<SegmentStore>;
  };
}

/**
 * Takes one segment of `tag` per entry of `steps` (undefined: the stored step), all at once:
 * as promises on `s`, or spread round-robin over `processes` OS processes on `url`. The blocks
 * come back in the order of `steps`.
 */
export async function concurrentTakes(
  s: SegmentStore,
  tag: string,
  steps: readonly (number | undefined)[],
  url?: string,
  processes = 4,
): Promise<Segment[]> {
  if (url === undefined) return Promise.all(steps.map((step) => s.takeSegment(tag, step)));
  const per: RaceCall[][] = Array.from({ length: processes }, () => []);
  steps.forEach((step, i) => {
    per[i % processes]!.push({ kind: 'segment', tag, ...(step === undefined ? {} : { step }) });
  });
  const results = await raceInProcesses<[string, string]>(url, per);
  return steps.map((_, i) => {
    const [first, last] = results[i % processes]![Math.floor(i / processes)]!;
    return { tag, first: BigInt(first), last: BigInt(last) };
  });
}

const MAX = 2n ** 63n - 1n;

async function withStore(
  open: () => Promise<SegmentStore>,
  fn: (s: SegmentStore) => Promise<void>,
) {
  const store = await open();
  try {
    await fn(store);
  } finally {
    await store.close();
  }
}

/** [first, last] pairs, for readable deepEqual failures. */
function ranges(segments: readonly Segment[]): [bigint, bigint][] {
  return segments.map((s) => [s.first, s.last]);
}

/** Asserts the blocks are disjoint and together cover exactly [from, from + total - 1]. */
export function assertContiguous(segments: readonly Segment[], from: bigint): bigint {
  const sorted = [...segments].sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  let next = from;
  for (const s of sorted) {
    assert.ok(s.first <= s.last, `empty block [${s.first}, ${s.last}]`);
    assert.equal(s.first, next, `gap or overlap at ${next}: block [${s.first}, ${s.last}]`);
    next = s.last + 1n;
  }
  return next - 1n;
}

/**
 * What a SQL backend's -specific file works on: the backend's fixture, its server's URL,
 * `freshUrl()` (a location of the fixture's own, dropped after the tests) and `open(url)` (a
 * store there by `opener`, 3 s connect bound, migrated, closed when the test ends).
 */
export async function specificFixture<S extends SegmentStore>(
  backend: string,
  opener: (url: string, options: { connectTimeoutMs: number }) => Promise<S>,
) {
  const fx = await fixtureOf(backend);
  const open = async (url: string): Promise<S> => {
    const store = fx.keep(await opener(url, { connectTimeoutMs: 3000 }));
    await store.migrate();
    return store;
  };
  return { fx, skip: fx.skip, base: fx.server!.url, freshUrl: () => fx.freshUrl('seg'), open };
}

/**
 * Two stores on fresh locations each take the same tag from their own start: namespaces do not
 * meet. Returns the second one's URL, for a look at its table.
 */
export async function assertNamespacesIsolated(
  open: (url: string) => Promise<SegmentStore>,
  freshUrl: () => string,
): Promise<string> {
  const a = await open(freshUrl());
  const bUrl = freshUrl();
  const b = await open(bUrl);
  await a.createTag('orders', { step: 10 });
  await b.createTag('orders', { step: 2, start: 50n });
  assert.deepEqual(await a.takeSegment('orders'), { tag: 'orders', first: 1n, last: 10n });
  assert.deepEqual(await b.takeSegment('orders'), { tag: 'orders', first: 50n, last: 51n });
  return bUrl;
}

export function segmentStoreContract(name: string, options: SegmentContractOptions): void {
  const { open } = options;
  describe(`SegmentStore contract: ${name}`, { skip: options.skip ?? false }, () => {
    test('migrate is idempotent and starts with no tags', () =>
      withStore(open, async (s) => {
        await s.migrate();
        await s.migrate();
        assert.deepEqual(await s.listTags(), []);
        assert.equal(s.backend, name);
      }));

    test('nothing is created implicitly: an unmigrated store fails every call with StoreNotMigratedError', async () => {
      const s = await options.openUnmigrated();
      try {
        for (const [operation, call] of [
          ['createTag', () => s.createTag('orders', { step: 10 })],
          ['takeSegment', () => s.takeSegment('orders')],
          ['setStep', () => s.setStep('orders', 5)],
          ['getTag', () => s.getTag('orders')],
          ['listTags', () => s.listTags()],
        ] as const) {
          await assert.rejects(call(), (e) => {
            assert.ok(e instanceof StoreNotMigratedError, `${operation}: ${String(e)}`);
            assert.equal(e.backend, name);
            assert.equal(e.operation, operation);
            assert.equal(e.address, s.address);
            return true;
          });
        }
        await s.migrate();
        assert.deepEqual(await s.listTags(), [], 'migrate works after the failures');
      } finally {
        await s.close();
      }
    });

    test('createTag stores max_id = start - 1; an existing tag is refused and unchanged', () =>
      withStore(open, async (s) => {
        const before = Date.now();
        const created = await s.createTag('orders', { step: 10, description: 'order numbers' });
        assert.deepEqual(
          { ...created, updatedAtMs: 0 },
          {
            tag: 'orders',
            maxId: 0n,
            step: 10,
            description: 'order numbers',
            updatedAtMs: 0,
          },
        );
        assert.ok(
          Math.abs(created.updatedAtMs - before) < 5000,
          `updatedAt ${created.updatedAtMs}`,
        );
        assert.deepEqual(await s.getTag('orders'), created);
        await assert.rejects(
          s.createTag('orders', { step: 500, start: 1000n, description: 'other' }),
          (e) => e instanceof TagExistsError && e.tag === 'orders',
        );
        assert.deepEqual(await s.getTag('orders'), created, 'the existing tag is unchanged');
        const started = await s.createTag('users', { step: 5, start: 1000n });
        assert.equal(started.maxId, 999n);
        assert.equal(started.description, '');
        assert.deepEqual(ranges([await s.takeSegment('users')]), [[1000n, 1004n]]);
      }));

    test('takeSegment returns contiguous blocks of max(requested, stored) step', () =>
      withStore(open, async (s) => {
        await s.createTag('photos', { step: 10 });
        const got = [
          await s.takeSegment('photos'),
          await s.takeSegment('photos'),
          await s.takeSegment('photos', 25),
          await s.takeSegment('photos', 3),
          await s.takeSegment('photos', 10),
        ];
        assert.deepEqual(ranges(got), [
          [1n, 10n],
          [11n, 20n],
          [21n, 45n],
          [46n, 55n],
          [56n, 65n],
        ]);
        assert.ok(got.every((g) => g.tag === 'photos'));
        const t = await s.getTag('photos');
        assert.equal(t?.maxId, 65n);
        assert.equal(t?.step, 10, 'the stored step is never changed by a take');
      }));

    test('setStep changes the stored step and updated_at, never max_id; the next take uses it', () =>
      withStore(open, async (s) => {
        await s.createTag('resized', { step: 10, start: 100n, description: 'kept' });
        await s.createTag('other', { step: 3 });
        assert.deepEqual(ranges([await s.takeSegment('resized')]), [[100n, 109n]]);
        const before = (await s.getTag('resized'))!;
        // updated_at has a millisecond resolution: let one pass so the change shows.
        await waitFor(() => Date.now() > before.updatedAtMs + 1, 'the next millisecond');
        const updated = await s.setStep('resized', 250);
        assert.deepEqual(
          { ...updated, updatedAtMs: 0 },
          { tag: 'resized', maxId: 109n, step: 250, description: 'kept', updatedAtMs: 0 },
        );
        assert.ok(
          updated.updatedAtMs > before.updatedAtMs,
          `updatedAt ${before.updatedAtMs} -> ${updated.updatedAtMs}`,
        );
        assert.ok(Math.abs(updated.updatedAtMs - Date.now()) < 5000, `${updated.updatedAtMs}`);
        assert.deepEqual(await s.getTag('resized'), updated, 'resolves to the stored tag');
        assert.deepEqual(ranges([await s.takeSegment('resized')]), [[110n, 359n]]);
        assert.deepEqual(ranges([await s.takeSegment('resized', 300)]), [[360n, 659n]]);
        assert.deepEqual(ranges([await s.takeSegment('resized', 7)]), [[660n, 909n]]);
        // Lowered, to the smallest and back; the same step again is accepted.
        assert.equal((await s.setStep('resized', 1)).maxId, 909n);
        assert.deepEqual(ranges([await s.takeSegment('resized')]), [[910n, 910n]]);
        const again = await s.setStep('resized', 1);
        assert.deepEqual([again.maxId, again.step], [910n, 1]);
        const widest = await s.setStep('resized', 2 ** 31 - 1);
        assert.deepEqual([widest.maxId, widest.step], [910n, 2 ** 31 - 1]);
        const [other] = (await s.listTags()).filter((t) => t.tag === 'other');
        assert.deepEqual([other?.maxId, other?.step], [0n, 3], 'other tags are untouched');
      }));

    test('setStep concurrent with takes: each take uses the old step or the new one, blocks stay contiguous', () =>
      withStore(open, async (s) => {
        await s.createTag('moving', { step: 4 });
        const takes = Array.from({ length: 30 }, () => s.takeSegment('moving'));
        const set = s.setStep('moving', 9);
        const got = await Promise.all(takes);
        assert.equal((await set).step, 9);
        for (const g of got) assert.ok([4n, 9n].includes(g.last - g.first + 1n), `${ranges([g])}`);
        const last = assertContiguous(got, 1n);
        assert.equal((await s.getTag('moving'))?.maxId, last);
        assert.deepEqual(ranges([await s.takeSegment('moving')]), [[last + 1n, last + 9n]]);
      }));

    test('setStep on an unknown tag: UnknownTagError, nothing created', () =>
      withStore(open, async (s) => {
        await s.createTag('known', { step: 2 });
        await assert.rejects(s.setStep('unknown', 5), (e) => {
          assert.ok(e instanceof UnknownTagError, String(e));
          assert.equal(e.tag, 'unknown');
          assert.equal(e.backend, name);
          return true;
        });
        await assert.rejects(s.setStep('Known', 5), UnknownTagError, 'tags are case-sensitive');
        assert.equal(await s.getTag('unknown'), null);
        assert.deepEqual(
          (await s.listTags()).map((t) => [t.tag, t.step]),
          [['known', 2]],
        );
      }));

    test('unknown tags: UnknownTagError from takeSegment, null from getTag', () =>
      withStore(open, async (s) => {
        await s.createTag('known', { step: 1 });
        await assert.rejects(s.takeSegment('unknown'), (e) => {
          assert.ok(e instanceof UnknownTagError, String(e));
          assert.equal(e.tag, 'unknown');
          assert.equal(e.backend, name);
          return true;
        });
        assert.equal(await s.getTag('unknown'), null);
        assert.equal(await s.getTag('Known'), null, 'tags are case-sensitive');
        assert.equal((await s.listTags()).length, 1, 'nothing was created');
      }));

    test('exhaustion near 2^63 - 1: the last full block, then SequenceExhaustedError, nothing taken', () =>
      withStore(open, async (s) => {
        await s.createTag('edge', { step: 10, start: MAX - 14n });
        assert.deepEqual(ranges([await s.takeSegment('edge')]), [[MAX - 14n, MAX - 5n]]);
        for (const step of [undefined, 6, 1_000_000, Number.MAX_SAFE_INTEGER]) {
          await assert.rejects(s.takeSegment('edge', step), (e) => {
            assert.ok(e instanceof SequenceExhaustedError, String(e));
            assert.equal(e.tag, 'edge');
            assert.equal(e.maxId, MAX - 5n);
            return true;
          });
        }
        assert.equal((await s.getTag('edge'))?.maxId, MAX - 5n, 'nothing was taken');
        await s.createTag('exact', { step: 5, start: MAX - 4n });
        assert.deepEqual(ranges([await s.takeSegment('exact')]), [[MAX - 4n, MAX]]);
        await assert.rejects(s.takeSegment('exact'), SequenceExhaustedError);
        await s.createTag('last', { step: 1, start: MAX });
        assert.deepEqual(ranges([await s.takeSegment('last')]), [[MAX, MAX]]);
        await assert.rejects(s.takeSegment('last'), SequenceExhaustedError);
      }));

    test('100 concurrent takes get disjoint blocks covering a contiguous range', async () => {
      // On SQLite from four processes at once; elsewhere as promises over the store's pool.
      const url = options.processes?.freshUrl();
      const s = url === undefined ? await open() : await options.processes!.open(url);
      try {
        await s.createTag('busy', { step: 7 });
        const steps = Array.from({ length: 100 }, (_, i) =>
          i % 3 === 0 ? 20 : i % 3 === 1 ? 2 : undefined,
        );
        const got = await concurrentTakes(s, 'busy', steps, url);
        got.forEach((g, i) => {
          const expected = BigInt(Math.max(steps[i] ?? 1, 7));
          assert.equal(g.last - g.first + 1n, expected, `take ${i} size`);
        });
        const last = assertContiguous(got, 1n);
        assert.equal(last, 34n * 20n + 66n * 7n);
        assert.equal((await s.getTag('busy'))?.maxId, last);
      } finally {
        await s.close();
      }
    });

    test('bigint precision above 2^53, also for huge requested steps', () =>
      withStore(open, async (s) => {
        const p53 = 2n ** 53n;
        await s.createTag('big', { step: 3, start: p53 + 1n });
        assert.equal((await s.getTag('big'))?.maxId, p53);
        assert.deepEqual(ranges([await s.takeSegment('big')]), [[p53 + 1n, p53 + 3n]]);
        assert.deepEqual(ranges([await s.takeSegment('big')]), [[p53 + 4n, p53 + 6n]]);
        const odd = 2n ** 62n + 12_345_678_901n;
        await s.createTag('odd', { step: 1, start: odd });
        assert.deepEqual(ranges([await s.takeSegment('odd', 2)]), [[odd, odd + 1n]]);
        const [listed] = (await s.listTags()).filter((t) => t.tag === 'odd');
        assert.equal(listed?.maxId, odd + 1n);
        await s.createTag('wide', { step: 1 });
        const huge = Number.MAX_SAFE_INTEGER;
        assert.deepEqual(ranges([await s.takeSegment('wide', huge)]), [[1n, BigInt(huge)]]);
      }));

    test('listTags: every tag with its fields, ordered by name', () =>
      withStore(open, async (s) => {
        for (const [tag, step] of [
          ['users', 2],
          ['Orders', 3],
          ['orders', 4],
          ['a.b:c-d_e', 5],
        ] as const) {
          await s.createTag(tag, { step, description: `${tag}!` });
        }
        await s.takeSegment('orders');
        const listed = await s.listTags();
        assert.deepEqual(
          listed.map((t) => [t.tag, t.maxId, t.step, t.description]),
          [
            ['Orders', 0n, 3, 'Orders!'],
            ['a.b:c-d_e', 0n, 5, 'a.b:c-d_e!'],
            ['orders', 4n, 4, 'orders!'],
            ['users', 0n, 2, 'users!'],
          ],
        );
        for (const t of listed) {
          assert.equal(typeof t.updatedAtMs, 'number');
          assert.ok(Math.abs(t.updatedAtMs - Date.now()) < 60_000, `${t.tag}: ${t.updatedAtMs}`);
          assert.deepEqual(await s.getTag(t.tag), t);
        }
      }));

    test('tags of 128 characters, non-ASCII tags and descriptions round-trip', () =>
      withStore(open, async (s) => {
        const long = `${'号段'.repeat(60)}${'x'.repeat(8)}`;
        assert.equal(long.length, 128);
        const description = `Sipariş numaraları, 号段 😀 ${'d'.repeat(200)}`.slice(0, 256);
        await s.createTag(long, { step: 2, description });
        await s.createTag('çığ', { step: 1 });
        assert.deepEqual(ranges([await s.takeSegment(long)]), [[1n, 2n]]);
        const t = await s.getTag(long);
        assert.equal(t?.tag, long);
        assert.equal(t?.description, description);
        assert.equal((await s.getTag('çığ'))?.step, 1);
      }));

    test('misuse is a RangeError or TypeError before any I/O', () =>
      withStore(open, async (s) => {
        const bad: [string, () => Promise<unknown>][] = [
          ['empty tag', () => s.createTag('', { step: 1 })],
          ['129 characters', () => s.createTag('x'.repeat(129), { step: 1 })],
          ['control character', () => s.createTag('a\nb', { step: 1 })],
          ['NUL', () => s.takeSegment('a\u0000b')],
          ['lone surrogate', () => s.getTag('a\ud800')],
          ['step 0', () => s.createTag('t', { step: 0 })],
          ['step 2^31', () => s.createTag('t', { step: 2 ** 31 })],
          ['fractional step', () => s.createTag('t', { step: 1.5 })],
          ['start 0', () => s.createTag('t', { step: 1, start: 0n })],
          ['start 2^63', () => s.createTag('t', { step: 1, start: MAX + 1n })],
          ['description of 257', () => s.createTag('t', { step: 1, description: 'd'.repeat(257) })],
          ['take step 0', () => s.takeSegment('t', 0)],
          ['take step -1', () => s.takeSegment('t', -1)],
          ['take step 2^53', () => s.takeSegment('t', 2 ** 53)],
          ['setStep 0', () => s.setStep('t', 0)],
          ['setStep -1', () => s.setStep('t', -1)],
          ['setStep 2^31', () => s.setStep('t', 2 ** 31)],
          ['setStep 1.5', () => s.setStep('t', 1.5)],
          ['setStep NaN', () => s.setStep('t', Number.NaN)],
          ['setStep Infinity', () => s.setStep('t', Number.POSITIVE_INFINITY)],
          ['setStep empty tag', () => s.setStep('', 5)],
        ];
        for (const [what, call] of bad) await assert.rejects(call, RangeError, what);
        const wrongType: [string, () => Promise<unknown>][] = [
          ['number tag', () => s.getTag(1 as unknown as string)],
          ['number start', () => s.createTag('t', { step: 1, start: 1 as unknown as bigint })],
          ['string step', () => s.takeSegment('t', '5' as unknown as number)],
          ['setStep string step', () => s.setStep('t', '5' as unknown as number)],
          ['setStep bigint step', () => s.setStep('t', 5n as unknown as number)],
          ['setStep number tag', () => s.setStep(5 as unknown as string, 5)],
        ];
        for (const [what, call] of wrongType) await assert.rejects(call, TypeError, what);
        await assert.rejects(
          s.createTag('t', { step: 1, start: 1 as unknown as bigint }),
          (e: unknown) =>
            e instanceof TypeError && e.message === 'start: expected a bigint, got number 1',
          'the start named, not a driver error',
        );
        assert.deepEqual(await s.listTags(), [], 'nothing was created');
        await s.createTag('kept', { step: 6 });
        await assert.rejects(s.setStep('kept', 0), (e) => {
          assert.ok(e instanceof RangeError);
          assert.match(e.message, /^step: expected an integer in \[1, 2147483647\], got number 0$/);
          return true;
        });
        assert.equal((await s.getTag('kept'))?.step, 6, 'a refused step changes nothing');
        await s.takeSegment('kept');
        assert.deepEqual(
          (await s.listTags()).map((t) => [t.tag, t.maxId, t.step]),
          [['kept', 6n, 6]],
        );
      }));
  });
}
