/**
 * `idforge bench db` as a function: loads one table per key scheme through a {@link BenchEngine},
 * measures each, drops it (unless kept) and returns the report. Writing the report and drawing
 * progress are the caller's (see write-report.ts and the CLI).
 */
import { assertInteger } from '../core/internal.js';
import { BenchTargetInUseError } from './errors.js';
import { countedFigures, ratesByTenth, regimeLine } from './figures.js';
import { InversionCounter } from './order.js';
import type { BenchEngine, EngineCounters, KeyKind, TableMeasures } from './ports.js';
import type { BenchScheme, DbBenchReport, SchemeResult } from './report.js';
import { openKeySource, schemeKind } from './schemes.js';

/** Largest --rows: a run of 100 M rows per scheme is hours on a laptop-class server. */
export const MAX_BENCH_ROWS = 100_000_000;
/** Largest --batch: 4 columns × 10 000 rows stays under the 65 535 bind parameters of a statement. */
export const MAX_BENCH_BATCH = 10_000;

/** Where a run is, after each batch and at each phase. */
export interface BenchProgress {
  readonly scheme: BenchScheme;
  /** 1-based position of the scheme in the run, and the number of schemes. */
  readonly index: number;
  readonly of: number;
  readonly phase: 'load' | 'measure' | 'done';
  /** Rows of this scheme loaded so far, and to load. */
  readonly rows: number;
  readonly total: number;
  /** Milliseconds since this scheme's load began. */
  readonly elapsedMs: number;
}

/** Options of {@link runDbBench}. */
export interface DbBenchOptions {
  /** Rows per scheme, 1..MAX_BENCH_ROWS. */
  readonly rows: number;
  /** Schemes in run order (see schemes.ts `defaultSchemes`). */
  readonly schemes: readonly BenchScheme[];
  /** Rows per INSERT (and per transaction), 1..MAX_BENCH_BATCH. Default 1000. */
  readonly batch?: number;
  /** Keep each table after measuring it instead of dropping it. Default false. */
  readonly keep?: boolean;
  /** Run although the target holds tables the bench did not create. Default false. */
  readonly force?: boolean;
  /** Stops the run between two batches: its tables are dropped and it rejects with the reason. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: BenchProgress) => void;
  /** Milliseconds of a monotonic clock. Default performance.now. */
  readonly now?: () => number;
  /** Written into the report. */
  readonly idforgeVersion?: string;
  /**
   * Load a few batches into a scratch table first, unmeasured, so the first scheme does not pay
   * for the process warming up (compiled code, the connection's caches). Default true.
   */
  readonly warmup?: boolean;
}

/** The name of a scheme's table: idforge_bench_ and the scheme with `_` for `-`. */
export function benchTable(scheme: BenchScheme): string {
  return `idforge_bench_${scheme.replace(/-/g, '_')}`;
}

/**
 * Runs the bench. Throws `RangeError` for rows, batch or schemes out of range; rejects with
 * {@link BenchTargetInUseError} when the target holds tables of others and `force` is not set,
 * with the signal's reason when aborted (after dropping what it created), and with the
 * engine's error (a `StoreUnavailableError`...) when the database fails. Does not close the engine.
 */
export async function runDbBench(
  engine: BenchEngine,
  options: DbBenchOptions,
): Promise<DbBenchReport> {
  const rows = assertInteger('rows', options.rows, 1, MAX_BENCH_ROWS);
  const batch = assertInteger('batch', options.batch ?? 1000, 1, MAX_BENCH_BATCH);
  if (options.schemes.length === 0) throw new RangeError('schemes: expected at least one scheme');
  const now = options.now ?? (() => performance.now());
  const startedAt = new Date().toISOString();
  const foreign = await engine.foreignObjects();
  if (foreign.length > 0 && options.force !== true) {
    throw new BenchTargetInUseError(engine.engine, engine.address, foreign);
  }
  const settings = await engine.settings();
  if (options.warmup !== false) await warmUp(engine, Math.min(rows, 5 * batch), batch);
  const results: SchemeResult[] = [];
  for (const [i, scheme] of options.schemes.entries()) {
    options.signal?.throwIfAborted();
    const run = { scheme, index: i + 1, of: options.schemes.length, rows, batch, now };
    results.push(await runScheme(engine, run, options));
  }
  return {
    format: 'idforge.bench-db/1',
    idforgeVersion: options.idforgeVersion ?? 'unknown',
    startedAt,
    finishedAt: new Date().toISOString(),
    engine: engine.engine,
    address: engine.address,
    server: settings.server,
    settings: settings.values,
    cacheBytes: settings.cacheBytes,
    regime: regimeLine(results, settings, engine.engine),
    rows,
    batch,
    schemes: results,
  };
}

interface SchemeRun {
  readonly scheme: BenchScheme;
  readonly index: number;
  readonly of: number;
  readonly rows: number;
  readonly batch: number;
  readonly now: () => number;
}

/** Reports where a scheme's run is: a phase, rows done, ms since its load began. */
type Progress = (phase: BenchProgress['phase'], done: number, elapsedMs: number) => void;

/**
 * One scheme: creates its table, loads and measures it, and drops it unless `keep` (a failed
 * or interrupted run is always dropped).
 */
async function runScheme(
  engine: BenchEngine,
  run: SchemeRun,
  options: DbBenchOptions,
): Promise<SchemeResult> {
  const kind = schemeKind(run.scheme);
  const table = benchTable(run.scheme);
  const progress: Progress = (phase, done, elapsedMs) =>
    options.onProgress?.({ ...run, phase, rows: done, total: run.rows, elapsedMs });
  let keep = options.keep === true;
  await engine.createTable(table, kind);
  try {
    const load = await loadTable(engine, run, { table, kind, signal: options.signal, progress });
    progress('measure', run.rows, load.ms);
    await engine.settle(table);
    const after = await engine.counters(table);
    const measures = await engine.measure(table, kind);
    const result = schemeResult(engine, run, table, load, measures, after);
    progress('done', run.rows, load.ms);
    return result;
  } catch (error) {
    keep = false; // a failed or interrupted load is never left behind
    throw error;
  } finally {
    if (!keep) await engine.dropTable(table);
  }
}

/** Where a load goes and what it reports to. */
interface LoadTarget {
  readonly table: string;
  readonly kind: KeyKind;
  readonly signal: AbortSignal | undefined;
  readonly progress: Progress;
}

/** What a load measured: the counters before it, (rows, ms) after each batch, its time. */
interface Load {
  readonly before: EngineCounters;
  readonly marks: readonly (readonly [number, number])[];
  readonly ms: number;
  readonly inversions: number;
}

/** Loads the scheme's `run.rows` keys into the table, batch by batch, timing each batch. */
async function loadTable(engine: BenchEngine, run: SchemeRun, to: LoadTarget): Promise<Load> {
  const deps = engine.openSequence ? { openSequence: engine.openSequence.bind(engine) } : {};
  const keys = await openKeySource(run.scheme, deps);
  const inversions = new InversionCounter();
  const before = await engine.counters(to.table);
  const marks: [number, number][] = [[0, 0]];
  const start = run.now();
  try {
    for (let done = 0; done < run.rows; ) {
      to.signal?.throwIfAborted();
      const size = Math.min(run.batch, run.rows - done);
      const batchKeys = await keys.next(size);
      if (batchKeys !== null) inversions.addAll(batchKeys);
      await engine.insert(to.table, to.kind, rowsOf(batchKeys, done, size));
      done += size;
      const elapsed = run.now() - start;
      marks.push([done, elapsed]);
      to.progress('load', done, elapsed);
    }
  } finally {
    await keys.close();
  }
  return { before, marks, ms: run.now() - start, inversions: inversions.count };
}

/** The figures of a scheme's table once loaded, settled and measured. */
function schemeResult(
  engine: BenchEngine,
  run: SchemeRun,
  table: string,
  load: Load,
  measures: TableMeasures,
  after: EngineCounters,
): SchemeResult {
  const { scheme, rows } = run;
  const kind = schemeKind(scheme);
  return {
    scheme,
    storage:
      scheme === 'uuidv1-swap'
        ? `${engine.storage(kind)}, UUIDv1 in UUID_TO_BIN(u, 1) order (swapped client-side)`
        : engine.storage(kind),
    table,
    rows,
    loadSeconds: load.ms / 1000,
    rowsPerSecond: load.ms > 0 ? rows / (load.ms / 1000) : 0,
    rowsPerSecondByTenth: ratesByTenth(load.marks, rows),
    tableBytes: measures.tableBytes,
    primaryIndexBytes: measures.primaryIndexBytes,
    secondaryIndexBytes: measures.secondaryIndexBytes,
    primaryLeafDensity: measures.primaryLeafDensity,
    primaryLeafFragmentation: measures.primaryLeafFragmentation,
    primaryLeafPages: measures.primaryLeafPages,
    ...countedFigures(load.before, after),
    filesPerLevel: measures.filesPerLevel ?? null,
    orderInversions: load.inversions,
  };
}

/** An unmeasured load of `rows` random UUIDs into idforge_bench_warmup, dropped at once. */
async function warmUp(engine: BenchEngine, rows: number, batch: number): Promise<void> {
  const table = `${benchTable('uuidv4')}_warmup`;
  const keys = await openKeySource('uuidv4');
  await engine.createTable(table, 'bytes16');
  try {
    for (let done = 0; done < rows; done += batch) {
      const size = Math.min(batch, rows - done);
      await engine.insert(table, 'bytes16', rowsOf(await keys.next(size), done, size));
    }
  } finally {
    await engine.dropTable(table);
  }
}

/** The rows of one batch: `n` counts rows from 1, the payload is 24 characters of it. */
function rowsOf(
  keys: (bigint | Uint8Array | string)[] | null,
  first: number,
  size: number,
): Parameters<BenchEngine['insert']>[2] {
  const at: number[] = new Array(size);
  const n: number[] = new Array(size);
  const payload: string[] = new Array(size);
  const ms = Date.now();
  for (let i = 0; i < size; i++) {
    const row = first + i + 1;
    at[i] = ms;
    n[i] = row;
    payload[i] = `payload-${row.toString(36).padStart(16, '0')}`;
  }
  return { keys, at, n, payload };
}
