// GapFreeSequence checks its tag like any tag, and leaves room for the period in the stored
// key: 118 characters, not 119 (found by the mutation run, issue 34). No store is asked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defineNumberFormat, GapFreeSequence } from '../../packages/idforge/src/sequences/index.js';

const format = defineNumberFormat('INV-{n}');
const store = {} as never; // the constructor asks nothing of it

test('a tag is checked like any tag', () => {
  assert.throws(() => new GapFreeSequence(store, '', format), /tag: expected 1 to 128/);
});

test('a tag of 118 characters is taken, 119 refused', () => {
  new GapFreeSequence(store, 'x'.repeat(118), format);
  assert.throws(
    () => new GapFreeSequence(store, 'x'.repeat(119), format),
    (e: unknown) => e instanceof RangeError && /at most 118 characters/.test(e.message),
  );
});
