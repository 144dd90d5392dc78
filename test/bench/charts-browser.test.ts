// The charts of `idforge bench db` as a person sees them, in Debian's headless Chromium: each
// SVG that writeReport wrote is opened from its file and must parse as SVG, draw a non-empty
// plot, show one legend entry per scheme (rate chart) and one bar group per scheme (sizes),
// keep every label inside the picture and off every other label, and log no errors. A PNG
// screenshot of each goes to a temporary directory (kept, and its path printed, when
// IDFORGE_KEEP_SCREENSHOTS=1).
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { DbBenchReport } from '../../packages/idforge/src/bench/report.js';
import { writeReport } from '../../packages/idforge/src/bench/write-report.js';
import { browserSkip, launchChromium, watchPage } from '../helpers/browser.js';
import { tempDir } from '../helpers/temp.js';
import { reportFixture, sizelessFixture, zeroRateFixture } from './fixture.js';

const skip = browserSkip();

/** What the page says of the SVG it shows. */
interface Seen {
  root: string;
  ns: string;
  parseError: boolean;
  plot: { width: number; height: number };
  legend: number;
  groups: number;
  outside: string[];
  overlaps: string[];
}

/** Reads the open SVG document (runs in the page: no helpers of this module). */
function inspect(groupSelector: string): Seen {
  const svg = document.documentElement as unknown as SVGSVGElement;
  const text = new XMLSerializer().serializeToString(document);
  const parsed = new DOMParser().parseFromString(text, 'image/svg+xml');
  const plot = document.getElementById('plot') as unknown as SVGGraphicsElement | null;
  const box = plot?.getBBox() ?? { width: 0, height: 0 };
  const view = svg.getBoundingClientRect();
  const labels = Array.from(document.querySelectorAll('text')).map((t) => ({
    text: t.textContent ?? '',
    r: t.getBoundingClientRect(),
  }));
  const outside = labels
    .filter(
      ({ r }) =>
        r.left < view.left - 0.5 ||
        r.right > view.right + 0.5 ||
        r.top < view.top - 0.5 ||
        r.bottom > view.bottom + 0.5,
    )
    .map((l) => l.text);
  const overlaps: string[] = [];
  labels.forEach((a, i) => {
    for (const b of labels.slice(i + 1)) {
      const w = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
      const h = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (w > 1 && h > 1) overlaps.push(`"${a.text}" × "${b.text}"`);
    }
  });
  return {
    root: svg.localName,
    ns: svg.namespaceURI ?? '',
    parseError: parsed.getElementsByTagName('parsererror').length > 0,
    plot: { width: box.width, height: box.height },
    legend: document.querySelectorAll('.legend-entry').length,
    groups: document.querySelectorAll(groupSelector).length,
    outside,
    overlaps,
  };
}

const cases: [string, DbBenchReport][] = [
  ['postgres-9', reportFixture()],
  ['one-scheme', reportFixture(['uuidv7'])],
  ['no-sizes', sizelessFixture()],
  ['zero-rates', zeroRateFixture()],
];

test('the charts render in Chromium, readable and one series per scheme', {
  skip,
  timeout: 120_000,
}, async (t) => {
  const { dir: root, remove: removeRoot } = tempDir('idforge-charts-');
  const keep = process.env.IDFORGE_KEEP_SCREENSHOTS === '1';
  const browser = await launchChromium();
  try {
    for (const [name, report] of cases) {
      const dir = join(root, name);
      await writeReport(dir, report);
      const charts: [string, string, number, number][] = [
        // file, bar/series selector, legend entries expected, groups expected
        ['rate-by-tenth.svg', '#plot .series', report.schemes.length, report.schemes.length],
        [
          'sizes.svg',
          '#plot .scheme',
          name === 'no-sizes' ? 0 : 3,
          name === 'no-sizes' ? 0 : report.schemes.length,
        ],
      ];
      for (const [file, selector, legend, groups] of charts) {
        const what = `${name}/${file}`;
        const svg = readFileSync(join(dir, file), 'utf8');
        const [, w, h] = /width="(\d+)" height="(\d+)"/.exec(svg) ?? [];
        const page = await browser.newPage({ viewport: { width: Number(w), height: Number(h) } });
        const problems = watchPage(page);
        const response = await page.goto(pathToFileURL(join(dir, file)).href);
        assert.ok(response === null || response.ok(), `${what} loads`);
        const seen = await page.evaluate(inspect, selector);
        assert.equal(seen.root, 'svg', `${what}: the root element`);
        assert.equal(seen.ns, 'http://www.w3.org/2000/svg', `${what}: the SVG namespace`);
        assert.equal(seen.parseError, false, `${what} parses as SVG`);
        assert.ok(seen.plot.width > 0 && seen.plot.height > 0, `${what}: the plot has a size`);
        assert.equal(seen.legend, legend, `${what}: legend entries`);
        assert.equal(seen.groups, groups, `${what}: one series per scheme`);
        assert.deepEqual(seen.outside, [], `${what}: labels inside the picture`);
        assert.deepEqual(seen.overlaps, [], `${what}: labels do not overlap`);

        const png = join(dir, file.replace(/\.svg$/, '.png'));
        await page.screenshot({ path: png });
        const bytes = readFileSync(png);
        assert.deepEqual(
          [...bytes.subarray(0, 8)],
          [137, 80, 78, 71, 13, 10, 26, 10],
          `${what}: a PNG`,
        );
        assert.ok(
          statSync(png).size > 4_000,
          `${what}: the PNG has content (${bytes.length} bytes)`,
        );
        assert.deepEqual(problems.errors, [], `${what}: no page errors`);
        await page.close();
      }
    }
    if (keep) t.diagnostic(`screenshots kept in ${root}`);
  } finally {
    await browser.close();
    if (!keep) removeRoot();
  }
});
