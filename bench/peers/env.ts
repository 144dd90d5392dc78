/**
 * Run options, machine description and progress output of the peer benchmark.
 *
 * Progress goes to stderr so `npm run bench > result.txt` keeps only the results.
 */
import { availableParallelism, cpus, loadavg, platform, release, totalmem } from 'node:os';

/** Durations of every step, in milliseconds; `--quick` shortens them for smoke tests. */
export interface BenchOptions {
  readonly quick: boolean;
  /** Rounds of section 1; the summary takes each case's median. */
  readonly speedRounds: number;
  /** Per-benchmark CPU time in quick mode (mitata's own default is used otherwise). */
  readonly quickCpuTimeNs: number;
  /** Each section-2 task first runs another instance of its generator this long. */
  readonly warmUpMs: number;
  /** Tight loop of the duplicate test (2a). */
  readonly duplicateLoopMs: number;
  /** Rollback test (2b): generate, step the wall clock back, generate again. */
  readonly rollbackBeforeMs: number;
  readonly rollbackStepMs: number;
  readonly rollbackAfterMs: number;
  /** Throughput loop of idforge's Snowflake generator (2c). */
  readonly throughputLoopMs: number;
}

export function readOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions {
  const unknown = argv.filter((a) => a !== '--quick');
  if (unknown.length > 0) {
    throw new RangeError(`expected no argument or --quick, got ${unknown.join(' ')}`);
  }
  const quick = argv.includes('--quick') || env.BENCH_QUICK === '1';
  return {
    quick,
    speedRounds: quick ? 1 : 3,
    quickCpuTimeNs: 30e6,
    warmUpMs: quick ? 50 : 300,
    duplicateLoopMs: quick ? 200 : 2000,
    rollbackBeforeMs: 50,
    rollbackStepMs: 30,
    rollbackAfterMs: 60,
    throughputLoopMs: quick ? 300 : 2000,
  };
}

/** Lines describing the machine and the run, printed first. */
export function machineLines(options: BenchOptions): string[] {
  const cpu = cpus()[0];
  const gib = (totalmem() / 2 ** 30).toFixed(1);
  return [
    `date:    ${new Date().toISOString()}`,
    `cpu:     ${cpu?.model.trim() ?? 'unknown'} (${availableParallelism()} cores available)`,
    `memory:  ${gib} GiB`,
    `runtime: Node.js ${process.version} (V8 ${process.versions.v8}), ${platform()} ${release()} ${process.arch}`,
    `load:    ${loadAverage()} (1, 5, 15 min; other work on the machine skews every figure)`,
    `mode:    ${options.quick ? 'QUICK (smoke test; figures are not meaningful)' : 'full'}`,
  ];
}

/** The system load averages, e.g. `0.12 0.30 0.25`. */
export function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

const started = performance.now();

/** One progress line on stderr, stamped with the seconds since the start. */
export function progress(message: string): void {
  const s = ((performance.now() - started) / 1000).toFixed(1).padStart(5);
  process.stderr.write(`[${s}s] ${message}\n`);
}

/** Seconds elapsed since the benchmark started. */
export function elapsedSeconds(): number {
  return (performance.now() - started) / 1000;
}
