/**
 * The two SVG charts of `idforge bench db` (rate-by-tenth.svg and sizes.svg). Each is a
 * self-contained SVG 1.1 document: xmlns, width/height and viewBox, system sans-serif, all text
 * XML-escaped, no scripts, no external resources. Every scheme keeps one colour, dash pattern
 * and marker (by its place in BENCH_SCHEMES) so lines read in grey too. Values that are null
 * or not finite are skipped; numbers in the output are rounded, never NaN or Infinity.
 *
 * Both charts draw their value axis with one scale and grid (linearScale, valueGrid); the
 * rate chart's lines are in rate-lines.ts, the size chart's bars in size-bars.ts, the SVG
 * primitives in svg.ts.
 */
import { rateLegend, rateLegendWidth, rateSeries, tenthRates, tenthX } from './rate-lines.js';
import type { DbBenchReport } from './report.js';
import {
  baselineOf,
  checkReport,
  formatCount,
  formatNumber,
  isFiniteNumber,
  MB,
} from './report-md.js';
import {
  type BarContext,
  bands,
  HATCH,
  schemeBars,
  sizeBars,
  sizeLegend,
  sizeOf,
  sizePlot,
} from './size-bars.js';
import { CENTRED, c, END, empty, frame, gridLine, group, label, type Plot } from './svg.js';

/** Round axis ticks from 0 covering `max` (about 5 steps of 1, 2, 2.5 or 5 × 10^k). */
export function niceTicks(max: number): number[] {
  const top = isFiniteNumber(max) && max > 0 ? max : 1;
  const raw = top / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw - 1e-12 * raw) ?? 10) * mag;
  const count = Math.max(1, Math.ceil(top / step - 1e-9));
  return Array.from({ length: count + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

/** A tick value short: 250k, 1.5M, 0.5. */
function compact(n: number): string {
  const trim = (v: number, unit: string) => `${Number(v.toFixed(2))}${unit}`;
  if (n >= 1e6) return trim(n / 1e6, 'M');
  if (n >= 1e3) return trim(n / 1e3, 'k');
  return trim(n, '');
}

/** Values to px: round ticks from 0 covering the maximum, and where a value lies. */
interface Scale {
  readonly ticks: readonly number[];
  readonly at: (value: number) => number;
}

/** A linear scale over {@link niceTicks}`(max)`: 0 at `from` px, the top tick at `to` px. */
function linearScale(max: number, from: number, to: number): Scale {
  const ticks = niceTicks(max);
  const top = ticks[ticks.length - 1] ?? 1;
  return { ticks, at: (v) => from + (v / top) * (to - from) };
}

/**
 * A grid line and a label per tick of `scale`: across the plot for the y axis (labels on the
 * left), up it for the x axis (labels below).
 */
function valueGrid(
  plot: Plot,
  axis: 'x' | 'y',
  scale: Scale,
  text: (t: number) => string,
): string[] {
  return scale.ticks.flatMap((t) => {
    const at = scale.at(t);
    return axis === 'y'
      ? [gridLine(plot.left, plot.right, at, at, t), label(plot.left - 8, at + 4, text(t), END)]
      : [gridLine(at, at, plot.top, plot.bottom, t), label(at, plot.bottom + 18, text(t), CENTRED)];
  });
}

/** The title of the x axis, centred below its tick labels. */
function axisTitle(plot: Plot, text: string): string {
  return label((plot.left + plot.right) / 2, plot.bottom + 40, text, CENTRED);
}

/**
 * Insert rate by tenth of the load: one line per scheme (x = tenth 1..n, y = rows/s from 0,
 * round ticks), markers at each tenth, a legend with each scheme's overall rows/s, and a
 * title naming the engine and rows. Series are `<g class="series" data-scheme>`, legend
 * entries `<g class="legend-entry" data-scheme>`, the plot area `<g id="plot">`.
 * @throws TypeError when `report` is not a report object.
 */
export function rateChartSvg(report: DbBenchReport): string {
  checkReport(report);
  const title = `Insert rate by tenth of the load: ${report.engine}, ${formatCount(report.rows)} rows`;
  const subtitle = `${report.server} · rows/s over each tenth; higher is faster`;
  const schemes = report.schemes;
  const rates = schemes.map(tenthRates);
  const n = Math.max(0, ...rates.map((r) => r.length));
  const legendW = rateLegendWidth(schemes);
  const W = 880;
  const top = 64;
  const H = Math.max(440, top + schemes.length * 22 + 90);
  const plot: Plot = { left: 72, right: W - legendW - 44, top, bottom: H - 56 };
  if (schemes.length === 0 || n === 0) {
    const why = schemes.length === 0 ? 'no schemes in this report' : 'no per-tenth rates';
    return empty(title, subtitle, why);
  }
  const max = Math.max(0, ...rates.flat().map((v) => v ?? 0));
  const y = linearScale(max, plot.bottom, plot.top);
  const x = tenthX(plot, n);
  const body = [
    ...group('id="axes"', rateAxes(plot, x, n, y)),
    ...group(
      'id="plot"',
      schemes.flatMap((s, k) => rateSeries(s, k, rates[k] ?? [], x, y.at)),
    ),
  ];
  if (max === 0) {
    body.push(label((plot.left + plot.right) / 2, top + 24, 'every rate is 0 rows/s', CENTRED));
  }
  body.push(...rateLegend(schemes, plot.right + 24, top, legendW));
  return frame(W, H, title, subtitle, body);
}

/** The rate chart's axes: rows/s grid lines and ticks, the tenths below, both axis titles. */
function rateAxes(plot: Plot, x: (i: number) => number, n: number, y: Scale): string[] {
  const out = valueGrid(plot, 'y', y, compact);
  for (let i = 0; i < n; i++) out.push(label(x(i), plot.bottom + 18, String(i + 1), CENTRED));
  const middle = (plot.top + plot.bottom) / 2;
  out.push(
    axisTitle(plot, 'tenth of the load'),
    label(16, middle, 'rows/s', `${CENTRED} transform="rotate(-90 16 ${c(middle)})"`),
  );
  return out;
}

/**
 * Sizes per scheme: horizontal bars grouped by scheme (table, primary index and secondary
 * index, in MB; a kind no scheme has is left out, a null is skipped), each bar labelled with
 * its MB and its ratio to the baseline (bigint, else the first scheme), a legend and a title.
 * Says "no size figures" when the report has none. Scheme groups are
 * `<g class="scheme" data-scheme>`, legend entries `<g class="legend-entry">`, the plot `<g id="plot">`.
 * @throws TypeError when `report` is not a report object.
 */
export function sizeChartSvg(report: DbBenchReport): string {
  checkReport(report);
  const base = baselineOf(report);
  const kinds = sizeBars(report.schemes);
  const hasSizes = kinds.length > 0;
  const title = `Table and index sizes: ${report.engine}, ${formatCount(report.rows)} rows`;
  const subtitle =
    `${report.server} · MB (${formatCount(MB)} bytes)` +
    (report.schemes.length > 1 && hasSizes ? `; × = size relative to ${base?.scheme}` : '');
  const W = 880;
  if (!hasSizes) {
    const why =
      report.schemes.length === 0 ? 'no schemes in this report' : 'no size figures in this report';
    return empty(title, subtitle, why);
  }
  const plot = sizePlot(report.schemes, kinds, W);
  const max =
    Math.max(0, ...report.schemes.flatMap((s) => kinds.map((k) => sizeOf(s, k.key) ?? 0))) / MB;
  const x = linearScale(max, plot.left, plot.right);
  const bars: BarContext = { kinds, base, plot, x: x.at };
  const tick = (t: number) => formatNumber(t, t % 1 === 0 ? 0 : 1);
  return frame(W, plot.height, title, subtitle, [
    HATCH,
    ...group('id="legend"', sizeLegend(kinds)),
    ...group('id="bands"', bands(report.schemes, plot, W)), // every other scheme shaded, under the grid
    ...group('id="axes"', [...valueGrid(plot, 'x', x, tick), axisTitle(plot, 'MB')]),
    ...group(
      'id="plot"',
      report.schemes.flatMap((s, g) => schemeBars(s, g, bars)),
    ),
  ]);
}
