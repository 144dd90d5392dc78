/**
 * report.md of `idforge bench db`: the report (report.ts) as tables a person reads. The
 * formatting helpers are shared with the charts (charts.ts). Formatting never depends on the
 * locale: thousands are separated by "," and decimals by ".". A figure that is null, or not a
 * finite number, prints as "–" (en dash), so the output never shows NaN, Infinity or undefined.
 */
import type { DbBenchReport, SchemeResult } from './report.js';

/** What a null or non-finite figure prints as. */
export const NONE = '–';

/**
 * Bytes in the MB the report and charts use: 2^20, as the databases count (PostgreSQL's
 * "128MB" of shared_buffers, pg_size_pretty, MySQL), so sizes compare with the settings.
 */
export const MB = 1_048_576;

/** Throws a TypeError unless `report` looks like a DbBenchReport (an object with a schemes array). */
export function checkReport(report: unknown): asserts report is DbBenchReport {
  const schemes = (report as { schemes?: unknown } | null)?.schemes;
  if (typeof report !== 'object' || report === null || !Array.isArray(schemes)) {
    const got = report === null ? 'null' : Array.isArray(report) ? 'an array' : typeof report;
    throw new TypeError(`expected a DbBenchReport (an object with a schemes array), got ${got}`);
  }
}

/** True for a number that is not NaN or ±Infinity. */
export function isFiniteNumber(n: unknown): n is number {
  return typeof n === 'number' && Number.isFinite(n);
}

/** `digits` groups of three joined by ",": "1234567" → "1,234,567". */
function groupThousands(digits: string): string {
  let out = '';
  for (let i = 0; i < digits.length; i++) {
    if (i > 0 && (digits.length - i) % 3 === 0) out += ',';
    out += digits[i];
  }
  return out;
}

/**
 * `n` with `decimals` decimals and "," between thousands ("1,234.5"); "–" for null and
 * non-finite numbers. Beyond 1e21 it falls back to the exponent form.
 */
export function formatNumber(n: number | null | undefined, decimals = 0): string {
  if (!isFiniteNumber(n)) return NONE;
  if (Math.abs(n) >= 1e21) return n.toExponential(2);
  const fixed = Math.abs(n).toFixed(decimals);
  const [int = '0', frac] = fixed.split('.');
  const negative = n < 0 && Number(fixed) !== 0;
  return `${negative ? '-' : ''}${groupThousands(int)}${frac === undefined ? '' : `.${frac}`}`;
}

/** A count, rounded to a whole number: "1,234,567". */
export function formatCount(n: number | null | undefined): string {
  return formatNumber(n, 0);
}

/** Bytes as MB with one decimal ("1,234.5"); "<0.1" for a positive size that would show 0.0. */
export function formatMb(bytes: number | null | undefined): string {
  if (!isFiniteNumber(bytes)) return NONE;
  if (bytes > 0 && bytes < 0.05 * MB) return '<0.1';
  return formatNumber(bytes / MB, 1);
}

/** `a / b` as "0.42×"; "–" when either is missing or `b` is 0. */
export function formatRatio(a: number | null | undefined, b: number | null | undefined): string {
  if (!isFiniteNumber(a) || !isFiniteNumber(b) || b === 0) return NONE;
  return `${formatNumber(a / b, 2)}×`;
}

/**
 * The scheme the ratios are to: the `bigint` row when there is one, else the first; undefined
 * for a report without schemes.
 */
export function baselineOf(report: DbBenchReport): SchemeResult | undefined {
  return report.schemes.find((s) => s.scheme === 'bigint') ?? report.schemes[0];
}

/** Text for one table cell: "|" escaped, line breaks as spaces. */
export function escapeCell(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\r?\n|\r/g, ' ');
}

/** A one-line text outside tables (title, regime): line breaks as spaces. */
function oneLine(text: string): string {
  return String(text).replace(/\r?\n|\r/g, ' ');
}

/** A Markdown table, the first `text` columns left-aligned; every cell goes through escapeCell. */
function table(head: readonly string[], rows: readonly (readonly string[])[], text = 2): string[] {
  const line = (cells: readonly string[]) => `| ${cells.map(escapeCell).join(' | ')} |`;
  const align = head.map((_, i) => (i < text ? '---' : '---:'));
  return [line(head), `| ${align.join(' | ')} |`, ...rows.map(line)];
}

/** A column of the main table: `optional` columns show only when a scheme has a value. */
interface Column {
  readonly head: string;
  readonly cell: (s: SchemeResult) => string;
  readonly optional?: (s: SchemeResult) => unknown;
}

function columns(base: SchemeResult | undefined): Column[] {
  const ratio = (pick: (s: SchemeResult) => number | null) => (s: SchemeResult) =>
    formatRatio(pick(s), base === undefined ? null : pick(base));
  return [
    { head: 'scheme', cell: (s) => s.scheme },
    { head: 'storage', cell: (s) => s.storage },
    { head: 'load s', cell: (s) => formatNumber(s.loadSeconds, 2) },
    { head: 'rows/s', cell: (s) => formatCount(s.rowsPerSecond) },
    { head: 'rows/s ×', cell: ratio((s) => s.rowsPerSecond) },
    { head: 'table MB', cell: (s) => formatMb(s.tableBytes) },
    { head: 'primary index MB', cell: (s) => formatMb(s.primaryIndexBytes) },
    { head: 'secondary index MB', cell: (s) => formatMb(s.secondaryIndexBytes) },
    { head: 'table ×', cell: ratio((s) => s.tableBytes) },
    { head: 'primary ×', cell: ratio((s) => s.primaryIndexBytes) },
    { head: 'secondary ×', cell: ratio((s) => s.secondaryIndexBytes) },
    { head: 'leaf density %', cell: (s) => percent(s.primaryLeafDensity) },
    optional('leaf fragmentation %', (s) => s.primaryLeafFragmentation, percent),
    optional('leaf pages', (s) => s.primaryLeafPages, formatCount),
    optional('WAL MB', (s) => s.walBytes, formatMb),
    optional('full-page images', (s) => s.fullPageImages, formatCount),
    optional('redo MB', (s) => s.redoBytes, formatMb),
    optional('page splits', (s) => s.pageSplits, formatCount),
    optional('page merges', (s) => s.pageMerges, formatCount),
    optional('pages read', (s) => s.pagesRead, formatCount),
    optional('pages written', (s) => s.pagesWritten, formatCount),
    optional('compaction MB written', (s) => s.compactionBytesWritten, formatMb),
    optional(
      'write amplification',
      (s) => s.writeAmplification,
      (n) => (isFiniteNumber(n) ? `${formatNumber(n, 2)}×` : NONE),
    ),
    optional(
      'files per level (L0/L1/…)',
      (s) => s.filesPerLevel,
      (levels) => (levels === null ? NONE : levels.map((n) => formatCount(n)).join('/')),
    ),
    { head: 'order inversions', cell: (s) => formatCount(s.orderInversions) },
  ];
}

function optional<T>(
  head: string,
  pick: (s: SchemeResult) => T | null,
  show: (v: T | null) => string,
): Column {
  return { head, cell: (s) => show(pick(s) ?? null), optional: pick };
}

function percent(fraction: number | null): string {
  return isFiniteNumber(fraction) ? formatNumber(fraction * 100, 1) : NONE;
}

/** The day of an ISO timestamp ("2025-03-01"), or the text itself when it is not one. */
function dayOf(iso: string): string {
  return /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : oneLine(iso);
}

/** The links to the two charts, with the trailing newline of the file. */
const CHART_LINES = [
  '',
  '## Charts',
  '',
  '![Insert rate by tenth of the load, one line per scheme](rate-by-tenth.svg)',
  '',
  '![Table and index sizes per scheme](sizes.svg)',
  '',
  'Charts: [rate-by-tenth.svg](rate-by-tenth.svg), [sizes.svg](sizes.svg).',
  '',
];

/**
 * report.md for `report`: a title (engine, server, rows, date), the regime line, run facts,
 * the settings table, the main table (one row per scheme; ratios "×" to the baseline, which is
 * the `bigint` row when present, else the first scheme, and the text says which), the rows/s
 * by tenth table, and links to rate-by-tenth.svg and sizes.svg. Engine-specific columns show
 * only when some scheme has a value for them. Ends with a newline.
 * @throws TypeError when `report` is not a report object.
 */
export function renderReportMarkdown(report: DbBenchReport): string {
  checkReport(report);
  const base = baselineOf(report);
  return [
    ...runLines(report),
    '',
    '## Settings',
    '',
    ...settingLines(report),
    '',
    '## Results',
    '',
    ...resultLines(report, base),
    '',
    '## Insert rate by tenth of the load (rows/s)',
    '',
    ...tenthLines(report),
    ...CHART_LINES,
  ].join('\n');
}

/** The title (engine, server, rows, date), the regime line and the run facts. */
function runLines(report: DbBenchReport): string[] {
  return [
    `# idforge bench db: ${oneLine(report.engine)}, ${oneLine(report.server)}, ` +
      `${formatCount(report.rows)} rows, ${dayOf(report.startedAt)}`,
    '',
    `**Regime:** ${oneLine(report.regime)}`,
    '',
    `- Database: \`${oneLine(report.address)}\``,
    `- Rows per scheme: ${formatCount(report.rows)}, in batches of ${formatCount(report.batch)}`,
    `- Cache: ${report.cacheBytes === null ? NONE : `${formatMb(report.cacheBytes)} MB`}`,
    `- Run: ${oneLine(report.startedAt)} to ${oneLine(report.finishedAt)}, ` +
      `idforge ${oneLine(report.idforgeVersion)} (${oneLine(report.format)})`,
  ];
}

/** The server settings as a table, or a line saying there are none. */
function settingLines(report: DbBenchReport): string[] {
  const settings = Object.entries(report.settings ?? {});
  if (settings.length === 0) return ['The server reported no settings.'];
  return table(['setting', 'value'], settings);
}

/** The main table, one row per scheme, after a line naming the baseline of its ratios. */
function resultLines(report: DbBenchReport, base: SchemeResult | undefined): string[] {
  if (base === undefined) return ['No scheme was loaded.'];
  const isBigint = base.scheme === 'bigint';
  const cols = columns(base).filter(
    (c) => c.optional === undefined || report.schemes.some((s) => c.optional?.(s) != null),
  );
  return [
    `Ratios (×) are to the baseline \`${base.scheme}\`` +
      (isBigint ? '.' : ' (the first scheme: this run has no `bigint` table).') +
      ` MB are ${formatCount(MB)} bytes. ${NONE} means the engine does not give the figure.`,
    '',
    ...table(
      cols.map((c) => c.head),
      report.schemes.map((s) => cols.map((c) => c.cell(s))),
    ),
  ];
}

/** The rows/s of each tenth of each scheme's load, and the last tenth's ratio to the first. */
function tenthLines(report: DbBenchReport): string[] {
  const tenths = Math.max(0, ...report.schemes.map((s) => s.rowsPerSecondByTenth?.length ?? 0));
  if (tenths === 0) return ['No per-tenth rates were recorded.'];
  const head = ['scheme', ...Array.from({ length: tenths }, (_, i) => String(i + 1))];
  head.push('last ÷ first');
  const rows = report.schemes.map((s) => {
    const by = s.rowsPerSecondByTenth ?? [];
    const cells = Array.from({ length: tenths }, (_, i) => formatCount(by[i]));
    return [s.scheme, ...cells, formatRatio(by[by.length - 1], by[0])];
  });
  return table(head, rows, 1);
}
