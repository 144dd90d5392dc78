/**
 * What one call costs a browser bundle: idforge against its peers, bundled in this run by
 * esbuild (bundle, minify, platform browser, ESM) and then gzipped (zlib level 9). Each entry
 * is the same two lines for both sides, `import { f } from '…'; console.log(f());`, so the
 * figures compare what `f` pulls in. idforge is bundled from its sources
 * (packages/idforge/src/core/index.ts, what `import … from 'idforge'` resolves to once built),
 * so no build step is needed; the peers from node_modules, as a user's bundler would. Goal
 * (issue 20): idforge at most 1.5× the peer's gzip size.
 *
 * `node --import ./scripts/dev-loader.mjs bench/peers/bundle.ts` prints this section alone;
 * `-- --analyze` adds esbuild's `analyzeMetafile` for each idforge entry (what is in the
 * bundle, by input file).
 */
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { analyzeMetafile, build } from 'esbuild';
import { table, verdict } from './report.js';

/** idforge's gzip size may be at most this multiple of the peer's. */
export const BUNDLE_GOAL = 1.5;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const IDFORGE = fileURLToPath(new URL('../../packages/idforge/src/core/index.ts', import.meta.url));

/** One side of a pair: a function imported by name from a module. */
interface Entry {
  readonly label: string;
  readonly from: string;
  readonly name: string;
}

interface Pair {
  readonly scheme: string;
  readonly idforge: Entry;
  readonly peer: Entry;
}

/** The pairs measured. `ksuid` (the npm package) is left out: it needs Node's crypto. */
export const BUNDLE_PAIRS: readonly Pair[] = [
  {
    scheme: 'UUIDv7',
    idforge: { label: 'idforge uuidv7', from: IDFORGE, name: 'uuidv7' },
    peer: { label: 'uuid v7', from: 'uuid', name: 'v7' },
  },
  {
    scheme: 'ULID',
    idforge: { label: 'idforge ulid', from: IDFORGE, name: 'ulid' },
    peer: { label: 'ulid ulid', from: 'ulid', name: 'ulid' },
  },
  {
    scheme: 'UUIDv4',
    idforge: { label: 'idforge uuidv4', from: IDFORGE, name: 'uuidv4' },
    peer: { label: 'uuid v4', from: 'uuid', name: 'v4' },
  },
];

/** The bundle of one entry: its minified bytes, their gzip size, and esbuild's metafile. */
export interface BundleSize {
  readonly minBytes: number;
  readonly gzipBytes: number;
  readonly code: string;
  readonly analysis: string;
}

/** Bundles `entry` for the browser and measures it. */
export async function bundleSize(entry: Entry): Promise<BundleSize> {
  const result = await build({
    stdin: {
      contents: `import { ${entry.name} } from ${JSON.stringify(entry.from)};\nconsole.log(${entry.name}());\n`,
      resolveDir: ROOT,
      sourcefile: 'entry.js',
      loader: 'js',
    },
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const file = result.outputFiles[0];
  if (file === undefined) throw new Error(`esbuild wrote no output for ${entry.label}`);
  return {
    minBytes: file.contents.length,
    gzipBytes: gzipSync(file.contents, { level: 9 }).length,
    code: file.text,
    analysis: await analyzeMetafile(result.metafile),
  };
}

/** One measured pair. */
export interface BundleRow {
  readonly scheme: string;
  readonly idforge: BundleSize;
  readonly peer: BundleSize;
  /** idforge's gzip bytes over the peer's. */
  readonly ratio: number;
  readonly pass: boolean;
}

export async function measureBundles(pairs: readonly Pair[] = BUNDLE_PAIRS): Promise<BundleRow[]> {
  const rows: BundleRow[] = [];
  for (const pair of pairs) {
    const idforge = await bundleSize(pair.idforge);
    const peer = await bundleSize(pair.peer);
    const ratio = idforge.gzipBytes / peer.gzipBytes;
    rows.push({ scheme: pair.scheme, idforge, peer, ratio, pass: ratio <= BUNDLE_GOAL });
  }
  return rows;
}

const bytes = (n: number): string => n.toLocaleString('en-US');

/** The section's table and, per pair, whether the goal was met. */
export async function bundleSection(
  pairs: readonly Pair[] = BUNDLE_PAIRS,
): Promise<{ text: string; rows: BundleRow[] }> {
  const rows = await measureBundles(pairs);
  const cells = rows.map((r, i) => {
    const pair = pairs[i]!;
    return [
      `${pair.idforge.label} vs ${pair.peer.label}`,
      bytes(r.idforge.minBytes),
      bytes(r.peer.minBytes),
      bytes(r.idforge.gzipBytes),
      bytes(r.peer.gzipBytes),
      `${r.ratio.toFixed(2)}×`,
      verdict(r.pass),
    ];
  });
  const headers = [
    'pair',
    'idforge min B',
    'peer min B',
    'idforge gzip B',
    'peer gzip B',
    'ratio (gzip)',
    `≤ ${BUNDLE_GOAL}×`,
  ];
  return { text: table(headers, cells), rows };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { text, rows } = await bundleSection();
  console.log(text);
  if (process.argv.includes('--analyze')) {
    for (const [i, row] of rows.entries()) {
      console.log(`\n${BUNDLE_PAIRS[i]!.idforge.label}:${row.idforge.analysis}`);
    }
  }
}
