/**
 * The primary process of `idforge serve --processes N`: it serves nothing itself. It forks N
 * processes (node:cluster), each a whole service with its own worker-ID leases, marks and
 * segment buffers, all listening on one port (the primary accepts the connections and hands
 * them out in turn: node:cluster's round robin, the only way for processes to share a port on
 * Node 20, whose `net` has no SO_REUSEPORT). It relays the gathers of cluster-view.ts, restarts
 * a process that dies (after a back-off doubling from RESTART_MIN_MS to RESTART_MAX_MS, reset
 * once a process has stayed up STABLE_MS; the new one leases anew), and on `signal` sends
 * SIGTERM to every process and waits for them: each drains, records its marks and releases its
 * leases. Exit code 0 when every process stopped cleanly, 1 otherwise.
 *
 * It also keeps what must be the node's, not each process's: the rate limit's windows (the
 * processes spend requests it grants them: cluster-rate.ts) and the carry-over of the counters
 * of processes that died (cluster-carry.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import { probeListen } from '../http/port-probe.js';
import { RateLimiter } from '../http/rate-limit.js';
import { CarryOver } from './cluster-carry.js';
import {
  type ClusterMessage,
  GATHER_MS,
  isClusterMessage,
  type ProcessAnswer,
} from './cluster-view.js';

/** The environment variable that gives a forked process its index. */
export const PROCESS_INDEX_ENV = 'IDFORGE_PROCESS_INDEX';

const RESTART_MIN_MS = 100;
const RESTART_MAX_MS = 10_000;
const STABLE_MS = 30_000;

/** Options of {@link runPrimary}. */
export interface PrimaryOptions {
  readonly processes: number;
  /** The address the processes will listen on, checked before any is forked. */
  readonly host: string;
  readonly port: number;
  /** Where the primary's JSON log lines go. */
  readonly write: (line: string) => void;
  /** Stops the node when aborted. */
  readonly signal: AbortSignal;
  /** How long a stop waits for the processes before it kills what is left, in ms. */
  readonly stopTimeoutMs: number;
  /** The node's rate limit (requests per window and key; 0: off) and its window, in ms. */
  readonly rateLimit: number;
  readonly rateWindowMs: number;
}

interface Slot {
  worker: Worker | null;
  startedAt: number;
  backoffMs: number;
  listening: string | null;
  code: number | string | null;
}

/**
 * Runs the node until `options.signal` aborts; resolves the exit code. Rejects with the listen
 * error (EADDRINUSE, EACCES, EADDRNOTAVAIL) before forking anything when the address cannot be
 * bound, so no process opens a store for a port it cannot serve.
 */
export async function runPrimary(options: PrimaryOptions): Promise<number> {
  await probeListen(options.host, options.port);
  const primary = new Primary(options);
  return primary.run();
}

class Primary {
  readonly #o: PrimaryOptions;
  readonly #slots: Slot[];
  #stopping = false;
  #announced = false;
  readonly #gathers = new Map<
    number,
    { want: number; got: Map<number, unknown>; done: () => void }
  >();
  #nextGather = 1;
  readonly #carry = new CarryOver();
  readonly #limiter: RateLimiter | null;

  constructor(options: PrimaryOptions) {
    this.#o = options;
    this.#limiter =
      options.rateLimit > 0
        ? new RateLimiter({ max: options.rateLimit, windowMs: options.rateWindowMs })
        : null;
    this.#slots = Array.from({ length: options.processes }, () => ({
      worker: null,
      startedAt: 0,
      backoffMs: RESTART_MIN_MS,
      listening: null,
      code: null,
    }));
  }

  #log(level: number, msg: string, extra: Record<string, unknown> = {}): void {
    this.#o.write(
      `${JSON.stringify({ level, time: Date.now(), process: 'primary', ...extra, msg })}\n`,
    );
  }

  async run(): Promise<number> {
    this.#log(30, `starting ${this.#slots.length} processes`, { pid: process.pid });
    for (let i = 0; i < this.#slots.length; i++) this.#fork(i);
    await new Promise<void>((resolve) => {
      if (this.#o.signal.aborted) resolve();
      this.#o.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    return this.#stop();
  }

  #fork(index: number): void {
    const slot = this.#slots[index]!;
    const worker = cluster.fork({ [PROCESS_INDEX_ENV]: String(index) });
    slot.worker = worker;
    slot.startedAt = Date.now();
    slot.listening = null;
    worker.on('message', (m: unknown) => this.#onMessage(index, worker, m));
    worker.on('exit', (code, signal) => this.#onExit(index, worker, code, signal));
  }

  #onMessage(index: number, worker: Worker, m: unknown): void {
    if (!isClusterMessage(m)) return;
    if (m.idforge === 'listening') {
      this.#slots[index]!.listening = m.url ?? null;
      this.#announce(m.url ?? '');
    } else if (m.idforge === 'ask' && m.kind !== undefined && m.id !== undefined) {
      const { id, kind } = m;
      void this.#gather(kind).then((answers) => {
        const carried = this.#carry.gathered(kind, answers);
        send(worker, { idforge: 'reply', id, answers, carried });
      });
    } else if (m.idforge === 'rate' && m.id !== undefined && this.#limiter !== null) {
      // A process's requests of the node's limit: what it asks, or a share of what is left.
      const grant = this.#limiter.grant(String(m.key), m.need ?? 1, 2 * this.#slots.length);
      send(worker, { idforge: 'granted', id: m.id, grant });
    } else if (m.idforge === 'answer' && m.id !== undefined) {
      const g = this.#gathers.get(m.id);
      g?.got.set(index, m.value ?? null);
      if (g !== undefined && g.got.size >= g.want) g.done();
    }
  }

  /** Once every process listens: one line naming the port and the processes. */
  #announce(url: string): void {
    if (this.#announced || !this.#slots.every((s) => s.listening !== null)) return;
    this.#announced = true;
    const pids = this.#slots.map((s) => s.worker?.process.pid);
    this.#log(30, `${this.#slots.length} processes listening on ${url}`, { pids });
  }

  /** Every live process's answer to `kind`, waiting at most GATHER_MS. */
  async #gather(kind: NonNullable<ClusterMessage['kind']>): Promise<ProcessAnswer[]> {
    const id = this.#nextGather++;
    const live = this.#slots
      .map((s, index) => ({ index, worker: s.worker }))
      .filter((x) => x.worker?.isConnected() === true);
    const got = new Map<number, unknown>();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, GATHER_MS);
      this.#gathers.set(id, {
        want: live.length,
        got,
        done: () => {
          clearTimeout(timer);
          resolve();
        },
      });
      if (live.length === 0) resolve();
      for (const x of live) send(x.worker!, { idforge: 'gather', id, kind });
    });
    this.#gathers.delete(id);
    return this.#slots.map((s, index) => ({
      index,
      pid: s.worker?.process.pid ?? 0,
      value: got.get(index) ?? null,
      missing: !got.has(index),
    }));
  }

  #onExit(index: number, worker: Worker, code: number | null, signal: string | null): void {
    const slot = this.#slots[index]!;
    if (slot.worker !== worker) return;
    slot.code = signal ?? code;
    slot.worker = null;
    this.#carry.died(index);
    if (this.#stopping) return;
    const up = Date.now() - slot.startedAt;
    if (up >= STABLE_MS) slot.backoffMs = RESTART_MIN_MS;
    const wait = slot.backoffMs;
    slot.backoffMs = Math.min(slot.backoffMs * 2, RESTART_MAX_MS);
    this.#log(
      40,
      `process ${index} (pid ${worker.process.pid}) exited (${signal ?? code}) after ${up} ms; restarting it in ${wait} ms`,
      {
        index,
        pid: worker.process.pid,
      },
    );
    setTimeout(() => {
      if (!this.#stopping) this.#fork(index);
    }, wait).unref();
  }

  /** SIGTERM to every process; waits (bounded), kills what is left; the node's exit code. */
  async #stop(): Promise<number> {
    this.#stopping = true;
    const live = this.#slots.filter((s) => s.worker !== null);
    this.#log(30, `stopping ${live.length} processes`);
    const exits = live.map(
      (s) => new Promise<void>((resolve) => s.worker!.once('exit', () => resolve())),
    );
    for (const s of live) s.worker!.process.kill('SIGTERM');
    const timer = setTimeout(() => {
      for (const s of this.#slots) s.worker?.process.kill('SIGKILL');
    }, this.#o.stopTimeoutMs);
    await Promise.all(exits);
    clearTimeout(timer);
    // Ended by the SIGTERM sent above, not by its handler: the process was still loading its
    // modules (the bin takes the signal from its first line), so it had opened nothing.
    const unclean = this.#slots.filter(
      (s) => s.code !== 0 && s.code !== null && s.code !== 'SIGTERM',
    );
    const codes = this.#slots.map((s) => s.code);
    this.#log(unclean.length === 0 ? 30 : 40, `stopped: exit codes ${codes.join(', ')}`);
    return unclean.length === 0 ? 0 : 1;
  }
}

function send(worker: Worker, message: ClusterMessage): void {
  if (worker.isConnected()) worker.send(message);
}
