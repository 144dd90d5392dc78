// The load of the cluster tests: requests for Snowflake IDs, sequence numbers and whole
// segments sent to `idforge serve` processes at once, everything they return kept by node, and
// the checks on it (duplicates, worker IDs, ticks).
import { setTimeout as sleep } from 'node:timers/promises';
import { decompose, getLayout } from '../../packages/idforge/src/core/index.js';
import { ADMIN_TOKEN, alive } from './cluster.js';
import type { ServiceProc } from './service.js';
import { early } from './wait.js';

const layout = getLayout('default');
/** The worker ID (node field, bits 12..21) of a default-layout Snowflake ID. */
export const workerOf = (id: bigint): number => decompose(layout, id).fields.node!;
/** The unix ms of a default-layout Snowflake ID's tick. */
export const timeOf = (id: bigint): number => decompose(layout, id).unixMs;

export type Kind = 'snowflake' | 'sequence' | 'segment';

/** One answer: what a node returned (values) or why it did not (status and code). */
export interface Answer {
  readonly status: number;
  readonly values: readonly bigint[];
  readonly code: string;
  /** The error's message ('' for a 200). */
  readonly message: string;
}

/** One request of `kind` for `count` values (a segment of `count` is expanded to its numbers). */
export async function request(
  url: string,
  kind: Kind,
  tag: string,
  count: number,
): Promise<Answer> {
  const headers = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const r =
    kind === 'snowflake'
      ? await fetch(`${url}/v1/ids/snowflake?count=${count}`, { headers })
      : kind === 'sequence'
        ? await fetch(`${url}/v1/sequences/${tag}?count=${count}`, { headers })
        : await fetch(`${url}/v1/sequences/${tag}/segments?size=${count}`, {
            method: 'POST',
            headers,
          });
  const body = (await r.json()) as {
    ids?: string[];
    first?: string;
    last?: string;
    error?: { code: string; message: string };
  };
  if (r.status !== 200) {
    const e = body.error;
    return { status: r.status, values: [], code: e?.code ?? '', message: e?.message ?? '' };
  }
  if (kind !== 'segment') {
    return { status: 200, values: body.ids!.map((s) => BigInt(s)), code: '', message: '' };
  }
  const first = BigInt(body.first!);
  const last = BigInt(body.last!);
  const values: bigint[] = [];
  for (let v = first; v <= last; v++) values.push(v);
  return { status: 200, values, code: '', message: '' };
}

/** The first and last tick among the Snowflake IDs of `ids` under worker `w`, and their number. */
export function span(
  ids: readonly bigint[] | undefined,
  w: number,
): { first: number; last: number; n: number } {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let n = 0;
  for (const id of ids ?? []) {
    if (workerOf(id) !== w) continue;
    const t = timeOf(id);
    if (t < first) first = t;
    if (t > last) last = t;
    n++;
  }
  return { first, last, n };
}

/** Everything fetched from a cluster, by node and kind, and every failed request. */
export class Harvest {
  /** Snowflake IDs by node label, in the order they were received. */
  readonly snowflakes = new Map<string, bigint[]>();
  /** Sequence numbers (from /v1/sequences and expanded segments) by node label. */
  readonly numbers = new Map<string, bigint[]>();
  readonly failures: {
    node: string;
    kind: Kind;
    status: number | string;
    code: string;
    message?: string;
  }[] = [];

  add(node: string, kind: Kind, values: readonly bigint[]): void {
    const map = kind === 'snowflake' ? this.snowflakes : this.numbers;
    const list = map.get(node) ?? [];
    if (!map.has(node)) map.set(node, list);
    for (const v of values) list.push(v);
  }

  count(kind: 'snowflake' | 'numbers', node?: string): number {
    const map = kind === 'snowflake' ? this.snowflakes : this.numbers;
    let n = 0;
    for (const [label, list] of map) if (node === undefined || label === node) n += list.length;
    return n;
  }

  /** Values that occur more than once among every node's values of that space. */
  duplicates(kind: 'snowflake' | 'numbers'): number {
    const map = kind === 'snowflake' ? this.snowflakes : this.numbers;
    const seen = new Set<bigint>();
    let dups = 0;
    for (const list of map.values()) {
      for (const v of list) {
        if (seen.has(v)) dups++;
        else seen.add(v);
      }
    }
    return dups;
  }

  /** Worker IDs found in the Snowflake IDs of `node`. */
  workers(node: string): Set<number> {
    return new Set((this.snowflakes.get(node) ?? []).map(workerOf));
  }
}

/** What a {@link pump} does. */
export interface PumpOptions {
  readonly tag: string;
  /** The kind of the next request, or null to stop. */
  readonly next: () => Kind | null;
  /** Values per request. Default 1000. */
  readonly count?: number;
  /** Requests in flight to the node. Default 2. */
  readonly concurrency?: number;
  /**
   * Record failed requests and go on (a node killed, paused or cut off); default false: the
   * first failure rejects.
   */
  readonly tolerate?: boolean;
}

/**
 * Sends requests to `node` until `next()` says stop (or the node's process has exited, when
 * tolerant), adding every answer to `harvest` under `label`.
 */
export async function pump(
  node: ServiceProc,
  label: string,
  harvest: Harvest,
  options: PumpOptions,
): Promise<void> {
  const { tag, count = 1000, concurrency = 2, tolerate = false } = options;
  const worker = async () => {
    for (let kind = options.next(); kind !== null; kind = options.next()) {
      if (tolerate && !alive(node)) return;
      let answer: Answer;
      try {
        answer = await request(node.url, kind, tag, count);
      } catch (error) {
        if (!tolerate) throw error;
        harvest.failures.push({ node: label, kind, status: (error as Error).message, code: '' });
        await sleep(10); // a node killed or restarting: retry, not spin
        continue;
      }
      if (answer.status === 200) {
        harvest.add(label, kind, answer.values);
        continue;
      }
      const failure = {
        node: label,
        kind,
        status: answer.status,
        code: answer.code,
        message: answer.message,
      };
      if (!tolerate) throw new Error(`${label} answered ${kind}: ${JSON.stringify(failure)}`);
      harvest.failures.push(failure);
      await sleep(10); // a fenced node answers 503 at once: retry, not spin
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** A `next` for {@link pump}: cycles through `kinds` until `stop()` holds. */
export function cycle(kinds: readonly Kind[], stop: () => boolean): () => Kind | null {
  let i = 0;
  return () => (stop() ? null : (kinds[i++ % kinds.length] as Kind));
}

/** Keeps requests of `kinds` going to every node added, tolerating failures, until stop(). */
export class Loads {
  readonly harvest = new Harvest();
  readonly #tag: string;
  readonly #kinds: readonly Kind[];
  readonly #running: Promise<void>[] = [];
  #stopped = false;

  constructor(tag: string, kinds: readonly Kind[]) {
    this.#tag = tag;
    this.#kinds = kinds;
  }

  /** Starts a pump of one request at a time to `node`, its answers kept under `label`. */
  add(node: ServiceProc, label: string): void {
    const next = cycle(this.#kinds, () => this.#stopped);
    const options = { tag: this.#tag, next, concurrency: 1, tolerate: true };
    this.#running.push(early(() => pump(node, label, this.harvest, options)));
  }

  /** Stops every pump after its request in flight (idempotent). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.all(this.#running);
  }
}
