/**
 * The lines and the legend of the rate chart (rateChartSvg in charts.ts): one line per scheme
 * over the tenths of its load, styled by the scheme's place in BENCH_SCHEMES.
 */
import { BENCH_SCHEMES, type SchemeResult } from './report.js';
import { formatCount, isFiniteNumber } from './report-md.js';
import {
  c,
  END,
  escapeXml,
  group,
  label,
  marker,
  type Plot,
  type SeriesStyle,
  seriesStroke,
  seriesStyle,
  textWidth,
} from './svg.js';

/** A scheme's style: by its place in BENCH_SCHEMES, so it looks the same in every chart. */
function styleOf(s: SchemeResult, i: number): SeriesStyle {
  const at = BENCH_SCHEMES.indexOf(s.scheme);
  return seriesStyle(at >= 0 ? at : i);
}

/** A scheme's rates by tenth; one that is not a finite rate >= 0 is null, a gap in its line. */
export function tenthRates(s: SchemeResult): (number | null)[] {
  return (s.rowsPerSecondByTenth ?? []).map((v) => (isFiniteNumber(v) && v >= 0 ? v : null));
}

/** Where tenth `i` (from 0) of `n` lies: spread inside a margin, a single one in the middle. */
export function tenthX(plot: Plot, n: number): (i: number) => number {
  const { left, right } = plot;
  const pad = 18;
  return (i) =>
    n === 1 ? (left + right) / 2 : left + pad + (i / (n - 1)) * (right - left - 2 * pad);
}

/** One scheme's line over the tenths, broken at gaps, with a marker and a tooltip per tenth. */
export function rateSeries(
  s: SchemeResult,
  k: number,
  rates: readonly (number | null)[],
  x: (i: number) => number,
  y: (v: number) => number,
): string[] {
  const style = styleOf(s, k);
  let d = '';
  const dots: string[] = [];
  rates.forEach((v, i, all) => {
    if (v === null) return; // a gap: the line starts again after it
    d += `${i > 0 && all[i - 1] !== null ? 'L' : 'M'}${c(x(i))} ${c(y(v))} `;
    dots.push(
      `<g>${marker(style.marker, x(i), y(v), style.colour)}<title>${escapeXml(`${s.scheme}, tenth ${i + 1}: ${formatCount(v)} rows/s`)}</title></g>`,
    );
  });
  const path = d
    ? `<path d="${d.trim()}" fill="none" ${seriesStroke(style)} stroke-linejoin="round"/>`
    : '';
  return group(`class="series" data-scheme="${escapeXml(s.scheme)}"`, [path, ...dots]);
}

function rateText(s: SchemeResult): string {
  return `${formatCount(s.rowsPerSecond)} rows/s`;
}

/** The rate legend's width: a line sample, the longest name, a gap, the longest rate. */
export function rateLegendWidth(schemes: readonly SchemeResult[]): number {
  const nameW = Math.max(0, ...schemes.map((s) => textWidth(s.scheme, 12)));
  return 40 + nameW + 14 + Math.max(0, ...schemes.map((s) => textWidth(rateText(s), 12)));
}

/** The legend at (`lx`, `top`): the schemes fastest first, as the lines mostly stack, rates in a column. */
export function rateLegend(
  schemes: readonly SchemeResult[],
  lx: number,
  top: number,
  width: number,
) {
  const order = schemes
    .map((s, k) => ({ s, k, rate: isFiniteNumber(s.rowsPerSecond) ? s.rowsPerSecond : -1 }))
    .sort((a, b) => b.rate - a.rate || a.k - b.k);
  const entries = order.flatMap(({ s, k }, row) => {
    const style = styleOf(s, k);
    const ly = top + 8 + row * 22;
    return group(`class="legend-entry" data-scheme="${escapeXml(s.scheme)}"`, [
      `<line x1="${c(lx)}" x2="${c(lx + 32)}" y1="${c(ly)}" y2="${c(ly)}" ${seriesStroke(style)}/>`,
      marker(style.marker, lx + 16, ly, style.colour),
      label(lx + 40, ly + 4, s.scheme),
      label(lx + width, ly + 4, rateText(s), END),
    ]);
  });
  return group('id="legend"', entries);
}
