// Strict order over 1,000,000 IDs per v7 method (RFC 9562 §6.2 "Monotonic Error Checking"),
// as text (string comparison) and as bytes (unsigned lexicographic), with the real clock, a
// clock that stands still (every ID after the first uses the counter) and a clock that keeps
// stepping backwards within the rollback allowance.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Clock, ManualClock } from '../../packages/idforge/src/core/clock.js';
import { formatUuid } from '../../packages/idforge/src/core/uuid/format.js';
import { UuidV7Generator, type UuidV7Method } from '../../packages/idforge/src/core/uuid/v7.js';

const N = 1_000_000;
const START = 1_700_000_000_000.5;

/** Calls `tick(i)` before ID i, to move a manual clock. */
interface ClockCase {
  name: string;
  make(): { clock?: Clock; tick(i: number): void };
}

const CLOCKS: ClockCase[] = [
  { name: 'real clock', make: () => ({ tick() {} }) },
  {
    name: 'clock standing still',
    make: () => ({ clock: new ManualClock(START), tick() {} }),
  },
  {
    name: 'clock stepping backwards',
    make() {
      const clock = new ManualClock(START);
      return {
        clock,
        tick(i: number) {
          if (i % 997 === 0) clock.advance(1.37);
          if (i % 4999 === 0) clock.advance(-7.1);
          if (i === N / 2) clock.advance(-9_000); // the largest kind of step still absorbed
        },
      };
    },
  },
];

function less(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 16; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

for (const method of ['counter', 'fraction', 'random'] as UuidV7Method[]) {
  describe(`uuidv7 ${method}: strictly increasing over ${N} IDs`, () => {
    for (const c of CLOCKS) {
      test(`${c.name}, text`, () => {
        const { clock, tick } = c.make();
        const g = new UuidV7Generator(clock === undefined ? { method } : { method, clock });
        let last = '';
        for (let i = 0; i < N; i++) {
          tick(i);
          const s = g.next();
          if (!(s > last)) assert.fail(`ID ${i}: ${s} is not above ${last}`);
          last = s;
        }
      });

      test(`${c.name}, bytes`, () => {
        const { clock, tick } = c.make();
        const g = new UuidV7Generator(clock === undefined ? { method } : { method, clock });
        let prev = new Uint8Array(16);
        let cur = new Uint8Array(16);
        for (let i = 0; i < N; i++) {
          tick(i);
          g.nextBytes(cur);
          if (!less(prev, cur)) assert.fail(`ID ${i}: ${formatUuid(cur)} <= ${formatUuid(prev)}`);
          [prev, cur] = [cur, prev];
        }
      });
    }
  });
}
