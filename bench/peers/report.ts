/**
 * Formatting of the result tables. Tables are Markdown so they paste as they are into
 * docs/benchmarks.md.
 */

import { median, ns } from './numbers.js';
import type { Comparison } from './speed.js';

/** A Markdown table with padded columns; numeric-looking cells are right-aligned. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map(
    (_, i) => rows.length > 0 && rows.every((r) => isNumeric(r[i] ?? '')),
  );
  const line = (cells: readonly string[]): string =>
    `| ${widths
      .map((w, i) => {
        const cell = cells[i] ?? '';
        return numeric[i] ? cell.padStart(w) : cell.padEnd(w);
      })
      .join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (numeric[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

function isNumeric(cell: string): boolean {
  return /^[-+]?[\d,.]+(?:\s?(?:%|×|ns|ms))?$/.test(cell) || cell === '—';
}

/** A section heading followed by a blank line. */
export function heading(title: string): string {
  return `\n### ${title}\n`;
}

/** A count with thousands separators. */
export function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** A percentage with the given number of decimals. */
export function percent(value: number, decimals = 1): string {
  return `${(value * 100).toFixed(decimals)} %`;
}

/** A speed ratio such as `2.41×`. */
export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : '—';
}

/** PASS or MISS with what was required. */
export function verdict(pass: boolean): string {
  return pass ? 'PASS' : 'MISS';
}

/** A speed goal's outcome. */
export interface Verdict {
  readonly scheme: string;
  readonly pass: boolean;
  readonly detail: string;
}

/** The summary of section 1: idforge against the fastest peer of each scheme, with the goals. */
export function summaryTable(
  comparisons: readonly Comparison[],
  results: ReadonlyMap<string, number>,
): { text: string; verdicts: Verdict[] } {
  const time = (name: string): number => {
    const t = results.get(name);
    if (t === undefined) throw new Error(`no speed result for ${name}`);
    return t;
  };
  const verdicts: Verdict[] = [];
  const rows = comparisons.map((c) => {
    const mine = time(c.idforge);
    const fastest = [...c.peers].sort((a, b) => time(a) - time(b))[0];
    if (fastest === undefined) throw new Error(`no peer for ${c.scheme}`);
    let goal = '—';
    if (c.goal !== undefined) {
      const reference = c.goal.reference ?? fastest;
      const r = time(reference) / mine;
      const pass = r >= c.goal.minRatio;
      const against = c.goal.reference === undefined ? 'fastest peer' : reference;
      goal = `≥ ${ratio(c.goal.minRatio)} vs ${against}: ${ratio(r)} ${verdict(pass)}`;
      verdicts.push({ scheme: c.scheme, pass, detail: `${ratio(r)} vs ${reference}` });
    }
    return [
      c.scheme,
      ns(mine),
      fastest,
      ns(time(fastest)),
      ratio(time(fastest) / mine),
      goal,
      c.note ?? '',
    ];
  });
  const headers = [
    'scheme',
    'idforge ns/op',
    'fastest peer',
    'peer ns/op',
    'ratio',
    'goal',
    'note',
  ];
  return { text: table(headers, rows), verdicts };
}

/** Every round of every case, and the median the summary uses. */
export function roundsTable(results: ReadonlyMap<string, readonly number[]>): string {
  const rounds = Math.max(...[...results.values()].map((r) => r.length));
  const rows = [...results].map(([name, xs]) => [
    name,
    ...Array.from({ length: rounds }, (_, i) => ns(xs[i] ?? Number.NaN)),
    ns(median(xs)),
  ]);
  const headers = Array.from({ length: rounds }, (_, i) => `round ${i + 1}`);
  return table(['case (ns/op)', ...headers, 'median'], rows);
}
