// FormattedSequence's edges (found by the mutation run, issue 34): the tag is checked like any
// tag, a resetting format leaves room for the period (117 characters, not 118), a failure to
// create a period's tag other than "it exists" is the caller's, close() closes the buffers,
// take() counts up from the block's first number, and a clock gone back reuses the buffer of
// the period before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';
import { FormattedSequence } from '../../packages/idforge/src/sequences/formatted-sequence.js';
import { TagExistsError } from '../../packages/idforge/src/sequences/index.js';
import { defineNumberFormat } from '../../packages/idforge/src/sequences/number-format.js';
import type { SequenceSource } from '../../packages/idforge/src/sequences/sequence-source.js';

const monthly = defineNumberFormat('INV-{yyyy}-{mm}-{n:6}', { reset: 'monthly' });
const never = defineNumberFormat('ORD-{n:6}');

/** A source whose buffers count their close() calls; `createTag` fails with `createError`. */
function fakeSource(createError: Error | null = null) {
  const state = { closed: 0, opened: 0, taken: 0 };
  const segments = {
    backend: 'memory',
    async getTag(tag: string) {
      return tag.includes(':') ? null : { tag, step: 10 };
    },
    async createTag() {
      if (createError !== null) throw createError;
    },
  };
  const source = {
    backend: 'memory',
    address: 'memory',
    segments,
    async take(_tag: string, size: number) {
      state.taken++;
      return { first: 10n, last: 9n + BigInt(size) };
    },
    async open() {
      state.opened++;
      let n = 0n;
      return {
        async nextBatch(count: number) {
          return Array.from({ length: count }, () => ++n);
        },
        close() {
          state.closed++;
        },
      };
    },
  } as unknown as SequenceSource;
  return { state, source };
}

test('a tag is checked like any tag, whatever the format', () => {
  const { source } = fakeSource();
  for (const tag of ['', 'x'.repeat(129)]) {
    assert.throws(() => new FormattedSequence(source, tag, never), /tag: expected 1 to 128/);
  }
});

test('a resetting format takes a tag of 117 characters, not 118', () => {
  const { source } = fakeSource();
  new FormattedSequence(source, 'x'.repeat(117), monthly).close();
  assert.throws(
    () => new FormattedSequence(source, 'x'.repeat(118), monthly),
    (e: unknown) => e instanceof RangeError && /at most 117 characters/.test(e.message),
  );
});

test("a period tag the store fails to create is the caller's error; one that exists is fine", async () => {
  const down = new StoreUnavailableError('memory', 'memory', 'createTag');
  const failing = new FormattedSequence(fakeSource(down).source, 'invoices', monthly);
  await assert.rejects(failing.next(), (e: unknown) => e === down);
  failing.close();
  const raced = fakeSource(new TagExistsError('invoices:2026-12'));
  const fine = new FormattedSequence(raced.source, 'invoices', monthly);
  assert.equal((await fine.next()).value, 1n);
  fine.close();
});

test('close() closes the open buffers', async () => {
  const { state, source } = fakeSource();
  const seq = new FormattedSequence(source, 'invoices', monthly);
  await seq.next();
  seq.close();
  await new Promise((r) => setImmediate(r));
  assert.equal(state.opened, 1);
  assert.equal(state.closed, 1);
});

test('take(count) gives the block from its first number up', async () => {
  const { source } = fakeSource();
  const seq = new FormattedSequence(source, 'invoices', monthly);
  assert.deepEqual((await seq.take(3)).values, [10n, 11n, 12n]);
});

test('a clock gone back into the period before draws on its open buffer again', async () => {
  const { state, source } = fakeSource();
  let now = Date.UTC(2026, 11, 31, 23, 59, 59);
  const seq = new FormattedSequence(source, 'invoices', monthly, { clock: { now: () => now } });
  assert.equal((await seq.next()).period, '2026-12');
  now += 2000;
  assert.equal((await seq.next()).period, '2027-01');
  now -= 2000;
  const back = await seq.next();
  assert.deepEqual(
    [back.period, back.value],
    ['2026-12', 2n],
    "December's buffer, its next number",
  );
  assert.equal(state.opened, 2);
  seq.close();
});
