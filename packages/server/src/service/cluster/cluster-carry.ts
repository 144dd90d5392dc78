/**
 * The carry-over of a `--processes N` node's counters, kept by its primary. The node's
 * /metrics sums each counter and histogram over its processes, and /v1/status sums their
 * issued counts; a process that died took its counts with it, so the sums went down (issue 32:
 * 360,733 IDs issued, then 304,809), which Prometheus reads as a counter reset. The primary
 * sees every process's answer to every gather (it relays them), so it keeps each process's
 * last one, and hands the routes what the answers lack: the last counts of the processes that
 * died, and of those that did not answer this time. A sum of what each process last reported
 * can then only grow, whichever process dies or stalls.
 *
 * Counts a process made after its last report and before it died are not known to anyone and
 * are lost: the sums never decrease, but may not include them.
 */
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { GatherKind, ProcessAnswer } from './cluster-view.js';

/** One process's metrics, as ServiceMetrics.json gives them. */
export type MetricsPart = MetricObjectWithValues<MetricValue<string>>[];
type Issued = Record<string, number>;

/** What a process last reported. */
interface Last {
  metrics: MetricsPart | null;
  issued: Issued | null;
}

/** The counters of a part: its counters and histograms (a gauge is a figure of its process). */
function counters(part: MetricsPart): MetricsPart {
  return part.filter((m) => String(m.type) !== 'gauge');
}

/** `a` and `b` summed, series by series (name, sample name, labels), as prom-client sums. */
export function sumParts(a: MetricsPart, b: MetricsPart): MetricsPart {
  const byName = new Map<string, { metric: MetricsPart[number]; values: Map<string, number> }>();
  const samples = new Map<string, MetricValue<string>>();
  for (const m of [...a, ...b]) {
    let e = byName.get(m.name);
    if (e === undefined) {
      e = { metric: m, values: new Map() };
      byName.set(m.name, e);
    }
    for (const v of m.values) {
      const k = `${m.name} ${(v as { metricName?: string }).metricName ?? ''} ${labelKey(v.labels)}`;
      e.values.set(k, (e.values.get(k) ?? 0) + v.value);
      if (!samples.has(k)) samples.set(k, v);
    }
  }
  return [...byName.values()].map(({ metric, values }) => ({
    ...metric,
    values: [...values].map(([k, value]) => ({
      ...(samples.get(k) as MetricValue<string>),
      value,
    })),
  }));
}

function labelKey(labels: object): string {
  return JSON.stringify(Object.entries(labels).sort(([x], [y]) => (x < y ? -1 : 1)));
}

function sumIssued(a: Issued, b: Issued | null): Issued {
  const out = { ...a };
  for (const [k, v] of Object.entries(b ?? {})) out[k] = (out[k] ?? 0) + v;
  return out;
}

/** The primary's record of its processes' counts. Holds state; one per node. */
export class CarryOver {
  /** By process index: what the process now running there last reported. */
  readonly #last = new Map<number, Last>();
  #deadMetrics: MetricsPart = [];
  #deadIssued: Issued = {};

  /** Records the answers of a gather of `kind`; what they lack, for the route to add. */
  gathered(kind: GatherKind, answers: readonly ProcessAnswer[]): unknown {
    if (kind === 'readiness') return null;
    let metrics = this.#deadMetrics;
    let issued = this.#deadIssued;
    for (const a of answers) {
      const last = this.#last.get(a.index) ?? { metrics: null, issued: null };
      this.#last.set(a.index, last);
      if (a.missing || a.value === null) {
        if (last.metrics !== null) metrics = sumParts(metrics, last.metrics);
        issued = sumIssued(issued, last.issued);
      } else if (kind === 'metrics') last.metrics = counters(a.value as MetricsPart);
      else last.issued = (a.value as { issued?: Issued }).issued ?? null;
    }
    return kind === 'metrics' ? metrics : issued;
  }

  /** The process at `index` is gone: its last counts are carried over from now on. */
  died(index: number): void {
    const last = this.#last.get(index);
    this.#last.delete(index);
    if (last === undefined) return;
    if (last.metrics !== null) this.#deadMetrics = sumParts(this.#deadMetrics, last.metrics);
    this.#deadIssued = sumIssued(this.#deadIssued, last.issued);
  }
}
