// report.md, the two SVG charts and writeReport over hand-made reports (fixture.ts): the
// ratio columns and baseline, engine columns only when measured, "–" for null, escaped pipes;
// charts well-formed with one series per scheme and no NaN/undefined/Infinity; the four files
// written as a set, and a failure part-way leaves no new report.json.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { niceTicks, rateChartSvg, sizeChartSvg } from '../../packages/idforge/src/bench/charts.js';
import type { DbBenchReport } from '../../packages/idforge/src/bench/report.js';
import { formatNumber, renderReportMarkdown } from '../../packages/idforge/src/bench/report-md.js';
import { writeReport } from '../../packages/idforge/src/bench/write-report.js';
import { tempDir } from '../helpers/temp.js';
import {
  assertWellFormedXml,
  reportFixture,
  schemeFixture,
  sizelessFixture,
  zeroRateFixture,
} from './fixture.js';

/** The cells of the Markdown table row starting with `| first |`. */
function rowOf(md: string, first: string): string[] {
  const line = md.split('\n').find((l) => l.startsWith(`| ${first} |`));
  assert.ok(line, `a row for ${first}`);
  return line
    .slice(2, -2)
    .split(/(?<!\\) \| /)
    .map((s) => s.trim());
}

function noJunk(text: string): void {
  for (const bad of ['NaN', 'undefined', 'Infinity', 'null', '[object']) {
    assert.ok(!text.includes(bad), `output has no ${bad}`);
  }
}

function mysqlFixture(): DbBenchReport {
  const r = reportFixture(['uuidv7', 'uuidv4'], { engine: 'mysql', server: 'MySQL 8.4.2' });
  const innodb = {
    walBytes: null,
    fullPageImages: null,
    redoBytes: 310_000_000,
    pageSplits: 4_321,
  };
  return {
    ...r,
    schemes: r.schemes.map((s) => ({ ...s, ...innodb, secondaryIndexBytes: null, pageMerges: 12 })),
  };
}

describe('renderReportMarkdown', () => {
  const md = renderReportMarkdown(reportFixture());

  test('the title names engine, server, rows and date; the regime and settings follow', () => {
    const first = md.split('\n')[0];
    assert.equal(
      first,
      '# idforge bench db: postgres, PostgreSQL 16.4 (Debian 16.4-1.pgdg120+1), 1,000,000 rows, 2025-03-01',
    );
    assert.match(md, /^\*\*Regime:\*\* primary indexes fit in shared_buffers/m);
    assert.deepEqual(rowOf(md, 'shared_buffers'), ['shared_buffers', '128MB']);
  });

  test('one row per scheme with rates, sizes and ratios to bigint', () => {
    assert.match(md, /Ratios \(×\) are to the baseline `bigint`\./);
    const head = rowOf(md, 'scheme');
    for (const h of ['rows/s ×', 'table ×', 'primary ×', 'secondary ×', 'leaf density %']) {
      assert.ok(head.includes(h), `column ${h}`);
    }
    const cell = (scheme: string, h: string) => rowOf(md, scheme)[head.indexOf(h)];
    assert.equal(cell('bigint', 'rows/s ×'), '1.00×');
    const v4 = schemeFixture('uuidv4');
    const big = schemeFixture('bigint');
    assert.equal(cell('uuidv4', 'rows/s'), formatNumber(v4.rowsPerSecond));
    assert.equal(
      cell('uuidv4', 'rows/s ×'),
      `${(v4.rowsPerSecond / big.rowsPerSecond).toFixed(2)}×`,
    );
    assert.equal(cell('uuidv4', 'primary index MB'), '38.1'); // 40,000,000 bytes in MB of 2^20
    assert.equal(cell('uuidv4', 'primary ×'), '2.22×');
    assert.equal(cell('uuidv4', 'leaf density %'), '68.0');
    assert.equal(cell('uuidv4', 'order inversions'), '499,812');
    assert.equal(cell('uuidv4', 'full-page images'), '91,000');
    assert.equal(
      md.split('\n').filter((l) => /^\| (bigint|uuid|ulid|seq|snow)/.test(l)).length,
      18,
    );
    noJunk(md);
  });

  test('engine columns show only when some scheme has a value', () => {
    const head = rowOf(md, 'scheme');
    assert.ok(head.includes('WAL MB') && head.includes('full-page images'));
    for (const h of [
      'redo MB',
      'page splits',
      'page merges',
      'pages read',
      'write amplification',
    ]) {
      assert.ok(!head.includes(h), `no ${h} column for postgres`);
    }
    const my = renderReportMarkdown(mysqlFixture());
    const myHead = rowOf(my, 'scheme');
    assert.ok(myHead.includes('redo MB') && myHead.includes('page splits'));
    assert.ok(!myHead.includes('WAL MB') && !myHead.includes('full-page images'));
    assert.equal(rowOf(my, 'uuidv4')[myHead.indexOf('page splits')], '4,321');
  });

  test('null prints as an en dash, and the baseline is the first scheme without bigint', () => {
    const my = renderReportMarkdown(mysqlFixture());
    const head = rowOf(my, 'scheme');
    assert.equal(rowOf(my, 'uuidv4')[head.indexOf('secondary index MB')], '–');
    assert.equal(rowOf(my, 'uuidv4')[head.indexOf('secondary ×')], '–');
    assert.match(my, /baseline `uuidv7` \(the first scheme: this run has no `bigint` table\)/);
    assert.equal(rowOf(my, 'uuidv7')[head.indexOf('rows/s ×')], '1.00×');
    const odd = renderReportMarkdown({
      ...reportFixture(['bigint']),
      cacheBytes: null,
      schemes: [schemeFixture('bigint', { loadSeconds: Number.NaN, rowsPerSecondByTenth: [] })],
    });
    assert.match(odd, /- Cache: –/);
    assert.equal(rowOf(odd, 'bigint')[2], '–');
    noJunk(odd);
  });

  test('pipes in cells are escaped; the tenth table and chart links are there', () => {
    const r = reportFixture(['bigint', 'uuidv4'], { settings: { 'a|b': 'x | y' } });
    const piped = renderReportMarkdown({
      ...r,
      schemes: r.schemes.map((s) => ({ ...s, storage: 'CHAR(36) | utf8mb4' })),
    });
    assert.ok(piped.includes('| a\\|b | x \\| y |'));
    assert.ok(piped.includes('| uuidv4 | CHAR(36) \\| utf8mb4 |'));
    // biome-ignore format: the column heads on two lines
    const heads = ['scheme', 'storage', 'load s', 'rows/s', 'rows/s ×', 'table MB', 'primary index MB',
      'secondary index MB', 'table ×', 'primary ×', 'secondary ×'];
    assert.deepEqual(rowOf(md, 'scheme').slice(0, heads.length), heads);
    const byTenth =
      md
        .split('\n')
        .filter((l) => l.startsWith('| bigint |'))[1]
        ?.split(' | ') ?? [];
    assert.equal(byTenth.length, 12, 'scheme, ten tenths, last ÷ first');
    assert.match(byTenth[11] ?? '', /^0\.\d\d× \|$/);
    assert.ok(md.includes('| scheme | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | last ÷ first |'));
    assert.ok(md.includes('](rate-by-tenth.svg)') && md.includes('](sizes.svg)'));
  });

  test('misuse is a TypeError', () => {
    assert.throws(() => renderReportMarkdown(null as never), /expected a DbBenchReport.*got null/);
    assert.throws(() => rateChartSvg({} as never), TypeError);
  });
});

describe('charts', () => {
  const cases: [string, DbBenchReport][] = [
    ['nine schemes', reportFixture()],
    ['one scheme', reportFixture(['uuidv7'])],
    ['no sizes', sizelessFixture()],
    ['zero rates', zeroRateFixture()],
    ['mysql', mysqlFixture()],
    ['no schemes', reportFixture([])],
  ];
  for (const [name, r] of cases) {
    test(`${name}: well-formed SVG with one series per scheme and no junk`, () => {
      for (const svg of [rateChartSvg(r), sizeChartSvg(r)]) {
        assertWellFormedXml(svg);
        assert.match(
          svg,
          /<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" version="1\.1" width="\d+" height="\d+" viewBox="0 0 \d+ \d+"/,
        );
        assert.ok(!/<script|href=|url\((?!#)/i.test(svg), 'no scripts or external resources');
        noJunk(svg);
      }
      const rate = rateChartSvg(r);
      const count = (svg: string, what: string) => svg.split(what).length - 1;
      assert.equal(count(rate, '<g class="series"'), r.schemes.length === 0 ? 0 : r.schemes.length);
      assert.equal(count(rate, '<g class="legend-entry"'), r.schemes.length);
      for (const s of r.schemes) assert.ok(rate.includes(`data-scheme="${s.scheme}"`));
      assert.ok(rate.includes(`${r.engine}, ${formatNumber(r.rows)} rows`), 'title');
      const sizes = sizeChartSvg(r);
      const hasSizes = name !== 'no sizes' && name !== 'no schemes';
      assert.equal(count(sizes, '<g class="scheme"'), hasSizes ? r.schemes.length : 0);
      if (name === 'no sizes') assert.ok(sizes.includes('no size figures'));
      if (name === 'zero rates') assert.ok(rate.includes('every rate is 0 rows/s'));
    });
  }

  test('mysql leaves out the kind no scheme has; text is escaped', () => {
    const sizes = sizeChartSvg(mysqlFixture());
    assert.equal(sizes.split('<g class="legend-entry"').length - 1, 2);
    const r = reportFixture(['bigint'], { server: 'A <b> & "c" \u0001' });
    for (const svg of [rateChartSvg(r), sizeChartSvg(r)]) {
      assertWellFormedXml(svg);
      assert.ok(svg.includes('A &lt;b&gt; &amp; &quot;c&quot;'));
    }
  });

  test('ticks are round and cover the maximum', () => {
    assert.deepEqual(niceTicks(118_000), [0, 25_000, 50_000, 75_000, 100_000, 125_000]);
    assert.deepEqual(niceTicks(0), [0, 0.2, 0.4, 0.6, 0.8, 1]);
    assert.deepEqual(niceTicks(100), [0, 20, 40, 60, 80, 100]);
    assert.deepEqual(niceTicks(7.3), [0, 2, 4, 6, 8]);
  });
});

describe('writeReport', () => {
  const report = reportFixture();

  test('writes the four files into a new directory, parents too', async (t) => {
    const { dir: root, remove } = tempDir('idforge-report-');
    t.after(remove);
    const dir = join(root, 'runs', 'one');
    const paths = await writeReport(dir, report);
    assert.deepEqual(
      paths,
      ['report.json', 'report.md', 'rate-by-tenth.svg', 'sizes.svg'].map((n) => join(dir, n)),
    );
    assert.equal(
      readFileSync(join(dir, 'report.json'), 'utf8'),
      `${JSON.stringify(report, null, 2)}\n`,
    );
    assert.equal(readFileSync(join(dir, 'report.md'), 'utf8'), renderReportMarkdown(report));
    assert.equal(readFileSync(join(dir, 'sizes.svg'), 'utf8'), sizeChartSvg(report));
    assert.deepEqual(readdirSync(join(root, 'runs')), ['one'], 'no temporary directory left');
  });

  test('replaces the files of an existing directory and keeps other files', async (t) => {
    const { dir: root, remove } = tempDir('idforge-report-');
    t.after(remove);
    writeFileSync(join(root, 'report.json'), 'old\n');
    writeFileSync(join(root, 'notes.txt'), 'mine\n');
    await writeReport(root, report);
    assert.deepEqual(JSON.parse(readFileSync(join(root, 'report.json'), 'utf8')), report);
    assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'mine\n');
  });

  test('a target that is a file: rejected, nothing left behind', async (t) => {
    const { dir: root, remove } = tempDir('idforge-report-');
    t.after(remove);
    writeFileSync(join(root, 'out'), 'a file');
    await assert.rejects(writeReport(join(root, 'out'), report), {
      code: 'IDF_BENCH_REPORT_WRITE',
      message: /out \(ENOTDIR: a file is there, not a folder\)/,
    });
    await assert.rejects(writeReport(join(root, 'out', 'sub'), report), /ENOTDIR|EEXIST/);
    assert.deepEqual(readdirSync(root), ['out']);
  });

  test('a move failing part-way leaves the old report.json, or none, and no temp dir', async (t) => {
    const { dir: root, remove } = tempDir('idforge-report-');
    t.after(remove);
    for (const old of [true, false]) {
      const dir = join(root, old ? 'with-old' : 'fresh');
      // sizes.svg is a non-empty directory: renaming a file over it fails after the first
      // two files have moved, before report.json.
      mkdirSync(join(dir, 'sizes.svg'), { recursive: true });
      writeFileSync(join(dir, 'sizes.svg', 'x'), '');
      if (old) writeFileSync(join(dir, 'report.json'), 'old\n');
      await assert.rejects(writeReport(dir, report), /EISDIR|ENOTEMPTY|EEXIST|EPERM/);
      const left = readdirSync(dir).sort();
      if (old) assert.equal(readFileSync(join(dir, 'report.json'), 'utf8'), 'old\n');
      else assert.ok(!left.includes('report.json'), `no report.json in ${left.join(', ')}`);
    }
    assert.deepEqual(
      readdirSync(root).sort(),
      ['fresh', 'with-old'],
      'no temporary directory left',
    );
  });

  test('misuse is a TypeError', async () => {
    await assert.rejects(writeReport('', report), /expected a directory path, got an empty string/);
    await assert.rejects(writeReport(tmpdir(), [] as never), TypeError);
  });
});
