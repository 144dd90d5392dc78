/**
 * The two SVG charts of `idforge bench db` (rate-by-tenth.svg and sizes.svg). Each is a
 * self-contained SVG 1.1 document: xmlns, width/height and viewBox, system sans-serif, all text
 * XML-escaped, no scripts, no external resources. Every scheme keeps one colour, dash pattern
 * and marker (by its place in BENCH_SCHEMES) so lines read in grey too. Values that are null
 * or not finite are skipped; numbers in the output are rounded, never NaN or Infinity.
 */

import { BENCH_SCHEMES, type DbBenchReport, type SchemeResult } from './report.js';
import {
  baselineOf,
  checkReport,
  formatCount,
  formatMb,
  formatNumber,
  isFiniteNumber,
  MB,
} from './report-md.js';

/** Okabe–Ito colours (yellow left out) and two more: told apart with most colour blindness. */
// biome-ignore format: one palette line
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#8C564B', '#7B4FB0'];
const DASHES = ['', '9 4', '2 3', '10 3 2 3', '5 2', '12 3 3 3 3 3', '1 5', '7 2 2 2', '16 5'];
const MARKERS = ['circle', 'square', 'triangle', 'diamond'] as const;
const FONT = "system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', Helvetica, Arial, sans-serif";
const INK = '#1f2328';
const MUTED = '#57606a';
const CENTRED = `text-anchor="middle" fill="${MUTED}"`;
const END = `text-anchor="end" fill="${MUTED}"`;
const GRID = (t: number) => (t === 0 ? '#8c959f' : '#d8dee4');

/** Text made safe for XML: markup characters escaped, characters XML forbids dropped. */
export function escapeXml(text: string): string {
  return (
    String(text)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 forbids them; dropped on purpose
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

/** A coordinate rounded to 0.1; throws on a non-finite one (a bug here, never in the input). */
function c(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`expected a finite coordinate, got ${n}`);
  return String(Math.round(n * 10) / 10);
}

/** Rough width of `text` in px at `size` px (no font metrics in Node: ~0.6 em a character). */
function textWidth(text: string, size: number): number {
  return [...text].length * size * 0.6;
}

/** `text` cut with "…" to about `px` wide. */
function fit(text: string, px: number, size: number): string {
  const max = Math.max(4, Math.floor(px / (size * 0.6)));
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

function label(x: number, y: number, text: string, attrs = ''): string {
  return `<text x="${c(x)}" y="${c(y)}"${attrs ? ` ${attrs}` : ''}>${escapeXml(text)}</text>`;
}

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

function styleOf(s: SchemeResult, i: number) {
  const at = BENCH_SCHEMES.indexOf(s.scheme);
  const k = at >= 0 ? at : i;
  return {
    colour: PALETTE[k % PALETTE.length] as string,
    dash: DASHES[k % DASHES.length] as string,
    marker: MARKERS[k % MARKERS.length] as (typeof MARKERS)[number],
  };
}

function marker(kind: (typeof MARKERS)[number], x: number, y: number, colour: string): string {
  const paint = `fill="${colour}" stroke="#ffffff" stroke-width="1"`;
  if (kind === 'circle') return `<circle cx="${c(x)}" cy="${c(y)}" r="4" ${paint}/>`;
  if (kind === 'square')
    return `<rect x="${c(x - 3.5)}" y="${c(y - 3.5)}" width="7" height="7" ${paint}/>`;
  // biome-ignore format: two point lists
  const pts = kind === 'triangle' ? [[x, y - 5], [x + 4.5, y + 3.5], [x - 4.5, y + 3.5]] : [[x, y - 5], [x + 5, y], [x, y + 5], [x - 5, y]];
  return `<polygon points="${pts.map(([a, b]) => `${c(a ?? 0)},${c(b ?? 0)}`).join(' ')}" ${paint}/>`;
}

/** The svg root, title and subtitle; `body` goes after them. */
function frame(w: number, h: number, title: string, subtitle: string, body: string[]): string {
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${w}" height="${h}" ` +
      `viewBox="0 0 ${w} ${h}" font-family="${escapeXml(FONT)}" font-size="12" fill="${INK}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${w}" height="${h}" fill="#ffffff"/>`,
    label(16, 26, fit(title, w - 32, 16), 'font-size="16" font-weight="bold"'),
    label(16, 44, fit(subtitle, w - 32, 12), `fill="${MUTED}"`),
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

/** A chart with nothing to draw: the title and `why` in the middle. */
function empty(title: string, subtitle: string, why: string): string {
  const text = label(440, 120, why, `${CENTRED} font-size="14"`);
  return frame(880, 200, title, subtitle, [`<g id="plot">${text}</g>`]);
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
  const rates = schemes.map((s) =>
    (s.rowsPerSecondByTenth ?? []).map((v) => (isFiniteNumber(v) && v >= 0 ? v : null)),
  );
  const n = Math.max(0, ...rates.map((r) => r.length));
  // The legend lists the schemes fastest first, as the lines mostly stack, rates in a column.
  const order = schemes
    .map((s, k) => ({ s, k, rate: isFiniteNumber(s.rowsPerSecond) ? s.rowsPerSecond : -1 }))
    .sort((a, b) => b.rate - a.rate || a.k - b.k);
  const rateText = (s: SchemeResult) => `${formatCount(s.rowsPerSecond)} rows/s`;
  const nameW = Math.max(0, ...schemes.map((s) => textWidth(s.scheme, 12)));
  const legendW = 40 + nameW + 14 + Math.max(0, ...schemes.map((s) => textWidth(rateText(s), 12)));
  const W = 880;
  const left = 72;
  const top = 64;
  const right = W - legendW - 44;
  const H = Math.max(440, top + schemes.length * 22 + 90);
  const bottom = H - 56;
  if (schemes.length === 0 || n === 0) {
    const why = schemes.length === 0 ? 'no schemes in this report' : 'no per-tenth rates';
    return empty(title, subtitle, why);
  }
  const max = Math.max(0, ...rates.flat().map((v) => v ?? 0));
  const ticks = niceTicks(max);
  const yTop = ticks[ticks.length - 1] ?? 1;
  const y = (v: number) => bottom - (v / yTop) * (bottom - top);
  const pad = 18;
  const x = (i: number) =>
    n === 1 ? (left + right) / 2 : left + pad + (i / (n - 1)) * (right - left - 2 * pad);
  const body: string[] = ['<g id="axes">'];
  for (const t of ticks) {
    body.push(
      `<line x1="${left}" x2="${c(right)}" y1="${c(y(t))}" y2="${c(y(t))}" stroke="${GRID(t)}"/>`,
      label(left - 8, y(t) + 4, compact(t), END),
    );
  }
  for (let i = 0; i < n; i++) body.push(label(x(i), bottom + 18, String(i + 1), CENTRED));
  body.push(
    label((left + right) / 2, bottom + 40, 'tenth of the load', CENTRED),
    label(
      16,
      (top + bottom) / 2,
      'rows/s',
      `${CENTRED} transform="rotate(-90 16 ${c((top + bottom) / 2)})"`,
    ),
    '</g>',
    '<g id="plot">',
  );
  schemes.forEach((s, k) => {
    const { colour, dash, marker: m } = styleOf(s, k);
    let d = '';
    const dots: string[] = [];
    (rates[k] ?? []).forEach((v, i, all) => {
      if (v === null) return; // a gap: the line starts again after it
      d += `${i > 0 && all[i - 1] !== null ? 'L' : 'M'}${c(x(i))} ${c(y(v))} `;
      dots.push(
        `<g>${marker(m, x(i), y(v), colour)}<title>${escapeXml(`${s.scheme}, tenth ${i + 1}: ${formatCount(v)} rows/s`)}</title></g>`,
      );
    });
    const dashAttr = dash ? ` stroke-dasharray="${dash}"` : '';
    body.push(
      `<g class="series" data-scheme="${escapeXml(s.scheme)}">`,
      d
        ? `<path d="${d.trim()}" fill="none" stroke="${colour}" stroke-width="2.2"${dashAttr} stroke-linejoin="round"/>`
        : '',
      ...dots,
      '</g>',
    );
  });
  body.push('</g>');
  if (max === 0) {
    body.push(label((left + right) / 2, top + 24, 'every rate is 0 rows/s', CENTRED));
  }
  const lx = right + 24;
  body.push('<g id="legend">');
  order.forEach(({ s, k }, row) => {
    const { colour, dash, marker: m } = styleOf(s, k);
    const ly = top + 8 + row * 22;
    body.push(
      `<g class="legend-entry" data-scheme="${escapeXml(s.scheme)}">`,
      `<line x1="${c(lx)}" x2="${c(lx + 32)}" y1="${c(ly)}" y2="${c(ly)}" stroke="${colour}" stroke-width="2.2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
      marker(m, lx + 16, ly, colour),
      label(lx + 40, ly + 4, s.scheme),
      label(lx + legendW, ly + 4, rateText(s), END),
      '</g>',
    );
  });
  body.push('</g>');
  return frame(W, H, title, subtitle, body);
}

type SizeKind = 'tableBytes' | 'primaryIndexBytes' | 'secondaryIndexBytes';
const KINDS: readonly { key: SizeKind; name: string; fill: string }[] = [
  { key: 'tableBytes', name: 'table', fill: '#0072B2' },
  { key: 'primaryIndexBytes', name: 'primary index', fill: '#E69F00' },
  { key: 'secondaryIndexBytes', name: 'secondary index', fill: 'url(#hatch)' },
];
const HATCH =
  '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">' +
  '<rect width="6" height="6" fill="#009E73"/><rect width="2" height="6" fill="#ffffff" fill-opacity="0.55"/></pattern></defs>';

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
  const value = (s: SchemeResult, k: SizeKind) => {
    const v = s[k];
    return isFiniteNumber(v) && v >= 0 ? v : null;
  };
  // InnoDB and LevelDB keep the rows in the primary key's own structure: one bar, not two equal ones.
  const clustered = report.schemes.every(
    (s) => value(s, 'tableBytes') === value(s, 'primaryIndexBytes'),
  );
  const kinds = KINDS.filter((k) => report.schemes.some((s) => value(s, k.key) !== null))
    .filter((k) => !(clustered && k.key === 'primaryIndexBytes'))
    .map((k) =>
      clustered && k.key === 'tableBytes' ? { ...k, name: 'table = primary index (clustered)' } : k,
    );
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
  const left = Math.max(
    110,
    ...report.schemes.map((s) => Math.max(textWidth(s.scheme, 13), textWidth(s.storage, 11)) + 28),
  );
  const right = W - 150;
  const top = 88;
  const barH = 15;
  const groupH = kinds.length * (barH + 3) + 18;
  const bottom = top + report.schemes.length * groupH;
  const H = bottom + 52;
  const max =
    Math.max(0, ...report.schemes.flatMap((s) => kinds.map((k) => value(s, k.key) ?? 0))) / MB;
  const ticks = niceTicks(max);
  const xTop = ticks[ticks.length - 1] ?? 1;
  const x = (mb: number) => left + (mb / xTop) * (right - left);
  const body: string[] = [HATCH, '<g id="legend">'];
  let lx = 16;
  for (const k of kinds) {
    body.push(
      `<g class="legend-entry" data-kind="${k.key}"><rect x="${c(lx)}" y="56" width="14" height="14" fill="${k.fill}"/>`,
      `${label(lx + 20, 67, k.name)}</g>`,
    );
    lx += textWidth(k.name, 12) + 44;
  }
  body.push('</g>', '<g id="bands">'); // every other scheme shaded, under the grid
  report.schemes.forEach((_, g) => {
    if (g % 2 === 1)
      body.push(
        `<rect y="${c(top + g * groupH)}" width="${W}" height="${c(groupH)}" fill="#f6f8fa"/>`,
      );
  });
  body.push('</g>', '<g id="axes">');
  for (const t of ticks) {
    body.push(
      `<line x1="${c(x(t))}" x2="${c(x(t))}" y1="${top}" y2="${c(bottom)}" stroke="${GRID(t)}"/>`,
      label(x(t), bottom + 18, formatNumber(t, t % 1 === 0 ? 0 : 1), CENTRED),
    );
  }
  body.push(label((left + right) / 2, bottom + 40, 'MB', CENTRED), '</g>', '<g id="plot">');
  report.schemes.forEach((s, g) => {
    const gy = top + g * groupH;
    body.push(`<g class="scheme" data-scheme="${escapeXml(s.scheme)}">`);
    const mid = gy + groupH / 2;
    const name = fit(s.scheme, left - 20, 13);
    body.push(
      label(left - 10, mid - 1, name, 'text-anchor="end" font-size="13" font-weight="bold"'),
      label(left - 10, mid + 13, fit(s.storage, left - 20, 11), `${END} font-size="11"`),
    );
    if (kinds.every((k) => value(s, k.key) === null)) {
      body.push(label(left + 8, mid + 4, 'no size figures', `fill="${MUTED}"`));
    }
    kinds.forEach((k, i) => {
      const v = value(s, k.key);
      if (v === null) return;
      const by = gy + 9 + i * (barH + 3);
      const end = x(v / MB);
      const baseV = base === undefined ? null : value(base, k.key);
      const ratio =
        baseV && s !== base
          ? `<tspan fill="${MUTED}"> · ${formatNumber(v / baseV, 2)}×</tspan>`
          : '';
      body.push(
        `<rect x="${left}" y="${c(by)}" width="${c(Math.max(0, end - left))}" height="${barH}" fill="${k.fill}"><title>${escapeXml(`${s.scheme} ${k.name}: ${formatCount(v)} bytes`)}</title></rect>`,
        `<text x="${c(end + 5)}" y="${c(by + barH - 3.5)}" font-size="11">${escapeXml(`${formatMb(v)} MB`)}${ratio}</text>`,
      );
    });
    body.push('</g>');
  });
  body.push('</g>');
  return frame(W, H, title, subtitle, body);
}
