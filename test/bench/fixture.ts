// Hand-made reports of `idforge bench db` for the report tests, and a small XML
// well-formedness check for the SVGs (no XML parser in Node's standard library).
import {
  BENCH_SCHEMES,
  type DbBenchReport,
  type SchemeResult,
} from '../../packages/idforge/src/bench/report.js';

const STORAGE: Record<string, string> = {
  bigint: 'bigint identity',
  sequence: 'bigint',
  snowflake: 'bigint',
  'uuidv4-text': 'text',
  'uuidv7-text': 'text',
};

/** One scheme's figures on PostgreSQL: keys wider and less ordered cost more, as they do. */
export function schemeFixture(
  scheme: SchemeResult['scheme'],
  overrides: Partial<SchemeResult> = {},
): SchemeResult {
  const i = BENCH_SCHEMES.indexOf(scheme);
  const random = scheme.startsWith('uuidv4');
  const text = scheme.endsWith('-text');
  const rows = 1_000_000;
  const rate = Math.round((random ? 61_000 : 118_000) * (text ? 0.8 : 1) - i * 1_500);
  const fall = random ? 0.07 : 0.005;
  return {
    scheme,
    storage: STORAGE[scheme] ?? 'uuid',
    table: `bench_${scheme.replace(/-/g, '_')}`,
    rows,
    loadSeconds: rows / rate,
    rowsPerSecond: rate,
    rowsPerSecondByTenth: Array.from({ length: 10 }, (_, t) =>
      Math.round(rate * (1.15 - fall * t) + ((t * 7919 + i * 104729) % 2000)),
    ),
    tableBytes: (text ? 81 : 65) * 1_000_000 + i * 123_456,
    primaryIndexBytes: (random ? 40 : 22.5) * (text ? 2.1 : i < 3 ? 0.8 : 1) * 1_000_000,
    secondaryIndexBytes: 22_487_040,
    primaryLeafDensity: random ? 0.68 : 0.9,
    primaryLeafFragmentation: random ? 0.49 : 0,
    primaryLeafPages: random ? 4_900 : 2_740,
    walBytes: (random ? 620 : 210) * 1_000_000,
    fullPageImages: random ? 91_000 : 140,
    redoBytes: null,
    pageSplits: null,
    pageMerges: null,
    pagesRead: null,
    pagesWritten: null,
    bytesIngested: null,
    compactionBytesWritten: null,
    writeAmplification: null,
    filesPerLevel: null,
    orderInversions: random ? 499_812 : 0,
    ...overrides,
  };
}

/** A PostgreSQL report with the given schemes (all nine by default). */
export function reportFixture(
  schemes: readonly SchemeResult['scheme'][] = BENCH_SCHEMES,
  overrides: Partial<DbBenchReport> = {},
): DbBenchReport {
  return {
    format: 'idforge.bench-db/1',
    idforgeVersion: '0.1.0',
    startedAt: '2025-03-01T10:00:00.000Z',
    finishedAt: '2025-03-01T10:04:12.500Z',
    engine: 'postgres',
    address: 'postgres://bench:***@127.0.0.1:5432/bench',
    server: 'PostgreSQL 16.4 (Debian 16.4-1.pgdg120+1)',
    settings: { shared_buffers: '128MB', wal_level: 'replica', full_page_writes: 'on' },
    cacheBytes: 134_217_728,
    regime: 'primary indexes fit in shared_buffers (128 MB): the ratios are for a warm cache',
    rows: 1_000_000,
    batch: 1_000,
    schemes: schemes.map((s) => schemeFixture(s)),
    ...overrides,
  };
}

/** The fixture with every size figure null. */
export function sizelessFixture(): DbBenchReport {
  const r = reportFixture(['bigint', 'uuidv7', 'uuidv4']);
  const none = { tableBytes: null, primaryIndexBytes: null, secondaryIndexBytes: null };
  return { ...r, schemes: r.schemes.map((s) => ({ ...s, ...none })) };
}

/** The fixture with every rate 0 (a load that measured nothing). */
export function zeroRateFixture(): DbBenchReport {
  const r = reportFixture(['bigint', 'uuidv7']);
  return {
    ...r,
    schemes: r.schemes.map((s) => ({
      ...s,
      rowsPerSecond: 0,
      rowsPerSecondByTenth: s.rowsPerSecondByTenth.map(() => 0),
    })),
  };
}

/**
 * Throws unless `xml` is well-formed in the subset the charts use: an optional XML declaration,
 * one root element, matched and properly nested tags, quoted attributes without "<" or a bare
 * "&", unique attribute names per tag, and text whose "&" start only the five named entities or
 * a character reference. Comments, CDATA and DOCTYPE are refused (the charts have none).
 */
export function assertWellFormedXml(xml: string): void {
  const name = /^[A-Za-z_][\w.:-]*/;
  const entity = /^&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/;
  const fail = (why: string, at: number): never => {
    throw new Error(
      `not well-formed XML at ${at} (${why}): ${JSON.stringify(xml.slice(at, at + 60))}`,
    );
  };
  let i = 0;
  if (xml.startsWith('<?xml')) {
    i = xml.indexOf('?>');
    if (i < 0) fail('unclosed declaration', 0);
    i += 2;
  }
  const stack: string[] = [];
  let roots = 0;
  while (i < xml.length) {
    const ch = xml[i];
    if (ch !== '<') {
      if (ch === '&' && !entity.test(xml.slice(i, i + 12))) fail('bare &', i);
      if (ch === '>') fail('bare >', i);
      if (stack.length === 0 && !/\s/.test(ch ?? '')) fail('text outside the root', i);
      i += 1;
      continue;
    }
    if (xml.startsWith('</', i)) {
      const m = name.exec(xml.slice(i + 2));
      const close = xml.indexOf('>', i);
      if (!m || close < 0 || xml.slice(i + 2 + m[0].length, close).trim() !== '')
        fail('bad end tag', i);
      if (stack.pop() !== m?.[0]) fail(`end tag ${m?.[0]} does not match`, i);
      i = close + 1;
      continue;
    }
    const m = name.exec(xml.slice(i + 1));
    if (!m) fail('bad tag name', i);
    if (stack.length === 0 && ++roots > 1) fail('second root element', i);
    let j = i + 1 + (m?.[0].length ?? 0);
    const seen = new Set<string>();
    for (;;) {
      while (/\s/.test(xml[j] ?? '')) j += 1;
      if (xml.startsWith('/>', j)) {
        j += 2;
        break;
      }
      if (xml[j] === '>') {
        stack.push(m?.[0] ?? '');
        j += 1;
        break;
      }
      const a = /^([A-Za-z_][\w.:-]*)\s*=\s*(["'])/.exec(xml.slice(j));
      if (!a) fail('bad attribute', j);
      const attr = a?.[1] ?? '';
      if (seen.has(attr)) fail(`duplicate attribute ${attr}`, j);
      seen.add(attr);
      const q = a?.[2] ?? '"';
      const start = j + (a?.[0].length ?? 0);
      const end = xml.indexOf(q, start);
      if (end < 0) fail('unclosed attribute', j);
      const value = xml.slice(start, end);
      if (value.includes('<')) fail('< in attribute', j);
      for (let k = value.indexOf('&'); k >= 0; k = value.indexOf('&', k + 1)) {
        if (!entity.test(value.slice(k, k + 12))) fail('bare & in attribute', start + k);
      }
      j = end + 1;
    }
    i = j;
  }
  if (stack.length > 0) fail(`unclosed <${stack[stack.length - 1]}>`, xml.length);
  if (roots !== 1) fail('no root element', 0);
}
