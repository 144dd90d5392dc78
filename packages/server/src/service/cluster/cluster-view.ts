/**
 * One process of an `idforge serve --processes N` node, as its routes see the others. Each
 * process is a whole service (its own leases, marks and segment buffers); what must speak for
 * the whole node (/metrics, /readyz, /v1/status) asks the primary process, which asks every
 * process, this one included, and hands back their answers (cluster-primary.ts). The messages
 * go over node:cluster's IPC channel:
 *
 *   process → primary   { idforge: 'ask', id, kind }              a route needs every answer
 *   primary → process   { idforge: 'gather', id, kind }           answer for yourself
 *   process → primary   { idforge: 'answer', id, value }
 *   primary → process   { idforge: 'reply', id, answers, carried } one per process, in order
 *   process → primary   { idforge: 'listening', url }             once, after listen
 *   process → primary   { idforge: 'rate', id, key, need }        requests of the node's limit
 *   primary → process   { idforge: 'granted', id, grant }         (cluster-rate.ts)
 *
 * `carried` holds what counters of the node the processes that answered no longer hold (the
 * primary's carry-over, cluster-carry.ts): a route that sums a counter adds it, so the sum
 * never goes down when a process dies or does not answer.
 *
 * Every wait is bounded: a process that does not answer within GATHER_MS is reported missing
 * (`value: null, missing: true`), and an ask the primary does not reply to within ASK_MS
 * rejects, so a route never hangs on a stuck or dead process.
 */
import type { Grant } from '../http/rate-limit.js';

/** What a route may gather from every process. */
export type GatherKind = 'metrics' | 'status' | 'readiness';

/** One process's answer to a gather. */
export interface ProcessAnswer {
  /** The process's index in the node, 0 to size - 1. */
  readonly index: number;
  readonly pid: number;
  /** Its answer; null when it did not answer in time. */
  readonly value: unknown;
  readonly missing: boolean;
}

/** Every process's answer to a gather, and what the node's counters carry over (see above). */
export interface Gathered {
  readonly answers: ProcessAnswer[];
  /** For `metrics`: parts to sum (counters, histograms); for `status`: issued counts; else null. */
  readonly carried: unknown;
}

/** How long the primary waits for the processes' answers to one gather, in ms. */
export const GATHER_MS = 1500;
/** How long a process waits for the primary's reply to one ask, in ms. */
export const ASK_MS = 3000;

/** A message of this protocol (anything else on the channel is someone else's). */
export interface ClusterMessage {
  readonly idforge: 'ask' | 'gather' | 'answer' | 'reply' | 'listening' | 'rate' | 'granted';
  readonly id?: number;
  readonly kind?: GatherKind;
  readonly value?: unknown;
  readonly answers?: readonly ProcessAnswer[];
  readonly carried?: unknown;
  readonly url?: string;
  readonly key?: string;
  readonly need?: number;
  readonly grant?: Grant;
}

/** Whether `m` is a message of this protocol. */
export function isClusterMessage(m: unknown): m is ClusterMessage {
  return typeof m === 'object' && m !== null && typeof (m as ClusterMessage).idforge === 'string';
}

/** The node as one of its processes sees it. */
export interface ClusterView {
  /** This process's index, 0 to size - 1. */
  readonly index: number;
  /** How many processes the node runs. */
  readonly size: number;
  /** Every process's answer to `kind`, in index order, and the carry-over. Rejects after ASK_MS. */
  gather(kind: GatherKind): Promise<Gathered>;
  /** `need` (or more) requests of `key` from the node's rate limit. Rejects after ASK_MS. */
  rate(key: string, need: number): Promise<Grant>;
  /** How this process answers `kind` when the primary asks (a route plugin registers it). */
  answer(kind: GatherKind, fn: () => unknown): void;
  /** Tells the primary this process listens at `url`. */
  listening(url: string): void;
  /** Closes the channel to the primary (once stopped: an open IPC channel keeps a process up). */
  close(): void;
}

/** What the view sends and receives on (process.send and process's 'message' events). */
export interface ClusterChannel {
  send(message: ClusterMessage): void;
  onMessage(listener: (message: unknown) => void): void;
  close(): void;
}

/** The view of process `index` of `size`, over `channel` (default: this process's IPC). */
export function workerClusterView(
  index: number,
  size: number,
  channel: ClusterChannel = processChannel(),
): ClusterView {
  const handlers = new Map<GatherKind, () => unknown>();
  const pending = new Map<number, (m: ClusterMessage) => void>();
  let next = 1;
  channel.onMessage((m) => {
    if (!isClusterMessage(m) || m.id === undefined) return;
    if (m.idforge === 'reply' || m.idforge === 'granted') pending.get(m.id)?.(m);
    if (m.idforge !== 'gather' || m.kind === undefined) return;
    const id = m.id;
    const handler = handlers.get(m.kind);
    Promise.resolve()
      .then(() => (handler === undefined ? null : handler()))
      .then(
        (value) => channel.send({ idforge: 'answer', id, value }),
        () => channel.send({ idforge: 'answer', id, value: null }),
      );
  });
  /** Sends `message` with a new id; the primary's reply to it, or a rejection after ASK_MS. */
  const ask = (message: ClusterMessage, what: string) => {
    const id = next++;
    return new Promise<ClusterMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the primary process did not answer ${what} in ${ASK_MS} ms`));
      }, ASK_MS);
      timer.unref();
      pending.set(id, (reply) => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(reply);
      });
      channel.send({ ...message, id });
    });
  };
  return {
    index,
    size,
    answer: (kind, fn) => void handlers.set(kind, fn),
    listening: (url) => channel.send({ idforge: 'listening', url }),
    close: () => channel.close(),
    async gather(kind) {
      const m = await ask({ idforge: 'ask', kind }, `a ${kind} gather`);
      return { answers: (m.answers ?? []) as ProcessAnswer[], carried: m.carried ?? null };
    },
    async rate(key, need) {
      const m = await ask({ idforge: 'rate', key, need }, 'a rate-limit grant');
      return m.grant as Grant;
    },
  };
}

function processChannel(): ClusterChannel {
  return {
    send: (message) => {
      if (process.connected) process.send?.(message);
    },
    onMessage: (listener) => void process.on('message', listener),
    close: () => {
      if (process.connected) process.disconnect();
    },
  };
}
