/**
 * The dashboard: the page at `/` with its script and style sheet (static files next to this
 * layer, read once at start), and `/v1/status`, the JSON it polls.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { SCHEMES } from 'idforge/schemes';
import type { RouteDeps } from '../../deps.js';
import { buffersJson } from '../../domain/sequences.js';
import { notFound } from '../errors.js';
import { routePlugin } from '../plugins/plugin.js';

const ops = { access: 'ops' as const };
const DASHBOARD = new URL('../../dashboard/', import.meta.url);
const TYPES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/** The schemes inspect reads, in prose (`A, B or C`): the page's label names them. */
const INSPECTED = SCHEMES.filter((s) => s.inspect !== undefined)
  .map((s) => s.title)
  .join(', ')
  .replace(/, ([^,]*)$/, ' or $1');

function load(name: string): string | null {
  try {
    const body = readFileSync(new URL(name, DASHBOARD), 'utf8');
    // The page lists the registry's schemes rather than its own copy of the list.
    return name === 'index.html' ? body.replaceAll('{{inspected}}', INSPECTED) : body;
  } catch {
    return null;
  }
}

/** The JSON of /v1/status (a snapshot; no I/O). */
export function status(deps: RouteDeps): Record<string, unknown> {
  const now = (deps.now ?? Date.now)();
  const clocks = deps.clockWatch?.check();
  const { config, identity } = deps;
  return {
    service: identity,
    // nowMs: the nodes' clock, which deadlineMs, reservedMs and markMs are on; wallMs: the wall
    // clock. A wall-clock step leaves them apart (src/service/domain/clock-watch.ts).
    nowMs: Math.floor(clocks?.nodeMs ?? now),
    wallMs: clocks?.wallMs ?? now,
    nodes: [...deps.nodes].map(([layout, node]) => {
      const r = node.readiness;
      return {
        layout,
        workerId: r.workerId,
        ready: r.ready,
        reason: r.reason,
        deadlineMs: r.deadlineMs,
        reservedMs: r.reservedMs,
        markMs: r.markMs,
        ttlMs: config.ttlMs,
        metrics: node.metrics,
      };
    }),
    issued: deps.issued.counts(),
    sequences: deps.sequences.snapshots().map((b) => ({
      tag: b.tag,
      step: b.step,
      served: b.served.toString(),
      loading: b.loading,
      ...buffersJson(b),
    })),
    events: deps.events.recent(),
  };
}

/** One process's part of a --processes node's /v1/status: its nodes and issued counts. */
function processStatus(index: number, pid: number, value: unknown) {
  const s = value as { service: unknown; nodes: unknown[]; issued: unknown } | null;
  if (s === null) return { index, pid, answered: false, service: null, nodes: [], issued: null };
  return { index, pid, answered: true, service: s.service, nodes: s.nodes, issued: s.issued };
}

export const statusRoutes = routePlugin('status', async (app: FastifyInstance, deps: RouteDeps) => {
  deps.cluster?.answer('status', () => status(deps));
  const files = new Map<string, string>();
  for (const name of Object.keys(TYPES)) {
    const body = load(name);
    if (body !== null) files.set(name, body);
  }
  const serve = (name: string) => {
    const body = files.get(name);
    if (body === undefined)
      throw notFound(`dashboard file ${name} is missing from this installation`);
    return body;
  };
  app.get(
    '/v1/status',
    { config: ops, schema: { summary: "This node's state, for the dashboard", tags: ['health'] } },
    async () => {
      const own = status(deps);
      if (deps.cluster === undefined) return own;
      const { answers, carried } = await deps.cluster.gather('status');
      const processes = answers.map((a) => processStatus(a.index, a.pid, a.value));
      // `issued`: the whole node's counts (the dashboard's rates), each process's in its own;
      // with what the primary carries over of processes that died or did not answer, so the
      // sums never go down.
      const issued: Record<string, number> = { ...((carried ?? {}) as Record<string, number>) };
      for (const p of processes) {
        for (const [k, v] of Object.entries((p.issued ?? {}) as Record<string, number>)) {
          issued[k] = (issued[k] ?? 0) + v;
        }
      }
      return { ...own, issued, processes };
    },
  );
  app.get('/', { config: ops, schema: { hide: true } }, async (_req, reply) => {
    reply.type(TYPES['index.html'] as string);
    return serve('index.html');
  });
  app.get<{ Params: { file: string } }>(
    '/dashboard/:file',
    { config: ops, schema: { hide: true } },
    async (req, reply) => {
      const type = TYPES[req.params.file];
      if (type === undefined || req.params.file === 'index.html')
        throw notFound(`no dashboard file ${req.params.file}`);
      reply.type(type);
      return serve(req.params.file);
    },
  );
});
