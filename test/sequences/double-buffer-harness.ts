// A DoubleBuffer (packages/idforge/src/sequences/double-buffer.ts) on a source and a timer the
// test drives by hand: each fetch waits until the test answers it, each back-off timer until
// the test fires it. No wall clock: what happens next is what the test does next.
import { setImmediate as turn } from 'node:timers/promises';
import {
  DoubleBuffer,
  type DoubleBufferOptions,
} from '../../packages/idforge/src/sequences/double-buffer.js';
import type { NumberRange } from '../../packages/idforge/src/wire/index.js';

/** A fetch the buffer started, waiting for the test's answer. */
export interface HeldFetch {
  readonly need: number;
  readonly after: bigint;
  readonly resolve: (block: NumberRange) => void;
  readonly reject: (error: unknown) => void;
}

/** A back-off timer the buffer scheduled. */
export interface HeldTimer {
  readonly ms: number;
  readonly run: () => void;
  /** Neither fired nor cancelled. */
  live: boolean;
  cancelled: boolean;
  held: boolean;
}

/** The error a final failure rejects with (`isFinal` says so of it alone). */
export const FINAL = new Error('final: asking again gets the same');
/** What a call on the closed buffer rejects with. */
export const CLOSED = new Error('closed');

export type HarnessOptions = Partial<
  Pick<DoubleBufferOptions, 'prefetchAt' | 'backoff' | 'waitThroughFailures'>
>;

export function harness(options: HarnessOptions = {}) {
  const fetches: HeldFetch[] = [];
  const timers: HeldTimer[] = [];
  /** Every block the source handed out, in order. */
  const blocks: NumberRange[] = [];
  /** Problems seen inside the buffer's calls, asserted by the test afterwards. */
  const faults: string[] = [];
  let floor = 0n;
  const buffer = new DoubleBuffer({
    fetch: (need, after) =>
      new Promise<NumberRange>((resolve, reject) => {
        if (fetches.length > 0) faults.push('a second fetch while one is in flight');
        if (timers.some((t) => t.live)) faults.push('a fetch while a back-off timer is pending');
        fetches.push({ need, after, resolve, reject });
      }),
    prefetchAt: options.prefetchAt ?? 0.2,
    backoff: options.backoff ?? { initialMs: 50, maxMs: 1000 },
    isFinal: (error) => error === FINAL,
    waitThroughFailures: options.waitThroughFailures ?? false,
    closedError: () => CLOSED,
    schedule: (run, ms) => {
      const t: HeldTimer = { ms, run, live: true, cancelled: false, held: false };
      timers.push(t);
      return {
        cancel: () => {
          t.live = false;
          t.cancelled = true;
        },
        hold: () => {
          t.held = true;
        },
      };
    },
  });

  /** Answers the fetch in flight with a block of `size` numbers, `gap` above the last one. */
  const answer = async (size: number, gap = 0n): Promise<NumberRange> => {
    const f = fetches.shift();
    if (f === undefined) throw new Error('no fetch in flight');
    const first = floor + 1n + gap;
    const block = { first, last: first + BigInt(size) - 1n };
    floor = block.last;
    blocks.push(block);
    f.resolve(block);
    await turn();
    return block;
  };
  /** Fails the fetch in flight with `error`. */
  const fail = async (error: unknown = new Error('down')): Promise<void> => {
    const f = fetches.shift();
    if (f === undefined) throw new Error('no fetch in flight');
    f.reject(error);
    await turn();
  };
  /** Fires the pending back-off timer. */
  const fire = async (): Promise<void> => {
    const t = timers.find((x) => x.live);
    if (t === undefined) throw new Error('no timer pending');
    t.live = false;
    t.run();
    await turn();
  };
  return { buffer, fetches, timers, blocks, faults, answer, fail, fire };
}

/** Settles a promise into a record, so a test can look at it without awaiting it first. */
export function observe<T>(p: Promise<T>) {
  const o: { done: boolean; value?: T; error?: unknown } = { done: false };
  p.then(
    (value) => Object.assign(o, { done: true, value }),
    (error: unknown) => Object.assign(o, { done: true, error }),
  );
  return o;
}
