/**
 * /healthz (alive), /readyz (can serve: each failing check named, each warning listed) and
 * /metrics. A warning check holds (`ok: true`, readiness unchanged) but has `warn: true` and
 * its reason, and is listed in `warnings` as `name: reason`, as a failing one is in `failing`.
 */
import type { FastifyInstance } from 'fastify';
import type { SnowflakeNode, WorkerSwitch } from 'idforge/coord';
import type { ClusterView } from '../../cluster/cluster-view.js';
import type { RouteDeps } from '../../deps.js';
import type { ClockWatch } from '../../domain/clock-watch.js';
import type { SequenceRegistry } from '../../domain/sequences.js';
import { aggregateMetrics } from '../../metrics/metrics.js';
import { routePlugin } from '../plugins/plugin.js';

const ops = { access: 'ops' as const };

/** One readiness check. */
export interface Check {
  readonly name: string;
  readonly ok: boolean;
  /** It holds, but something an operator should see is wrong (the reason says what). */
  readonly warn: boolean;
  readonly reason: string;
}

/** How long a probe of the sequence store counts. */
const PROBE_TTL_MS = 1000;
const PROBE_TIMEOUT_MS = 1000;

interface ProbeResult {
  readonly ok: boolean;
  readonly reason: string;
}

/**
 * Is the sequence store reachable? One `probe()` of the source at most once a second,
 * bounded in time; concurrent readiness checks share the probe in flight.
 */
class StoreProbe {
  readonly #sequences: SequenceRegistry;
  readonly #now: () => number;
  #last: (ProbeResult & { readonly atMs: number }) | null = null;
  #probing: Promise<void> | null = null;

  constructor(sequences: SequenceRegistry, now: () => number) {
    this.#sequences = sequences;
    this.#now = now;
  }

  async check(): Promise<ProbeResult> {
    if (this.#sequences.source === null) return { ok: true, reason: '' };
    const last = this.#last;
    if (last !== null && this.#now() - last.atMs < PROBE_TTL_MS) return last;
    this.#probing ??= this.#probe();
    await this.#probing;
    return this.#last ?? { ok: false, reason: 'not probed' };
  }

  async #probe(): Promise<void> {
    const source = this.#sequences.source!;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)),
        PROBE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([source.probe(), timeout]);
      this.#last = { atMs: this.#now(), ok: true, reason: '' };
    } catch (error) {
      const reason = `${source.backend} at ${source.address}: ${(error as Error).message}`;
      this.#last = { atMs: this.#now(), ok: false, reason };
    } finally {
      clearTimeout(timer);
      this.#probing = null;
    }
  }
}

/** Per node: its lease held, and its clock past the mark (or ready). */
function nodeChecks(nodes: ReadonlyMap<string, SnowflakeNode>): Check[] {
  const out: Check[] = [];
  for (const [layout, node] of nodes) {
    const r = node.readiness;
    out.push({
      name: `lease:${layout}`,
      ok: r.leaseHeld,
      warn: false,
      reason: r.leaseHeld ? '' : r.reason,
    });
    out.push({
      name: `clock:${layout}`,
      ok: r.ready || (r.leaseHeld && r.pastMark),
      warn: false,
      reason: r.ready ? '' : r.reason,
    });
    const sw = node.lastSwitch;
    if (sw !== null && Date.now() - sw.atMs < SWITCH_SHOWN_MS) out.push(switchCheck(layout, sw));
  }
  return out;
}

/** How long /readyz lists a switch of worker ID as a warning. */
const SWITCH_SHOWN_MS = 10 * 60_000;

/** A recent switch of worker ID: a warning (readiness unchanged), with what happened. */
function switchCheck(layout: string, sw: WorkerSwitch): Check {
  return {
    name: `switch:${layout}`,
    ok: true,
    warn: true,
    reason:
      `switched from worker ID ${sw.fromWorkerId} to ${sw.toWorkerId} at ` +
      `${new Date(sw.atMs).toISOString()}: the clock was ${Math.round(sw.stepMs)} ms behind; ` +
      'IDs issued since may sort below those before the step (they stay unique)',
  };
}

/** The wall clock against the nodes' clock: never a failure, at most a warning. */
function wallClockCheck(watch: ClockWatch): Check {
  // The nodes issue on their monotonic clock whatever the wall clock does.
  const w = watch.check();
  return { name: 'wall-clock', ok: true, warn: w.warn, reason: w.reason };
}

/** The sequence store reachable, or every open buffer still holding numbers (a warning). */
async function sequenceCheck(sequences: SequenceRegistry, probe: StoreProbe): Promise<Check> {
  const buffers = sequences.snapshots();
  const full = buffers.length > 0 && buffers.every((b) => b.current !== null || b.next !== null);
  const p = await probe.check();
  const reason = p.ok
    ? ''
    : full
      ? `store unreachable, serving from buffers: ${p.reason}`
      : p.reason;
  return { name: 'sequences', ok: p.ok || full, warn: !p.ok && full, reason };
}

/** What /readyz answers for one process. */
interface Readiness {
  readonly ready: boolean;
  readonly failing: string[];
  readonly warnings: string[];
  readonly checks: Check[];
  /** With --processes: each process's readiness (this one's `checks` are listed above). */
  readonly processes?: { index: number; pid: number; ready: boolean; failing: string[] }[];
}

function readiness(list: Check[]): Readiness {
  const failing = list.filter((c) => !c.ok);
  return {
    ready: failing.length === 0,
    failing: failing.map((c) => `${c.name}: ${c.reason}`),
    warnings: list.filter((c) => c.ok && c.warn).map((c) => `${c.name}: ${c.reason}`),
    checks: list,
  };
}

/**
 * The node's readiness over every process: ready while each is (a process that does not
 * answer, or is being restarted, is not); failures and warnings prefixed with the process.
 */
async function nodeReadiness(cluster: ClusterView, own: Readiness): Promise<Readiness> {
  const { answers } = await cluster.gather('readiness');
  const failing: string[] = [];
  const warnings: string[] = [];
  const processes = answers.map((a) => {
    const r = a.value as Readiness | null;
    const where = `process ${a.index} (pid ${a.pid})`;
    const f = r === null ? ['no answer: not running, or not responding'] : r.failing;
    failing.push(...f.map((x) => `${where}: ${x}`));
    warnings.push(...(r?.warnings ?? []).map((x) => `${where}: ${x}`));
    return { index: a.index, pid: a.pid, ready: r?.ready === true, failing: f };
  });
  return { ready: failing.length === 0, failing, warnings, checks: own.checks, processes };
}

/** Every readiness check of this node, in the order /readyz lists them. */
async function checks(deps: RouteDeps, probe: StoreProbe): Promise<Check[]> {
  const out = nodeChecks(deps.nodes);
  if (deps.clockWatch !== undefined) out.push(wallClockCheck(deps.clockWatch));
  if (deps.sequences.source !== null) out.push(await sequenceCheck(deps.sequences, probe));
  return out;
}

/**
 * A --processes node's metrics: every process's that answered, summed, plus the counts the
 * primary carries over (of processes that died or did not answer), so no sum goes down.
 */
async function nodeMetrics(cluster: ClusterView) {
  const { answers, carried } = await cluster.gather('metrics');
  const parts = answers.filter((a) => !a.missing && a.value !== null).map((a) => a.value);
  if (Array.isArray(carried) && carried.length > 0) parts.push(carried);
  return aggregateMetrics(parts as Parameters<typeof aggregateMetrics>[0]);
}

export const healthRoutes = routePlugin('health', async (app: FastifyInstance, deps: RouteDeps) => {
  const probe = new StoreProbe(deps.sequences, deps.now ?? Date.now);
  app.get(
    '/healthz',
    { config: ops, schema: { summary: 'Liveness: the process answers', tags: ['health'] } },
    async () => ({
      status: 'ok',
    }),
  );
  app.get(
    '/readyz',
    {
      config: ops,
      schema: {
        summary: 'Readiness: every check, failing ones and warnings named',
        tags: ['health'],
      },
    },
    async (_req, reply) => {
      const own = readiness(await checks(deps, probe));
      const body = deps.cluster === undefined ? own : await nodeReadiness(deps.cluster, own);
      reply.code(body.ready ? 200 : 503);
      return body;
    },
  );
  deps.cluster?.answer('readiness', async () => readiness(await checks(deps, probe)));
  deps.cluster?.answer('metrics', () => deps.metrics.json(deps.cluster!.index));
  app.get(
    '/metrics',
    { config: ops, schema: { summary: 'Prometheus metrics', tags: ['health'] } },
    async (_req, reply) => {
      const { body, contentType } =
        deps.cluster === undefined ? await deps.metrics.render() : await nodeMetrics(deps.cluster);
      reply.type(contentType);
      return body;
    },
  );
});
