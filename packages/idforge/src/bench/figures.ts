/**
 * The figures of `idforge bench db` derived from what a run measured: the counters' change
 * over a load, the insert rate by tenth, and the line on the cache regime. Pure functions.
 */

import { ENGINES } from '../core/internal.js';
import type { BenchEngine, EngineCounters, EngineSettings } from './ports.js';
import type { BenchScheme, SchemeResult } from './report.js';

/** The figures an engine counts over the load (after minus before); null without a counter. */
export function countedFigures(before: EngineCounters, after: EngineCounters) {
  const diff = (name: string) => counterDiff(before, after, name);
  const bytesIngested = diff('bytesIngested');
  const compactionBytesWritten = diff('compactionBytesWritten');
  return {
    walBytes: diff('walBytes'),
    fullPageImages: diff('fullPageImages'),
    redoBytes: diff('redoBytes'),
    pageSplits: diff('pageSplits'),
    pageMerges: diff('pageMerges'),
    pagesRead: diff('pagesRead'),
    pagesWritten: diff('pagesWritten'),
    bytesIngested,
    compactionBytesWritten,
    writeAmplification:
      bytesIngested !== null && compactionBytesWritten !== null && bytesIngested > 0
        ? compactionBytesWritten / bytesIngested
        : null,
  };
}

function counterDiff(before: EngineCounters, after: EngineCounters, name: string): number | null {
  const a = before[name];
  const b = after[name];
  return a === undefined || b === undefined ? null : b - a;
}

/**
 * Insert rate over each tenth of the load from (rows done, ms elapsed) after each batch: the
 * tenth ends at the first batch reaching it, so a batch spanning several tenths yields one value.
 */
export function ratesByTenth(
  marks: readonly (readonly [number, number])[],
  rows: number,
): number[] {
  const out: number[] = [];
  let prev = marks[0]!;
  for (let k = 1; k <= 10; k++) {
    const target = Math.ceil((rows * k) / 10);
    const mark = marks.find(([done]) => done >= target);
    if (mark === undefined || mark[0] <= prev[0]) continue;
    const ms = mark[1] - prev[1];
    out.push(ms > 0 ? ((mark[0] - prev[0]) * 1000) / ms : 0);
    prev = mark;
  }
  return out;
}

/** One line saying whether the largest primary index fitted the engine's cache. */
export function regimeLine(
  results: readonly SchemeResult[],
  settings: EngineSettings,
  engine: BenchEngine['engine'] = 'postgres',
): string {
  const sized = results
    .map((r) => ({ scheme: r.scheme, bytes: r.primaryIndexBytes ?? r.tableBytes }))
    .filter((r): r is { scheme: BenchScheme; bytes: number } => r.bytes !== null);
  if (settings.cacheBytes === null || sized.length === 0) {
    return 'Regime unknown: the engine gave no cache size or no index size.';
  }
  const top = sized.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;
  const ratio = top.bytes / settings.cacheBytes;
  if (ENGINES[engine].bench.store === 'lsm') {
    return `The largest table (${top.scheme}, ${mb(top.bytes)}) is ${ratio.toFixed(2)}× the ${settings.cacheName} (${mb(settings.cacheBytes)}), which serves reads only: an LSM tree writes to its memtable and compacts, so random keys cost compaction (write amplification), not cache misses.`;
  }
  const what = `The largest primary index (${top.scheme}, ${mb(top.bytes)}) is ${ratio.toFixed(2)}× ${settings.cacheName} (${mb(settings.cacheBytes)})`;
  return ratio <= 1
    ? `${what}: it fits, so this run measures the in-memory regime (random keys cost page splits and size, little disk I/O).`
    : `${what}: it does not fit, so this run measures the cache-bound regime (random keys read and write index pages from disk).`;
}
