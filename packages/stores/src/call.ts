/**
 * One way for every adapter to run a call on its driver: bounded (when a bound is given) by
 * this process's running time, and with every failure turned into the typed store error of
 * store-error.ts, by the classifier of the site's backend. Each backend's executor
 * (`postgres/executor.ts`, `sqlite/run.ts`, `mysql/connect.ts`' MysqlPool, and the Redis and
 * etcd stores) goes through here.
 *
 * The bound is a {@link RunningDeadline}, not a timer: a timer fires first when a process
 * resumes from a pause (SIGSTOP, a frozen VM) with the server's answer already in its socket,
 * and would fail a call the server did answer. A call given up on may still complete on the
 * server; callers make every call safe to abandon (a lease not renewed, a segment wasted,
 * never a number issued twice).
 */
import { RunningDeadline } from 'idforge/internal';
import { type CallSite, storeError } from './store-error.js';

export type { CallSite } from './store-error.js';

/**
 * `fn()`, rejecting with the typed store error when it fails or, with `timeoutMs`, has not
 * settled within that much running time ("no answer within N ms").
 */
export async function storeCall<T>(
  site: CallSite,
  operation: string,
  fn: () => Promise<T>,
  timeoutMs?: number,
): Promise<T> {
  try {
    const pending = fn();
    if (timeoutMs !== undefined) {
      pending.catch(() => undefined);
      if (!(await new RunningDeadline(timeoutMs).race(pending))) {
        throw new Error(`no answer within ${timeoutMs} ms`);
      }
    }
    return await pending;
  } catch (error) {
    throw storeError(site, operation, error);
  }
}

/** `fn()` of a synchronous driver (better-sqlite3), its failure typed as {@link storeCall}'s. */
export function storeCallSync<T>(site: CallSite, operation: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw storeError(site, operation, error);
  }
}
