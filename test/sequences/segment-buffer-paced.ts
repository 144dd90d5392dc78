// A SegmentBuffer on virtual time for the dynamic-step tests (segment-buffer.test.ts,
// segment-buffer-observe.test.ts): its clock moves only as numbers are served.
import { SegmentBuffer } from '../../packages/idforge/src/sequences/segment-buffer.js';
import type { SegmentBufferOptions } from '../../packages/idforge/src/sequences/segment-buffer-types.js';

/**
 * A buffer with `options` whose `now` starts at 0 and moves only by `consume(count, msPerId)`:
 * `count` numbers served one at a time, the clock moved `msPerId` before each, so a segment of
 * n numbers lasts n * msPerId.
 */
export function pacedBuffer(options: Omit<SegmentBufferOptions, 'now'>) {
  let now = 0;
  const buf = new SegmentBuffer({ ...options, now: () => now });
  const consume = async (count: number, msPerId: number) => {
    for (let i = 0; i < count; i++) {
      now += msPerId;
      await buf.next();
    }
  };
  return { buf, consume };
}
