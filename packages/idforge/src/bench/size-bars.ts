/**
 * The bars of the size chart (sizeChartSvg in charts.ts): per scheme, one bar per kind of
 * size (table, primary index, secondary index) in MB, with its ratio to the baseline.
 */
import type { SchemeResult } from './report.js';
import { formatCount, formatMb, formatNumber, isFiniteNumber, MB } from './report-md.js';
import { c, END, escapeXml, fit, group, label, MUTED, type Plot, textWidth } from './svg.js';

type SizeKind = 'tableBytes' | 'primaryIndexBytes' | 'secondaryIndexBytes';
export interface SizeBar {
  readonly key: SizeKind;
  readonly name: string;
  readonly fill: string;
}
const KINDS: readonly SizeBar[] = [
  { key: 'tableBytes', name: 'table', fill: '#0072B2' },
  { key: 'primaryIndexBytes', name: 'primary index', fill: '#E69F00' },
  { key: 'secondaryIndexBytes', name: 'secondary index', fill: 'url(#hatch)' },
];
export const HATCH =
  '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
  '<rect width="6" height="6" fill="#009E73"/><rect width="2" height="6" fill="#ffffff" fill-opacity="0.55"/></pattern></defs>';
const BAR_H = 15;

/** A size of `s` in bytes; null when missing, negative or not finite. */
export function sizeOf(s: SchemeResult, k: SizeKind): number | null {
  const v = s[k];
  return isFiniteNumber(v) && v >= 0 ? v : null;
}

/** The bars some scheme has a figure for, table and primary index as one when clustered. */
export function sizeBars(schemes: readonly SchemeResult[]): SizeBar[] {
  // InnoDB and LevelDB keep the rows in the primary key's own structure: one bar, not two equal ones.
  const clustered = schemes.every(
    (s) => sizeOf(s, 'tableBytes') === sizeOf(s, 'primaryIndexBytes'),
  );
  return KINDS.filter((k) => schemes.some((s) => sizeOf(s, k.key) !== null))
    .filter((k) => !(clustered && k.key === 'primaryIndexBytes'))
    .map((k) =>
      clustered && k.key === 'tableBytes' ? { ...k, name: 'table = primary index (clustered)' } : k,
    );
}

/** The size chart's plot: names on the left, one group of bars per scheme. */
export interface SizePlot extends Plot {
  /** Height of one scheme's group of bars, and of the whole chart. */
  readonly groupH: number;
  readonly height: number;
}

export function sizePlot(
  schemes: readonly SchemeResult[],
  kinds: readonly SizeBar[],
  W: number,
): SizePlot {
  const left = Math.max(
    110,
    ...schemes.map((s) => Math.max(textWidth(s.scheme, 13), textWidth(s.storage, 11)) + 28),
  );
  const top = 88;
  const groupH = kinds.length * (BAR_H + 3) + 18;
  const bottom = top + schemes.length * groupH;
  return { left, right: W - 150, top, bottom, groupH, height: bottom + 52 };
}

/** The legend, in a row under the title: a swatch and a name per kind of bar. */
export function sizeLegend(kinds: readonly SizeBar[]): string[] {
  const out: string[] = [];
  let lx = 16;
  for (const k of kinds) {
    out.push(
      `<g class="legend-entry" data-kind="${k.key}"><rect x="${c(lx)}" y="56" width="14" height="14" fill="${k.fill}"/>`,
      `${label(lx + 20, 67, k.name)}</g>`,
    );
    lx += textWidth(k.name, 12) + 44;
  }
  return out;
}

/** A shaded band `width` wide behind every other scheme's group. */
export function bands(schemes: readonly SchemeResult[], plot: SizePlot, width: number): string[] {
  const out: string[] = [];
  schemes.forEach((_, g) => {
    if (g % 2 === 1)
      out.push(
        `<rect y="${c(plot.top + g * plot.groupH)}" width="${width}" height="${c(plot.groupH)}" fill="#f6f8fa"/>`,
      );
  });
  return out;
}

/** What drawing a scheme's bars takes: the kinds, the baseline, the plot, MB to px. */
export interface BarContext {
  readonly kinds: readonly SizeBar[];
  readonly base: SchemeResult | undefined;
  readonly plot: SizePlot;
  readonly x: (mb: number) => number;
}

/** Scheme `s`, the `g`th: its name and storage, then a bar per kind it has a figure for. */
export function schemeBars(s: SchemeResult, g: number, ctx: BarContext): string[] {
  const attrs = `class="scheme" data-scheme="${escapeXml(s.scheme)}"`;
  const { kinds, plot } = ctx;
  const { left } = plot;
  const gy = plot.top + g * plot.groupH;
  const mid = gy + plot.groupH / 2;
  const name = fit(s.scheme, left - 20, 13);
  const out = [
    label(left - 10, mid - 1, name, 'text-anchor="end" font-size="13" font-weight="bold"'),
    label(left - 10, mid + 13, fit(s.storage, left - 20, 11), `${END} font-size="11"`),
  ];
  if (kinds.every((k) => sizeOf(s, k.key) === null)) {
    out.push(label(left + 8, mid + 4, 'no size figures', `fill="${MUTED}"`));
  }
  const bars = kinds.flatMap((k, i) => sizeBar(s, k, gy + 9 + i * (BAR_H + 3), ctx));
  return group(attrs, [...out, ...bars]);
}

/** The bar of kind `k` of `s` at `by`, its MB and ratio to the baseline after it; none for a null. */
function sizeBar(s: SchemeResult, k: SizeBar, by: number, ctx: BarContext): string[] {
  const v = sizeOf(s, k.key);
  if (v === null) return [];
  const { base, plot } = ctx;
  const end = ctx.x(v / MB);
  const baseV = base === undefined ? null : sizeOf(base, k.key);
  const ratio =
    baseV && s !== base ? `<tspan fill="${MUTED}"> · ${formatNumber(v / baseV, 2)}×</tspan>` : '';
  return [
    `<rect x="${plot.left}" y="${c(by)}" width="${c(Math.max(0, end - plot.left))}" height="${BAR_H}" fill="${k.fill}"><title>${escapeXml(`${s.scheme} ${k.name}: ${formatCount(v)} bytes`)}</title></rect>`,
    `<text x="${c(end + 5)}" y="${c(by + BAR_H - 3.5)}" font-size="11">${escapeXml(`${formatMb(v)} MB`)}${ratio}</text>`,
  ];
}
