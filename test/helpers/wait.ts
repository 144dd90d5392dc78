// Waiting for an event instead of sleeping a fixed time: poll a condition until it holds or a
// deadline passes (then fail naming what was awaited), or wait for a child's output line.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Resolves once `cond()` holds; rejects after `ms` with "timed out ... waiting for <what>".
 * `cond` may be async (a query of the server's own view, e.g. its lock table).
 */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  what: string,
  ms = 20_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(5);
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
