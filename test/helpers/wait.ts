// Waiting for an event instead of sleeping a fixed time: poll a condition until it holds or a
// deadline passes (then fail naming what was awaited), or wait for a child's output line.
import { setTimeout as sleep } from 'node:timers/promises';

/** What a poll may resolve with once it holds: its value less the falsy ones. */
export type Truthy<T> = Exclude<T, false | 0 | 0n | '' | null | undefined>;

/**
 * How long to wait (60 s unless said) and how far apart the polls are (5 ms unless said). The
 * default bound is a guard against a hang, for events that are not under test (a process
 * starting, a server answering): it names what never came instead of waiting for the file's
 * timeout, and is wide enough for a machine busy with other work. A test that asserts a bound
 * passes one, derived from the setting under test.
 */
export interface WaitOptions {
  readonly ms?: number;
  readonly everyMs?: number;
}

/**
 * Resolves with the first truthy value `cond()` returns; rejects after `ms` with "timed out
 * ... waiting for <what>" (and the last value seen, when it is not a plain boolean). `cond`
 * may be async (a query of the server's own view, e.g. its lock table); an error it throws
 * ends the wait. `what` may be a function, read at the timeout, to name the state then.
 * `limit` is the bound in ms, or {ms, everyMs} to space the polls of a costly check.
 */
export async function waitFor<T>(
  cond: () => T | Promise<T>,
  what: string | (() => string),
  limit: number | WaitOptions = {},
): Promise<Truthy<T>> {
  const { ms = 60_000, everyMs = 5 } = typeof limit === 'number' ? { ms: limit } : limit;
  const deadline = Date.now() + ms;
  for (;;) {
    const seen = await cond();
    if (seen) return seen as Truthy<T>;
    if (Date.now() > deadline) {
      const name = typeof what === 'string' ? what : what();
      const last = typeof seen === 'boolean' ? '' : `; last seen ${show(seen)}`;
      throw new Error(`timed out after ${ms} ms waiting for ${name}${last}`);
    }
    await sleep(everyMs);
  }
}

function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Holds the event loop busy for `ms`, as a CPU-bound handler, a long GC or a paused process
 * would: no timer, socket or promise of this process runs meanwhile.
 */
export function stallLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

/**
 * Runs `start()` now and marks its rejection handled, so it can be awaited later without an
 * unhandled rejection if it fails first: `const p = early(() => work()); ...; await p`.
 */
export function early<T>(start: () => Promise<T>): Promise<T> {
  const p = start();
  p.catch(() => undefined);
  return p;
}
