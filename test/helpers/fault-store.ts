// A LeaseStore wrapper that injects store faults in front of a REAL store (not a mock of the
// database): calls can be made to fail as if the server were down, or to stall until released.
import { StoreUnavailableError } from '../../packages/idforge/src/coord/index.js';
import type { LeaseStore } from '../../packages/idforge/src/coord/ports.js';

export interface FaultControl {
  /** Every call rejects with StoreUnavailableError while true. */
  down: boolean;
  /** While set, renew() waits for this promise before calling the real store. */
  stall: Promise<void> | null;
}

export function faultyStore(real: LeaseStore): { store: LeaseStore; control: FaultControl } {
  const control: FaultControl = { down: false, stall: null };
  const guard = async <T>(operation: string, fn: () => Promise<T>): Promise<T> => {
    if (control.down) {
      throw new StoreUnavailableError(real.backend, real.address, operation, new Error('down'));
    }
    return fn();
  };
  const store: LeaseStore = {
    backend: real.backend,
    address: real.address,
    migrate: () => guard('migrate', () => real.migrate()),
    acquire: (r) => guard('acquire', () => real.acquire(r)),
    renew: async (l, r) => {
      if (control.stall !== null) await control.stall;
      return guard('renew', () => real.renew(l, r));
    },
    release: (l, m) => guard('release', () => real.release(l, m)),
    list: () => guard('list', () => real.list()),
    readMark: (w) => guard('readMark', () => real.readMark(w)),
    serverTimeMs: () => guard('serverTime', () => real.serverTimeMs()),
    close: () => real.close(),
  };
  return { store, control };
}
