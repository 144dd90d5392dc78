// A backend that exists only in the tests: worker-ID leases held in this process's memory,
// under `memory:NAME` URLs (one store per name, shared by every store opened on it). It is
// written as a new backend would be, against the descriptor and the LeaseStore port only, and
// registered with registerBackend: the registry test then opens, migrates and serves it.

import type {
  Lease,
  LeaseRecord,
  LeaseRequest,
  LeaseStore,
  RenewReport,
  RenewResult,
} from '../../packages/idforge/src/coord/index.js';
import type { Backend } from '../../packages/stores/src/backend.js';

interface Held {
  readonly record: Omit<LeaseRecord, 'expiresAtMs' | 'markMs' | 'lastIssuedMs' | 'clockMs'>;
  expiresAtMs: number;
  lastIssuedMs: number | null;
  clockMs: number | null;
}

/** One named store's state: live leases by worker ID and the marks, which outlive them. */
class MemoryState {
  readonly leases = new Map<number, Held>();
  readonly marks = new Map<number, number>();
  migrated = false;
  live(workerId: number, now: number): Held | undefined {
    const held = this.leases.get(workerId);
    return held !== undefined && held.expiresAtMs > now ? held : undefined;
  }
  raise(workerId: number, markMs: number): void {
    this.marks.set(workerId, Math.max(this.marks.get(workerId) ?? markMs, markMs));
  }
}

const states = new Map<string, MemoryState>();

/** The state of `memory:NAME`, for a test to look into. */
export function memoryState(url: string): MemoryState {
  const name = url.slice('memory:'.length);
  let state = states.get(name);
  if (state === undefined) {
    state = new MemoryState();
    states.set(name, state);
  }
  return state;
}

export class MemoryLeaseStore implements LeaseStore {
  readonly backend = 'memory';
  readonly address: string;
  readonly #state: MemoryState;
  #closed = false;

  constructor(url: string) {
    this.address = url;
    this.#state = memoryState(url);
  }

  #open(): MemoryState {
    if (this.#closed) throw new Error(`${this.address} is closed`);
    if (!this.#state.migrated) throw new Error(`${this.address}: migrate() first`);
    return this.#state;
  }

  async migrate(): Promise<void> {
    if (this.#closed) throw new Error(`${this.address} is closed`);
    this.#state.migrated = true;
  }

  async acquire(request: LeaseRequest): Promise<Lease | null> {
    const state = this.#open();
    const now = Date.now();
    for (let workerId = request.min; workerId <= request.max; workerId++) {
      if (state.live(workerId, now) !== undefined) continue;
      const previousMarkMs = state.marks.get(workerId) ?? null;
      state.raise(workerId, request.reserveMarkMs);
      const { instanceId, host, pid, startedAtMs } = request.owner;
      state.leases.set(workerId, {
        record: { workerId, instanceId, host, pid, startedAtMs, storeClockMs: now },
        expiresAtMs: now + request.ttlMs,
        lastIssuedMs: null,
        clockMs: request.clockMs,
      });
      return { workerId, instanceId, previousMarkMs, markMs: state.marks.get(workerId)! };
    }
    return null;
  }

  async renew(lease: Lease, report: RenewReport): Promise<RenewResult> {
    const state = this.#open();
    const now = Date.now();
    const held = state.live(lease.workerId, now);
    if (held === undefined || held.record.instanceId !== lease.instanceId) {
      return { held: false, claimants: held === undefined ? [] : [held.record.instanceId] };
    }
    held.expiresAtMs = now + report.ttlMs;
    held.lastIssuedMs = report.lastIssuedMs;
    held.clockMs = report.clockMs;
    state.raise(lease.workerId, report.reserveMarkMs);
    return { held: true, claimants: [lease.instanceId] };
  }

  async release(lease: Lease, finalMarkMs: number | null): Promise<void> {
    const state = this.#open();
    const held = state.leases.get(lease.workerId);
    if (held === undefined || held.record.instanceId !== lease.instanceId) return;
    state.leases.delete(lease.workerId);
    if (finalMarkMs !== null) state.marks.set(lease.workerId, finalMarkMs);
  }

  async list(): Promise<LeaseRecord[]> {
    const state = this.#open();
    const now = Date.now();
    return [...state.leases.keys()]
      .sort((a, b) => a - b)
      .flatMap((workerId) => {
        const held = state.live(workerId, now);
        if (held === undefined) return [];
        return [
          {
            ...held.record,
            expiresAtMs: held.expiresAtMs,
            markMs: state.marks.get(workerId) ?? null,
            lastIssuedMs: held.lastIssuedMs,
            clockMs: held.clockMs,
          },
        ];
      });
  }

  async readMark(workerId: number): Promise<number | null> {
    return this.#open().marks.get(workerId) ?? null;
  }

  async serverTimeMs(): Promise<number | null> {
    return Date.now();
  }

  async close(): Promise<void> {
    this.#closed = true;
  }
}

/** The descriptor: everything the registry, the openers, the service and the CLI need. */
export const memoryBackend: Backend = {
  name: 'memory',
  title: 'this process’s memory (tests only)',
  form: 'memory:NAME',
  drivers: [],
  url: { path: true },
  open: {
    leases: async (url, options) => {
      const store = new MemoryLeaseStore(url);
      if (options.autoMigrate ?? true) await store.migrate();
      return store;
    },
  },
};
