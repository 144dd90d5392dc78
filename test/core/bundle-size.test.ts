// What one call costs a browser bundle (issue 20): the measure of bench/peers/bundle.ts
// (esbuild, minified, gzip -9, against the peer in the same run), held as a test so that a
// change pulling more into uuidv7(), ulid() or uuidv4() shows here and not only in the bench.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_GOAL, BUNDLE_PAIRS, bundleSize } from '../../bench/peers/bundle.js';

const IDFORGE = fileURLToPath(new URL('../../packages/idforge/src/core/index.ts', import.meta.url));

const pair = (scheme: string) => {
  const p = BUNDLE_PAIRS.find((x) => x.scheme === scheme);
  assert.ok(p, scheme);
  return p;
};

async function ratio(scheme: string) {
  const p = pair(scheme);
  const [idforge, peer] = await Promise.all([bundleSize(p.idforge), bundleSize(p.peer)]);
  return { idforge, peer, ratio: idforge.gzipBytes / peer.gzipBytes };
}

test('importing idforge and using nothing bundles to nothing: no top-level side effect is kept', async () => {
  const result = await build({
    stdin: {
      contents: `import ${JSON.stringify(IDFORGE)};`,
      loader: 'js',
      resolveDir: fileURLToPath(new URL('../..', import.meta.url)),
    },
    bundle: true,
    minify: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  assert.equal(result.outputFiles[0]?.text, '');
});

for (const scheme of ['UUIDv7', 'ULID', 'UUIDv4']) {
  test(`${scheme}: one call bundles to at most ${BUNDLE_GOAL}× the peer's (gzip)`, async () => {
    const r = await ratio(scheme);
    assert.ok(
      r.ratio <= BUNDLE_GOAL,
      `${r.idforge.gzipBytes} B against ${r.peer.gzipBytes} B: ${r.ratio.toFixed(2)}×`,
    );
  });
}

test('what one call does not run is not in its bundle', async () => {
  const absent: Record<string, readonly string[]> = {
    // the generators' option checks, describe() (its "bigint"), the other methods, sleep,
    // cryptoRandom's 64 KiB chunks, the Snowflake layout fix of HorizonExceededError; and
    // for uuidv7(), whose clock is the process-wide one, the check of a clock reading
    UUIDv7: ['options', 'bigint', 'fraction', 'Atomics', '65536', 'new layout', 'clock reading'],
    ULID: ['options', 'bigint', 'monotonic', 'Atomics', '65536', 'new layout'],
    UUIDv4: ['options', 'bigint', 'Atomics', '65536'],
  };
  for (const [scheme, texts] of Object.entries(absent)) {
    const { code } = await bundleSize(pair(scheme).idforge);
    for (const text of texts) assert.ok(!code.includes(text), `${scheme} bundle holds "${text}"`);
  }
});

test('what one call may do is in its bundle: the typed error, the monotonic clock, the pool', async () => {
  const present: Record<string, readonly string[]> = {
    // HorizonExceededError with its code, fields and message; IdforgeError's name; the
    // process-wide monotonic clock (performance.now anchored to Date.now); the 4 KiB pool
    UUIDv7: [
      'IDF_EPOCH_HORIZON',
      'this.unixMs=',
      'this.horizonMs=',
      'this.epochMs=',
      "past the layout's horizon",
      'constructor.name',
      'performance.now()',
      'Date.now()',
      'getRandomValues',
      '4096',
    ],
    ULID: ['IDF_EPOCH_HORIZON', 'ULID clock time', 'performance.now()', 'getRandomValues'],
  };
  for (const [scheme, texts] of Object.entries(present)) {
    const { code } = await bundleSize(pair(scheme).idforge);
    for (const text of texts) assert.ok(code.includes(text), `${scheme} bundle lacks "${text}"`);
  }
});
