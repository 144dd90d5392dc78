/**
 * `idforge bench db`: what a key scheme costs on the user's own database. Opens the engine the
 * URL names, runs idforge/bench's `runDbBench` with progress on standard error, writes the
 * report (report.json, report.md, SVG charts) and prints a summary table.
 */

import { checkPortUrl, openBenchEngine } from '@idforge/stores';
import {
  type BenchEngine,
  type BenchProgress,
  BenchReportWriteError,
  checkReportDir,
  type DbBenchReport,
  defaultSchemes,
  MAX_BENCH_BATCH,
  MAX_BENCH_ROWS,
  parseSchemes,
  runDbBench,
  writeReport,
} from 'idforge/bench';
import {
  type CliIo,
  type Command,
  formatTable,
  integer,
  type Options,
  type OptionValues,
  UsageError,
  VERSION,
} from 'idforge/cli';
import { int, ProgressPrinter, rateText } from '../progress.js';

export const benchHelp = `Usage: idforge bench db --store URL --rows N [--schemes LIST] [--batch N] [--out DIR]
                        [--keep] [--force] [--json]

Measures what a primary-key scheme costs on your own database: one table per scheme (key, a
timestamp, an int, a short payload, a secondary index on the timestamp), loaded in key
generation order in multi-row INSERTs of --batch rows, one transaction each. Reports per scheme
the load time and the insert rate of each tenth of the load, table and index sizes, leaf
density, WAL bytes and full-page images (PostgreSQL), page splits and redo bytes (InnoDB),
compaction bytes (LevelDB), and order inversions; the server's settings; and whether the
indexes fitted the cache. Writes report.json, report.md, rate-by-tenth.svg and sizes.svg.

Stores:
  sqlite:PATH                       a file (created if missing)
  postgres://user@host:port/db      tables in the schema idforge_bench
  mysql://user@host:port/db         MariaDB or MySQL (InnoDB)
  leveldb:DIR                       LevelDB (classic-level), one database per scheme in DIR

Options:
  --store URL      the database to load (required); use one made for the bench
  --rows N         rows per scheme, 1 to ${MAX_BENCH_ROWS.toLocaleString('en-US')} (required)
  --schemes LIST   comma-separated, or "all": bigint, sequence, snowflake, uuidv7, ulid, uuidv4,
                   uuidv4-text, uuidv7-text, uuidv1-swap (default: those that apply to the
                   engine; uuidv1-swap is MySQL's UUID_TO_BIN(u, 1) order, on MySQL/MariaDB)
  --batch N        rows per INSERT and transaction, 1 to ${MAX_BENCH_BATCH.toLocaleString('en-US')} (default 1000)
  --out DIR        where the report goes (default ./idforge-bench-report); replaced whole;
                   checked before the run (a report that cannot be written is printed)
  --keep           keep the tables after measuring (default: each is dropped)
  --force          run although the database holds tables the bench did not create
  --json           print report.json instead of the summary table

Ctrl-C stops between two batches, drops the bench's tables and writes no report (exit 130).

Examples:
  idforge bench db --store sqlite:bench.db --rows 100000
  idforge bench db --store postgres://postgres@127.0.0.1/bench --rows 1000000 --out pg-1m
  idforge bench db --store mysql://root@127.0.0.1/bench --rows 1000000 --schemes bigint,uuidv4,uuidv7,uuidv1-swap
`;

const DEFAULT_OUT = 'idforge-bench-report';

const benchOptions = {
  store: { type: 'string' },
  rows: { type: 'string' },
  schemes: { type: 'string' },
  batch: { type: 'string' },
  out: { type: 'string' },
  keep: { type: 'boolean' },
  force: { type: 'boolean' },
  json: { type: 'boolean' },
} as const satisfies Options;

export type BenchValues = OptionValues<typeof benchOptions>;

/** `idforge bench db`. */
export const benchCli: Command<typeof benchOptions> = {
  summary: ['bench db', 'measure what each key scheme costs on your database (--store, --rows)'],
  help: benchHelp,
  options: benchOptions,
  run: benchCommand,
};

/** `idforge bench <sub>`: only `db` for now. */
export async function benchCommand(
  positionals: readonly string[],
  values: BenchValues,
  io: CliIo,
): Promise<number> {
  const { url, out, ...settings } = benchSettings(positionals, values);
  await checkOut(out);
  const controller = new AbortController();
  const unsubscribe = io.onSignal?.((signal) => {
    io.stderr.write(`\nidforge bench db: ${signal}: stopping after this batch…\n`);
    controller.abort(new Error(signal));
  });
  const progress = new ProgressPrinter(io);
  const engine = await openBenchEngine(url);
  let report: DbBenchReport;
  try {
    report = await runDbBench(engine, {
      ...settings,
      keep: values.keep === true,
      force: values.force === true,
      signal: controller.signal,
      onProgress: (p) => showProgress(progress, p),
      idforgeVersion: VERSION,
    });
  } catch (error) {
    progress.end();
    if (controller.signal.aborted) {
      io.stderr.write(
        'idforge bench db: interrupted; the bench dropped its tables and wrote no report.\n',
      );
      return 130;
    }
    throw error;
  } finally {
    unsubscribe?.();
    await engine.close();
  }
  progress.end();
  return printReport(report, out, values.json === true, io);
}

/**
 * `--out` takes writes, checked before the database is opened: the report is written only
 * once every scheme is measured, which can take an hour.
 */
async function checkOut(out: string): Promise<void> {
  try {
    await checkReportDir(out);
  } catch (error) {
    if (!(error instanceof BenchReportWriteError)) throw error;
    throw new UsageError(
      `--out ${out}: cannot write the report there (${error.reason}): pick a folder you can write to`,
    );
  }
}

/**
 * Writes the report and prints the summary (or report.json with --json). A report that cannot
 * be written after all (the folder became read-only, the disk filled) is printed as JSON on
 * standard output rather than lost: exit 1 with the cause.
 */
async function printReport(report: DbBenchReport, out: string, json: boolean, io: CliIo) {
  let written: string[];
  try {
    written = await writeReport(out, report);
  } catch (error) {
    if (!(error instanceof BenchReportWriteError)) throw error;
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    io.stderr.write(
      `idforge bench db: could not write the report to ${out} (${error.reason}); the report ` +
        'is printed on standard output as JSON: save it (> report.json) and rerun with an ' +
        `--out you can write to for the Markdown and charts [${error.code}]\n`,
    );
    return 1;
  }
  io.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : summary(report, written));
  return 0;
}

/** `bench db`'s arguments, checked before the database is opened; a mistake is a UsageError. */
function benchSettings(positionals: readonly string[], values: BenchValues) {
  const [sub, ...extra] = positionals;
  if (sub !== 'db') {
    throw new UsageError(
      sub === undefined ? 'expected a subcommand: db' : `unknown subcommand "${sub}" (expected db)`,
    );
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (typeof values.store !== 'string') throw new UsageError('--store: expected a database URL');
  if (typeof values.rows !== 'string') throw new UsageError('--rows: expected a number of rows');
  const url = values.store;
  const rows = integer('--rows', values.rows, 1, MAX_BENCH_ROWS);
  const batch =
    typeof values.batch === 'string' ? integer('--batch', values.batch, 1, MAX_BENCH_BATCH) : 1000;
  const engineName = engineOf(url);
  const schemes =
    typeof values.schemes === 'string'
      ? usage(() => parseSchemes(values.schemes as string, engineName))
      : defaultSchemes(engineName);
  const out = typeof values.out === 'string' ? values.out : DEFAULT_OUT;
  return { url, rows, batch, schemes, out };
}

/** The engine (its SQL dialect) of a URL whose backend opens a bench engine (the registry's). */
function engineOf(url: string): BenchEngine['engine'] {
  return usage(() => checkPortUrl('bench', url)) as BenchEngine['engine'];
}

function usage<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(error.message);
    throw error;
  }
}

const mb = (b: number | null) => (b === null ? '–' : (b / 1048576).toFixed(1));

/** The table printed at the end: one line per scheme, rates and sizes. */
function summary(report: DbBenchReport, written: readonly string[]): string {
  const base = report.schemes.find((s) => s.scheme === 'bigint') ?? report.schemes[0]!;
  const table = formatTable(
    [
      'scheme',
      'storage',
      'rows/s',
      `vs ${base.scheme}`,
      'table MB',
      'pk MB',
      'ts idx MB',
      'inversions',
    ],
    report.schemes.map((s) => [
      s.scheme,
      s.storage,
      int(s.rowsPerSecond),
      base.rowsPerSecond > 0 ? `${(s.rowsPerSecond / base.rowsPerSecond).toFixed(2)}×` : '–',
      mb(s.tableBytes),
      mb(s.primaryIndexBytes),
      mb(s.secondaryIndexBytes),
      int(s.orderInversions),
    ]),
  );
  return `${report.server}, ${int(report.rows)} rows per scheme\n${report.regime}\n\n${table}\n\nReport: ${written.join(', ')}\n`;
}

/** `bench db`'s progress: rows loaded per scheme, then its measuring phase. */
function showProgress(printer: ProgressPrinter, p: BenchProgress): void {
  const head = `${p.scheme} (${p.index}/${p.of})`;
  if (p.phase === 'measure') {
    printer.line(
      `${head}: loaded ${int(p.total)} rows in ${(p.elapsedMs / 1000).toFixed(1)} s; measuring…`,
    );
    return;
  }
  if (p.phase === 'done') return;
  const text = `${head}: ${int(p.rows)}/${int(p.total)} rows, ${rateText(p.rows, p.total, p.elapsedMs)}`;
  printer.step(p.rows, p.total, text);
}
