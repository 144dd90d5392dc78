/**
 * /healthz (alive), /readyz (can serve: each failing check named, each warning listed) and
 * /metrics. A warning check holds (`ok: true`, readiness unchanged) but has `warn: true` and
 * its reason, and is listed in `warnings` as `name: reason`, as a failing one is in `failing`.
 */
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../deps.js';
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

export const healthRoutes = routePlugin('health', async (app: FastifyInstance, deps: RouteDeps) => {
  const { nodes, sequences, metrics } = deps;
  const now = deps.now ?? Date.now;
  let probe: { atMs: number; ok: boolean; reason: string } | null = null;
  let probing: Promise<void> | null = null;

  /** Is the sequence store reachable? One listTags, at most once a second, bounded in time. */
  async function probeStore(): Promise<{ ok: boolean; reason: string }> {
    const source = sequences.source;
    if (source === null) return { ok: true, reason: '' };
    if (probe !== null && now() - probe.atMs < PROBE_TTL_MS) return probe;
    probing ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${PROBE_TIMEOUT_MS} ms`)),
          PROBE_TIMEOUT_MS,
        );
      });
      try {
        await Promise.race([source.probe(), timeout]);
        probe = { atMs: now(), ok: true, reason: '' };
      } catch (error) {
        probe = {
          atMs: now(),
          ok: false,
          reason: `${source.backend} at ${source.address}: ${(error as Error).message}`,
        };
      } finally {
        clearTimeout(timer);
        probing = null;
      }
    })();
    await probing;
    return probe ?? { ok: false, reason: 'not probed' };
  }

  async function checks(): Promise<Check[]> {
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
    }
    if (deps.clockWatch !== undefined) {
      // Never a failure: the nodes issue on their monotonic clock whatever the wall clock does.
      const w = deps.clockWatch.check();
      out.push({ name: 'wall-clock', ok: true, warn: w.warn, reason: w.reason });
    }
    if (sequences.source !== null) {
      const buffers = sequences.snapshots();
      const full =
        buffers.length > 0 && buffers.every((b) => b.current !== null || b.next !== null);
      const p = await probeStore();
      out.push({
        name: 'sequences',
        ok: p.ok || full,
        warn: !p.ok && full,
        reason: p.ok
          ? ''
          : full
            ? `store unreachable, serving from buffers: ${p.reason}`
            : p.reason,
      });
    }
    return out;
  }

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
      const list = await checks();
      const failing = list.filter((c) => !c.ok);
      reply.code(failing.length === 0 ? 200 : 503);
      return {
        ready: failing.length === 0,
        failing: failing.map((c) => `${c.name}: ${c.reason}`),
        warnings: list.filter((c) => c.ok && c.warn).map((c) => `${c.name}: ${c.reason}`),
        checks: list,
      };
    },
  );
  app.get(
    '/metrics',
    { config: ops, schema: { summary: 'Prometheus metrics', tags: ['health'] } },
    async (_req, reply) => {
      const { body, contentType } = await metrics.render();
      reply.type(contentType);
      return body;
    },
  );
});
