/**
 * `idforge/bench`: what `idforge bench db` runs, as a library. `runDbBench(engine, options)`
 * loads one table per key scheme into a database and measures each; `writeReport(dir, report)`
 * writes report.json, report.md and the SVG charts. Engines are opened from a URL by
 * `openBenchEngine` in `@idforge/stores` (the only place drivers are loaded).
 */

export {
  ADVICE_DEFAULTS,
  type Advice,
  type Answers,
  adviceBench,
  advise,
} from './advise.js';
export { rateChartSvg, sizeChartSvg } from './charts.js';
export { BenchReportWriteError, BenchTargetInUseError } from './errors.js';
export { compareKeys, InversionCounter } from './order.js';
export type {
  BenchBatch,
  BenchEngine,
  BenchSequence,
  EngineCounters,
  EngineSettings,
  KeyKind,
  TableMeasures,
} from './ports.js';
export {
  BENCH_SCHEMES,
  type BenchScheme,
  type DbBenchReport,
  type SchemeResult,
} from './report.js';
export { renderReportMarkdown } from './report-md.js';
export {
  type BenchProgress,
  benchTable,
  type DbBenchOptions,
  MAX_BENCH_BATCH,
  MAX_BENCH_ROWS,
  runDbBench,
} from './runner.js';
export { defaultSchemes, parseSchemes, schemeKind } from './schemes.js';
export { checkReportDir, writeReport } from './write-report.js';
