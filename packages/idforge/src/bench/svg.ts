/**
 * The SVG text the charts of `idforge bench db` are drawn with (charts.ts): escaping, rounded
 * coordinates, labels, groups, the series styles and markers, and the document frame. Every
 * function returns markup as strings, one element a line; nothing here knows about reports.
 */

/** Okabe–Ito colours (yellow left out) and two more: told apart with most colour blindness. */
// biome-ignore format: one palette line
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#8C564B', '#7B4FB0'];
const DASHES = ['', '9 4', '2 3', '10 3 2 3', '5 2', '12 3 3 3 3 3', '1 5', '7 2 2 2', '16 5'];
const MARKERS = ['circle', 'square', 'triangle', 'diamond'] as const;
const FONT = "system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', Helvetica, Arial, sans-serif";
const INK = '#1f2328';
export const MUTED = '#57606a';
export const CENTRED = `text-anchor="middle" fill="${MUTED}"`;
export const END = `text-anchor="end" fill="${MUTED}"`;
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
export function c(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`expected a finite coordinate, got ${n}`);
  return String(Math.round(n * 10) / 10);
}

/** Rough width of `text` in px at `size` px (no font metrics in Node: ~0.6 em a character). */
export function textWidth(text: string, size: number): number {
  return [...text].length * size * 0.6;
}

/** `text` cut with "…" to about `px` wide. */
export function fit(text: string, px: number, size: number): string {
  const max = Math.max(4, Math.floor(px / (size * 0.6)));
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

export function label(x: number, y: number, text: string, attrs = ''): string {
  return `<text x="${c(x)}" y="${c(y)}"${attrs ? ` ${attrs}` : ''}>${escapeXml(text)}</text>`;
}

/** `<g attrs>`, the `children` lines, `</g>`. */
export function group(attrs: string, children: readonly string[]): string[] {
  return [`<g ${attrs}>`, ...children, '</g>'];
}

/** The plot area: its edges in px. */
export interface Plot {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

/** A grid line from (x1, y1) to (x2, y2) at tick value `t`: darker for the zero line. */
export function gridLine(x1: number, x2: number, y1: number, y2: number, t: number): string {
  return `<line x1="${c(x1)}" x2="${c(x2)}" y1="${c(y1)}" y2="${c(y2)}" stroke="${GRID(t)}"/>`;
}

export type MarkerKind = (typeof MARKERS)[number];

/** How series `k` is drawn: its colour, dash pattern and marker. */
export interface SeriesStyle {
  readonly colour: string;
  readonly dash: string;
  readonly marker: MarkerKind;
}

/** The style of the `k`th series: the palette, the dashes and the markers, each cycled. */
export function seriesStyle(k: number): SeriesStyle {
  return {
    colour: PALETTE[k % PALETTE.length] as string,
    dash: DASHES[k % DASHES.length] as string,
    marker: MARKERS[k % MARKERS.length] as MarkerKind,
  };
}

/** The stroke attributes of a series line in `style` (a line in the plot or the legend). */
export function seriesStroke(style: SeriesStyle): string {
  const dash = style.dash ? ` stroke-dasharray="${style.dash}"` : '';
  return `stroke="${style.colour}" stroke-width="2.2"${dash}`;
}

export function marker(kind: MarkerKind, x: number, y: number, colour: string): string {
  const paint = `fill="${colour}" stroke="#ffffff" stroke-width="1"`;
  if (kind === 'circle') return `<circle cx="${c(x)}" cy="${c(y)}" r="4" ${paint}/>`;
  if (kind === 'square')
    return `<rect x="${c(x - 3.5)}" y="${c(y - 3.5)}" width="7" height="7" ${paint}/>`;
  // biome-ignore format: two point lists
  const pts = kind === 'triangle' ? [[x, y - 5], [x + 4.5, y + 3.5], [x - 4.5, y + 3.5]] : [[x, y - 5], [x + 5, y], [x, y + 5], [x - 5, y]];
  return `<polygon points="${pts.map(([a, b]) => `${c(a ?? 0)},${c(b ?? 0)}`).join(' ')}" ${paint}/>`;
}

/** The svg root, title and subtitle; `body` goes after them. */
export function frame(
  w: number,
  h: number,
  title: string,
  subtitle: string,
  body: string[],
): string {
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
export function empty(title: string, subtitle: string, why: string): string {
  const text = label(440, 120, why, `${CENTRED} font-size="14"`);
  return frame(880, 200, title, subtitle, [`<g id="plot">${text}</g>`]);
}
