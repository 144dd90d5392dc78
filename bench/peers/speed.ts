/**
 * Section 1: time per ID, measured with mitata. Every result is passed through
 * `do_not_optimize` so V8 cannot drop the call as dead code.
 *
 * Full mode registers one mitata group per scheme and prints mitata's own report; quick mode
 * calls mitata's `measure` with a short CPU-time budget and prints one line per case.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BenchOptions } from './env.js';
import { progress } from './env.js';
import { median, ns } from './numbers.js';

/** One summary row: an idforge case against the fastest of some peer cases. */
export interface Comparison {
  readonly scheme: string;
  /** Name of idforge's case. */
  readonly idforge: string;
  /** Names of the peer cases; the fastest is reported. */
  readonly peers: readonly string[];
  /** The goal: `reference` (a case name, or the fastest peer) time / idforge time ≥ `minRatio`. */
  readonly goal?: { readonly reference?: string; readonly minRatio: number };
  readonly note?: string;
}

/**
 * mitata collects garbage before each benchmark only when `gc` is a global at the time it is
 * loaded, so expose it (as `--expose-gc` would) and only then import mitata: otherwise each
 * benchmark pays for the garbage its predecessors left.
 */
function exposeGc(): void {
  if (typeof globalThis.gc === 'function') return;
  setFlagsFromString('--expose-gc');
  globalThis.gc = runInNewContext('gc') as typeof globalThis.gc;
}
exposeGc();
const { bench, do_not_optimize, group, measure, run, summary } = await import('mitata');

/** One generator call to time. */
export interface SpeedCase {
  /** Unique across all groups: results are looked up by it. */
  readonly name: string;
  readonly fn: () => unknown;
}

/** The cases of one scheme, idforge's first. */
export interface SpeedGroup {
  readonly title: string;
  readonly cases: readonly SpeedCase[];
}

/** Average nanoseconds per call of every round, by case name, in registration order. */
export type SpeedResults = ReadonlyMap<string, readonly number[]>;

/** The median of each case's rounds: what the summary compares. */
export function medians(results: SpeedResults): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, rounds] of results) out.set(name, median(rounds));
  return out;
}

function assertUniqueNames(groups: readonly SpeedGroup[]): void {
  const seen = new Set<string>();
  for (const c of groups.flatMap((g) => g.cases)) {
    if (seen.has(c.name)) throw new Error(`bench case name used twice: ${c.name}`);
    seen.add(c.name);
  }
}

/** Checks every case once before timing: a throwing generator fails the run loudly. */
function smokeTest(groups: readonly SpeedGroup[]): void {
  for (const c of groups.flatMap((g) => g.cases)) {
    const value = c.fn();
    if (value === undefined || value === null) {
      throw new Error(`bench case ${c.name} returned ${String(value)}`);
    }
  }
}

/**
 * Times every case, `options.speedRounds` times over (rounds interleave the cases, so a burst
 * of other load on the machine hits one round of each, not every round of one case).
 */
export async function measureSpeed(
  groups: readonly SpeedGroup[],
  options: BenchOptions,
): Promise<SpeedResults> {
  assertUniqueNames(groups);
  smokeTest(groups);
  const cases = groups.flatMap((g) => g.cases);
  const results = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let round = 1; round <= options.speedRounds; round++) {
    const averages = options.quick
      ? await measureQuick(cases, options)
      : await measureWithMitata(groups, cases, round, options.speedRounds);
    for (const [name, avg] of averages) results.get(name)?.push(avg);
  }
  return results;
}

/** One round through mitata; the first prints mitata's report, the others only progress. */
async function measureWithMitata(
  groups: readonly SpeedGroup[],
  cases: readonly SpeedCase[],
  round: number,
  rounds: number,
): Promise<Map<string, number>> {
  const what = round === 1 ? "mitata's report follows" : "mitata's report not repeated";
  progress(`speed round ${round}/${rounds}: ${cases.length} benchmarks, ~1 s each (${what})`);
  for (const g of groups) {
    group(g.title, () => {
      summary(() => {
        for (const c of g.cases) {
          const f = c.fn;
          bench(c.name, () => do_not_optimize(f()));
        }
      });
    });
  }
  const { benchmarks } = await run({ throw: true, format: round === 1 ? 'mitata' : 'quiet' });
  if (benchmarks.length !== cases.length) {
    throw new Error(`mitata returned ${benchmarks.length} results for ${cases.length} benchmarks`);
  }
  const results = new Map<string, number>();
  benchmarks.forEach((trial, i) => {
    const name = cases[i]?.name;
    const stats = trial.runs[0]?.stats;
    if (trial.alias !== name || stats === undefined) {
      throw new Error(`mitata result ${i} is ${trial.alias}, expected ${String(name)}`);
    }
    results.set(name, stats.avg);
  });
  return results;
}

async function measureQuick(
  cases: readonly SpeedCase[],
  options: BenchOptions,
): Promise<Map<string, number>> {
  const results = new Map<string, number>();
  for (const c of cases) {
    const f = c.fn;
    const stats = await measure(() => do_not_optimize(f()), {
      min_cpu_time: options.quickCpuTimeNs,
    });
    results.set(c.name, stats.avg);
    progress(`speed (quick): ${c.name.padEnd(44)} ${ns(stats.avg).padStart(7)} ns/op`);
  }
  return results;
}
