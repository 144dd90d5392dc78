// Takes a store down for a while under a caller that keeps asking (and retries at once), and
// measures what the issue-8 defect was about: how long the event loop was blocked, how many
// store attempts the process made per second, and how soon after the store's return the
// caller was served again.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setImmediate as turn } from 'node:timers/promises';

/** How a store is taken down and brought back (a real server stop, a lock held elsewhere). */
export interface Outage {
  down(): Promise<void>;
  up(): Promise<void>;
}

export interface OutageReport {
  /** Longest event-loop block while the store was down, ms. */
  readonly maxLagMs: number;
  /** Store attempts per second while it was down. */
  readonly attemptsPerSecond: number;
  /** From the store answering again to the first success, ms. */
  readonly recoveredMs: number;
  /** Failures the caller saw (typed errors). */
  readonly failures: number;
  /** Every value the caller drew, in order. */
  readonly drawn: bigint[];
}

export interface ProbeOptions {
  readonly outage: Outage;
  /** One request of the caller: resolves a value or rejects. */
  readonly call: () => Promise<bigint>;
  /** Store attempts so far (the store's own counter, or a counting wrapper). */
  readonly attempts: () => number;
  /** Successful store answers so far; recovery is the first one after the store is back. */
  readonly successes: () => number;
  /** How long the store stays down. Default 2000 ms. */
  readonly downMs?: number;
  /** Give up waiting for recovery after this. Default 10,000 ms. */
  readonly recoverWithinMs?: number;
  /** Errors the caller may see (others are rethrown). */
  readonly expected: (error: unknown) => boolean;
}

export async function probeOutage(o: ProbeOptions): Promise<OutageReport> {
  const downMs = o.downMs ?? 2000;
  const drawn: bigint[] = [];
  let failures = 0;
  let stop = false;
  let unexpected: unknown = null;
  const caller = (async () => {
    while (!stop) {
      try {
        drawn.push(await o.call());
      } catch (error) {
        if (!o.expected(error)) {
          unexpected = error;
          return;
        }
        failures++;
      }
      await turn();
    }
  })();
  let report: OutageReport;
  try {
    await o.outage.down();
    const lag = monitorEventLoopDelay({ resolution: 10 });
    const attempts0 = o.attempts();
    const t0 = performance.now();
    lag.enable();
    await new Promise((resolve) => setTimeout(resolve, downMs));
    lag.disable();
    const seconds = (performance.now() - t0) / 1000;
    const attemptsPerSecond = (o.attempts() - attempts0) / seconds;
    await o.outage.up();
    const upAt = performance.now();
    const ok0 = o.successes();
    const recoveredMs = await new Promise<number>((resolve, reject) => {
      const poll = setInterval(() => {
        if (o.successes() > ok0) {
          clearInterval(poll);
          resolve(performance.now() - upAt);
        } else if (performance.now() - upAt > (o.recoverWithinMs ?? 10_000) || unexpected) {
          clearInterval(poll);
          reject(unexpected ?? new Error('no success within the recovery bound'));
        }
      }, 5);
    });
    report = { maxLagMs: lag.max / 1e6, attemptsPerSecond, recoveredMs, failures, drawn };
  } finally {
    stop = true;
    await caller;
  }
  if (unexpected) throw unexpected;
  return report;
}

/**
 * Counts the calls of a store's methods (it still does every call on the real store) and the
 * ones that succeed.
 */
export function counted<T extends object>(store: T): { store: T; calls: number; ok: number } {
  const c = { store, calls: 0, ok: 0 };
  c.store = new Proxy(store, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== 'function') return v;
      if (prop === 'close') return v.bind(target);
      return (...args: unknown[]) => {
        c.calls++;
        const r = (v as (...a: unknown[]) => unknown).apply(target, args);
        if (r instanceof Promise) {
          return r.then((value) => {
            c.ok++;
            return value;
          });
        }
        return r;
      };
    },
  });
  return c;
}
