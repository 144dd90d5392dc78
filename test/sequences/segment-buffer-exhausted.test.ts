// A SegmentBuffer whose source is exhausted asks it once more for the request that found it
// so, and no more: the request rejects with SequenceExhaustedError after two asks, instead of
// asking again until its timeout (found by the mutation run, issue 34).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SequenceExhaustedError } from '../../packages/idforge/src/sequences/index.js';
import type { BlockSource } from '../../packages/idforge/src/sequences/ports.js';
import { SegmentBuffer } from '../../packages/idforge/src/sequences/segment-buffer.js';

test('an exhausted source is asked once more per request, then the request rejects', async () => {
  let asks = 0;
  const source: BlockSource = () => {
    asks++;
    return Promise.reject(new SequenceExhaustedError('t', 9n));
  };
  const buf = new SegmentBuffer({
    tag: 't',
    source,
    minStep: 10,
    dynamicStep: false,
    fetchTimeoutMs: 5_000,
  });
  try {
    await assert.rejects(buf.next(), SequenceExhaustedError);
    assert.equal(asks, 2, 'the fetch that failed, and one more');
    await assert.rejects(buf.next(), SequenceExhaustedError);
    assert.equal(asks, 3, 'the next request asks once');
  } finally {
    buf.close();
  }
});
