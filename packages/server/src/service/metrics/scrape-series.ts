/**
 * The series read when /metrics is scraped (no timers): the nodes' own counters mirrored, the
 * nodes' and buffers' state as gauges, the wall clock's divergence. Registered by
 * ServiceMetrics, whose registry they join; names and labels are docs/service.md's.
 */
import type { NodeMetrics, NodeReadiness } from 'idforge/coord';
import { Counter, Gauge, type Registry } from 'prom-client';

/** What a scrape reads from the running service. */
export interface MetricsSources {
  nodes(): readonly NodeSource[];
  buffers(): readonly BufferSource[];
  now(): number;
  /** The wall clock minus the nodes' clock, ms (src/service/domain/clock-watch.ts); absent: no gauge. */
  wallDivergenceMs?(): number;
}

interface NodeSource {
  layout: string;
  metrics: NodeMetrics;
  readiness: NodeReadiness;
}

interface BufferSource {
  tag: string;
  current: number | null;
  next: number | null;
  remaining: number;
}

/** The nodes' counters mirrored as `NAME_total{layout}`: name, help, which counter. */
const MIRRORED: readonly (readonly [string, string, (m: NodeMetrics) => number])[] = [
  [
    'idforge_snowflake_exhaustion_waits',
    'Times a node waited for the next tick (sequence exhausted)',
    (m) => m.exhaustionWaits,
  ],
  [
    'idforge_clock_rollbacks_absorbed',
    'Backward clock steps a node waited out',
    (m) => m.rollbackWaits,
  ],
  ['idforge_lease_renewals', 'Lease renewals', (m) => m.renewals],
  ['idforge_lease_renewal_failures', 'Failed lease renewals', (m) => m.renewalFailures],
  ['idforge_lease_losses', 'Leases lost (fenced)', (m) => m.leasesLost],
  ['idforge_leases_acquired', 'Leases acquired', (m) => m.leasesAcquired],
  [
    'idforge_snowflake_fenced_refusals',
    'New ticks refused while fenced or not ready',
    (m) => m.fencedRefusals,
  ],
  [
    'idforge_worker_switches',
    'Worker IDs switched after a large clock step back (onLargeRollback switch-worker)',
    (m) => m.workerSwitches,
  ],
];

/**
 * A counter mirroring one of the nodes' own counters. The nodes count for themselves; a scrape
 * adds what they counted since the last one, so it stays a true Prometheus counter (never
 * set, never lowered).
 */
function mirror(r: Registry, s: MetricsSources, [name, help, pick]: (typeof MIRRORED)[number]) {
  const seen = new Map<string, number>();
  new Counter({
    name: `${name}_total`,
    help,
    labelNames: ['layout'],
    registers: [r],
    collect() {
      for (const n of s.nodes()) {
        const v = pick(n.metrics);
        const d = v - (seen.get(n.layout) ?? 0);
        seen.set(n.layout, v);
        this.inc({ layout: n.layout }, Math.max(d, 0));
      }
    },
  });
}

/** A gauge with one series per node, by layout: `value(node, now)`. */
function nodeGauge(
  r: Registry,
  s: MetricsSources,
  name: string,
  help: string,
  value: (n: NodeSource, nowMs: number) => number,
): void {
  new Gauge({
    name,
    help,
    labelNames: ['layout'],
    registers: [r],
    collect() {
      const now = s.now();
      for (const n of s.nodes()) this.set({ layout: n.layout }, value(n, now));
    },
  });
}

/** The nodes' series: their counters mirrored, then their worker ID, lease and readiness. */
export function nodeSeries(r: Registry, s: MetricsSources): void {
  for (const m of MIRRORED) mirror(r, s, m);
  nodeGauge(
    r,
    s,
    'idforge_worker_id',
    'The leased worker ID (-1 while none is held)',
    (n) => n.metrics.workerId ?? -1,
  );
  nodeGauge(
    r,
    s,
    'idforge_lease_seconds_to_expiry',
    'Seconds until the lease deadline (0 without a lease)',
    (n, now) => {
      const d = n.readiness.deadlineMs;
      return d === null ? 0 : Math.max(0, (d - now) / 1000);
    },
  );
  nodeGauge(r, s, 'idforge_node_ready', '1 when the node can issue Snowflake IDs', (n) =>
    n.readiness.ready ? 1 : 0,
  );
}

/**
 * Buffer gauges, by the `tag` label `label` gives a tag; `_other` holds the lowest value of
 * the untracked tags (what alerts need).
 */
export function bufferSeries(r: Registry, s: MetricsSources, label: (tag: string) => string) {
  const lowest = (pick: (b: BufferSource) => number) => {
    const byLabel = new Map<string, number>();
    for (const b of s.buffers()) {
      const l = label(b.tag);
      const v = pick(b);
      byLabel.set(l, Math.min(v, byLabel.get(l) ?? v));
    }
    return byLabel;
  };
  new Gauge({
    name: 'idforge_segment_buffer_fill_ratio',
    help: 'Share of each segment buffer not yet served (current, next), by tag',
    labelNames: ['tag', 'buffer'],
    registers: [r],
    collect() {
      this.reset();
      for (const [tag, v] of lowest((b) => b.current ?? 0)) this.set({ tag, buffer: 'current' }, v);
      for (const [tag, v] of lowest((b) => b.next ?? 0)) this.set({ tag, buffer: 'next' }, v);
    },
  });
  new Gauge({
    name: 'idforge_segment_buffer_remaining',
    help: 'Numbers left in both segment buffers, by tag',
    labelNames: ['tag'],
    registers: [r],
    collect() {
      this.reset();
      for (const [tag, v] of lowest((b) => b.remaining)) this.set({ tag }, v);
    },
  });
}

/** The wall clock minus the nodes' clock, in seconds, when the service watches it. */
export function divergenceGauge(r: Registry, s: MetricsSources): void {
  const divergence = s.wallDivergenceMs;
  if (divergence === undefined) return;
  new Gauge({
    name: 'idforge_clock_wall_divergence_seconds',
    help: "The wall clock minus the nodes' monotonic clock (negative: the wall clock is behind)",
    registers: [r],
    collect() {
      this.set(divergence() / 1000);
    },
  });
}
