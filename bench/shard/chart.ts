/**
 * The bar chart of the partition demonstration: inserts per partition, unsalted beside salted.
 * A self-contained SVG 1.1 document (xmlns, viewBox, system sans-serif, text XML-escaped, no
 * script, nothing external), in the colours of idforge's bench charts (Okabe–Ito), with a
 * hatch on the salted bars so the two read apart in grey too.
 */
import type { PartitionDemoResult } from './partition.js';

const FONT = "system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', Helvetica, Arial, sans-serif";
const INK = '#1f2328';
const MUTED = '#57606a';
const UNSALTED = '#D55E00';
const SALTED = '#0072B2';

const escapeXml = (t: string) =>
  t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const n = (x: number) => String(Math.round(x * 10) / 10);
const count = (x: number) => x.toLocaleString('en-US');

/** Round ticks from 0 to at least `max` (steps of 1, 2 or 5 × 10^k, about 5 of them). */
function ticks(max: number): number[] {
  const top = max > 0 ? max : 1;
  const raw = top / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  return Array.from({ length: Math.ceil(top / step) + 1 }, (_, i) => i * step);
}

function perPartition(buckets: number, partitions: number): string {
  const lo = Math.floor(buckets / partitions);
  return buckets % partitions === 0 ? String(lo) : `${lo} or ${lo + 1}`;
}

/** The SVG text of the chart. */
export function partitionChartSvg(r: PartitionDemoResult): string {
  const P = r.partitions;
  const W = 760;
  const H = 420;
  const left = 80;
  const right = 20;
  const top = 70;
  const bottom = 70;
  const plotW = W - left - right;
  const plotH = H - top - bottom;
  const all = [...r.unsalted.partitions, ...r.salted.partitions].map((p) => p.inserts);
  const ys = ticks(Math.max(...all));
  const yMax = ys[ys.length - 1]!;
  const y = (v: number) => top + plotH - (v / yMax) * plotH;
  const group = plotW / P;
  const bar = Math.min(28, (group * 0.8) / 2);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="${escapeXml(FONT)}" font-size="12">`,
    `<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="${SALTED}"/><line x1="0" y1="0" x2="0" y2="6" stroke="#ffffff" stroke-width="2" stroke-opacity="0.45"/></pattern></defs>`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${left}" y="24" font-size="16" font-weight="600" fill="${INK}">${escapeXml(`Inserts per partition: ${count(r.rows)} time-ordered IDs, ${P} range partitions`)}</text>`,
    `<text x="${left}" y="44" fill="${MUTED}">${escapeXml(`unsalted max/mean ${r.unsalted.maxOverMean.toFixed(2)} · salted (${r.buckets} buckets) max/mean ${r.salted.maxOverMean.toFixed(2)} · from pg_stat_user_tables.n_tup_ins`)}</text>`,
  ];
  for (const t of ys) {
    out.push(
      `<line x1="${left}" x2="${W - right}" y1="${n(y(t))}" y2="${n(y(t))}" stroke="${t === 0 ? '#8c959f' : '#d8dee4'}"/>`,
      `<text x="${left - 8}" y="${n(y(t) + 4)}" text-anchor="end" fill="${MUTED}">${count(t)}</text>`,
    );
  }
  for (let k = 0; k < P; k++) {
    const cx = left + group * (k + 0.5);
    const u = r.unsalted.partitions[k]!.inserts;
    const s = r.salted.partitions[k]!.inserts;
    out.push(
      `<rect x="${n(cx - bar)}" y="${n(y(u))}" width="${n(bar)}" height="${n(y(0) - y(u))}" fill="${UNSALTED}"><title>unsalted p${k}: ${count(u)}</title></rect>`,
      `<rect x="${n(cx)}" y="${n(y(s))}" width="${n(bar)}" height="${n(y(0) - y(s))}" fill="url(#hatch)"><title>salted p${k}: ${count(s)}</title></rect>`,
      `<text x="${n(cx)}" y="${n(y(0) + 18)}" text-anchor="middle" fill="${MUTED}">p${k}</text>`,
    );
  }
  out.push(
    `<text x="${n(left + plotW / 2)}" y="${H - 32}" text-anchor="middle" fill="${MUTED}">partition (unsalted: key-space ranges, the last holds "now"; salted: ${perPartition(r.buckets, P)} buckets each)</text>`,
    `<text transform="translate(18 ${n(top + plotH / 2)}) rotate(-90)" text-anchor="middle" fill="${MUTED}">rows inserted</text>`,
    `<rect x="${left}" y="${H - 20}" width="12" height="12" fill="${UNSALTED}"/>`,
    `<text x="${left + 18}" y="${H - 10}" fill="${INK}">unsalted: PARTITION BY RANGE (id)</text>`,
    `<rect x="${left + 260}" y="${H - 20}" width="12" height="12" fill="url(#hatch)"/>`,
    `<text x="${left + 278}" y="${H - 10}" fill="${INK}">salted: PARTITION BY RANGE (bucket, id)</text>`,
    '</svg>',
  );
  return `${out.join('\n')}\n`;
}
