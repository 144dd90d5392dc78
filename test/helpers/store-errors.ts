// The check a store test makes of a failure to reach its backend: a StoreUnavailableError that
// names the backend, the operation and the address (never a password), given within a bound
// derived from the timeout the test set.
import assert from 'node:assert/strict';
import { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';

export interface Unavailable {
  readonly backend: string;
  readonly operation: string;
  /** The address the error must give, and its message name; unchecked when absent. */
  readonly address?: string;
}

/** A check for `assert.rejects`: a StoreUnavailableError as `expected` says. */
export function unavailable(expected: Unavailable): (e: unknown) => true {
  return (e) => {
    assert.ok(e instanceof StoreUnavailableError, `got ${String(e)}`);
    assert.equal(e.backend, expected.backend);
    assert.equal(e.operation, expected.operation);
    if (expected.address !== undefined) {
      assert.equal(e.address, expected.address);
      assert.ok(e.message.includes(expected.address), e.message);
    }
    return true;
  };
}

/** Asserts `p` rejects as {@link unavailable}, in less than `withinMs` when given. */
export async function rejectsUnavailable(
  p: Promise<unknown>,
  expected: Unavailable,
  withinMs?: number,
): Promise<void> {
  const started = Date.now();
  await assert.rejects(p, unavailable(expected));
  const took = Date.now() - started;
  if (withinMs !== undefined)
    assert.ok(took < withinMs, `took ${took} ms, expected under ${withinMs}`);
}

/**
 * `open()`, tried again while it rejects with StoreUnavailableError during connect, for a test
 * that opens a store with a timeout of a few hundred ms to see its calls fail within it later:
 * on a loaded machine the connection itself may miss that timeout, which is the test's set-up,
 * not what it checks. Rethrows the last failure once `boundMs` has passed.
 */
export async function openRetrying<T>(open: () => Promise<T>, boundMs = 30_000): Promise<T> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    try {
      return await open();
    } catch (error) {
      const connecting = error instanceof StoreUnavailableError && error.operation === 'connect';
      if (!connecting || Date.now() > deadline) throw error;
    }
  }
}
