/**
 * A wait bounded in the time this process ran, not in wall time.
 *
 * A request waiting on a store's answer must give up after a bounded time, but the bound is
 * about the store, not about this process: when the process itself stops running (SIGSTOP, a
 * VM paused or migrated, a long GC, a blocked event loop), the wait's timer and whatever the
 * store answered are due together on waking, and an answer that needs a few more round trips
 * (a new pool connection, a transaction's BEGIN/UPDATE/COMMIT) has had no chance at all. A
 * wall-clock deadline then refuses with IDF_STORE_UNAVAILABLE from a node whose store is up.
 *
 * So the wait is measured in slices of at most SLICE_MS: a slice whose timer fired more than
 * STALL_MS late was a stall and does not count (the process may have run for part of it; the
 * wait then lasts that much longer, at most one slice per stall). Only the first MAX_STALLS
 * stalls of a wait are left out, later ones count in full, so the bound stays hard: a
 * process that runs normally waits exactly `ms`, one that stalls at most `ms` plus
 * MAX_STALLS slices plus the stalls themselves. The end is decided after the event loop has read its sockets
 * (a macrotask after the last timer), so an answer already received wins over its deadline.
 */

/** The longest timer a wait arms: how finely a stall is told from running time. */
export const SLICE_MS = 100;
/** A slice's timer firing this much later than armed means the process did not run. */
export const STALL_MS = 100;
/** Stalls left out of one wait at most. */
export const MAX_STALLS = 3;

type Now = () => number;

const afterIo: (f: () => void) => unknown =
  typeof setImmediate === 'function' ? setImmediate : (f) => setTimeout(f, 0);
const cancelAfterIo: (h: unknown) => void =
  typeof clearImmediate === 'function'
    ? (h) => clearImmediate(h as ReturnType<typeof setImmediate>)
    : (h) => clearTimeout(h as ReturnType<typeof setTimeout>);

export class RunningDeadline {
  readonly #now: Now;
  #left: number;
  #last: number;
  /** The delay of the timer armed since the last reading (0: none). */
  #armed = 0;
  #stalls = 0;

  /** `ms` of running time from now; `now` is a monotonic clock in ms (injectable for tests). */
  constructor(ms: number, now: Now = () => performance.now()) {
    this.#now = now;
    this.#left = ms;
    this.#last = now();
  }

  /** Running time left, in ms (≤ 0 once expired). */
  left(): number {
    const t = this.#now();
    const gap = t - this.#last;
    this.#last = t;
    if (gap - this.#armed > STALL_MS && this.#stalls < MAX_STALLS) {
      this.#stalls++;
    } else {
      this.#left -= gap;
    }
    this.#armed = 0;
    return this.#left;
  }

  /** How many stalls the wait has left out so far. */
  get stalls(): number {
    return this.#stalls;
  }

  /**
   * Resolves true when `p` settles first (either way; the caller reads `p`), false once the
   * deadline has passed. Never rejects; leaves no timer behind.
   */
  race(p: Promise<unknown>): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let late: unknown;
      let done = false;
      const finish = (settled: boolean) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (late !== undefined) cancelAfterIo(late);
        resolve(settled);
      };
      const arm = () => {
        const left = this.left();
        if (left <= 0) {
          late = afterIo(() => finish(false));
          return;
        }
        this.#armed = Math.min(SLICE_MS, left);
        timer = setTimeout(arm, this.#armed);
      };
      p.then(
        () => finish(true),
        () => finish(true),
      );
      arm();
    });
  }
}
