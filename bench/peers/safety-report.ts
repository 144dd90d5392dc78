/**
 * Section 2 as the main thread sees it: runs each task in a fresh isolate, one after the
 * other (never two at once: they would compete for the CPU), and turns the results into tables.
 */
import { duplicateContenders, rollbackCases } from './contenders.js';
import type { BenchOptions } from './env.js';
import { progress } from './env.js';
import { isolated } from './isolate.js';
import { count, percent, table, verdict } from './report.js';
import { STALL_MS } from './safety.js';

/** A section's Markdown table and one headline number per generator. */
export interface SectionResult {
  readonly text: string;
  /** 2a: duplicates; 2b: reissued IDs; by generator name or case label. */
  readonly byName: ReadonlyMap<string, number>;
}

/** 2a: duplicates from one generator in a tight loop, for every contender. */
export async function duplicateSection(options: BenchOptions): Promise<SectionResult> {
  const { warmUpMs } = options;
  const rows: string[][] = [];
  const byName = new Map<string, number>();
  for (const { name } of duplicateContenders()) {
    progress(`2a duplicates: ${name}, ${options.duplicateLoopMs} ms tight loop`);
    const r = await isolated({ kind: 'duplicates', name, ms: options.duplicateLoopMs, warmUpMs });
    byName.set(name, r.duplicates);
    rows.push([
      name,
      count(r.generated),
      count(r.generated / r.elapsedMs),
      count(r.duplicates),
      r.generated === 0 ? '—' : percent(r.duplicates / r.generated, 2),
      count(r.notIncreasing),
      count(r.errors),
      r.firstError ?? '',
    ]);
  }
  const headers = ['generator', 'IDs', 'IDs/ms', 'duplicates', 'dup %', 'not increasing'];
  const text = table([...headers, 'errors', 'first error'], rows);
  return { text, byName };
}

/**
 * 2b: generate for a while, step the wall clock back, generate again; count IDs of the second
 * phase equal to an ID of the first.
 */
export async function rollbackSection(options: BenchOptions): Promise<SectionResult> {
  const { rollbackBeforeMs: beforeMs, rollbackStepMs: stepMs, rollbackAfterMs: afterMs } = options;
  const { warmUpMs } = options;
  const rows: string[][] = [];
  const byName = new Map<string, number>();
  for (const { contender, label } of rollbackCases()) {
    progress(`2b rollback: ${label}, ${beforeMs} ms, step back ${stepMs} ms, ${afterMs} ms`);
    const r = await isolated({ kind: 'rollback', label, beforeMs, stepMs, afterMs, warmUpMs });
    byName.set(label, r.reissued);
    rows.push([
      label,
      contender.timeSource,
      count(r.before),
      count(r.after),
      count(r.reissued),
      count(r.duplicatesAfter),
      count(r.errors),
      r.gapMs.toFixed(0),
      r.detail,
    ]);
  }
  const headers = ['generator', 'time source stepped back', 'IDs before', 'IDs after'];
  const text = table(
    [...headers, 'reissued', 'dups within after', 'errors', 'pause ms', 'first error / clock'],
    rows,
  );
  return { text, byName };
}

/** The 2c figures, for the goals. */
export interface ThroughputSection {
  readonly text: string;
  readonly fractionOfCap: number;
  readonly strictlyIncreasing: boolean;
}

/** 2c: sustained IDs per millisecond against the cap, and strict increase, in a tight loop. */
export async function throughputSection(
  options: BenchOptions,
  goal: number,
): Promise<ThroughputSection> {
  progress(`2c throughput: idforge 'default', ${options.throughputLoopMs} ms tight loop`);
  const r = await isolated({
    kind: 'throughput',
    ms: options.throughputLoopMs,
    warmUpMs: options.warmUpMs,
  });
  const perMs = r.generated / r.elapsedMs;
  const fractionOfCap = perMs / r.capPerMs;
  const outsideStalls = r.generated / (r.elapsedMs - r.stalledMs) / r.capPerMs;
  const row = [
    r.name,
    count(r.generated),
    count(perMs),
    count(r.capPerMs),
    percent(fractionOfCap),
    `≥ ${percent(goal, 0)}: ${verdict(fractionOfCap >= goal)}`,
    r.notIncreasing === 0 ? 'yes' : `NO (${count(r.notIncreasing)})`,
    count(r.exhaustionWaits),
    `${count(r.stalls)} (${count(r.stalledMs)} ms)`,
    percent(outsideStalls),
  ];
  const headers = ['generator', 'IDs', 'IDs/ms', 'cap/ms', '% of cap', 'goal'];
  const text = table(
    [
      ...headers,
      'strictly increasing',
      'exhaustionWaits',
      `stalls > ${STALL_MS} ms`,
      '% of cap outside stalls',
    ],
    [row],
  );
  return { text, fractionOfCap, strictlyIncreasing: r.notIncreasing === 0 };
}
