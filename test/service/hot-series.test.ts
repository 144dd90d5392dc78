// The per-request series kept as plain numbers (hot-series.ts) are exposed exactly as
// prom-client exposes a Counter and a Histogram given the same events, scrape after scrape.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import {
  HotCounter,
  HotHistogram,
  observe,
} from '../../packages/server/src/service/metrics/hot-series.js';

const BOUNDS = [0.001, 0.01, 0.1, 1];

test('HotHistogram: the exposition of a prom-client Histogram of the same observations', async () => {
  const ours = new Registry();
  const theirs = new Registry();
  const hot = new HotHistogram(ours, { name: 'lat', help: 'h', label: 'route', bounds: BOUNDS });
  const ref = new Histogram({
    name: 'lat',
    help: 'h',
    labelNames: ['route'],
    buckets: BOUNDS,
    registers: [theirs],
  });
  const values = [0, 0.0005, 0.001, 0.0011, 0.05, 0.1, 0.5, 1, 2, 7.5];
  for (const [i, v] of values.entries()) {
    const route = i % 3 === 0 ? '/a' : '/b';
    observe(hot.slot(route), hot.bounds, v);
    ref.labels(route).observe(v);
    assert.equal(await ours.metrics(), await theirs.metrics(), `after ${i + 1} observations`);
  }
  const merged = AggregatorRegistry.aggregate([
    await ours.getMetricsAsJSON(),
    await ours.getMetricsAsJSON(),
  ]);
  const doubled = AggregatorRegistry.aggregate([
    await theirs.getMetricsAsJSON(),
    await theirs.getMetricsAsJSON(),
  ]);
  assert.equal(await merged.metrics(), await doubled.metrics(), 'summed across processes alike');
});

test('HotCounter: each scrape moves what was added since, never twice', async () => {
  const r = new Registry();
  const hot: HotCounter<'scheme'> = new HotCounter(
    new Counter({
      name: 'ids_total',
      help: 'h',
      labelNames: ['scheme'],
      registers: [r],
      collect: () => hot.flush(),
    }),
  );
  assert.doesNotMatch(await r.metrics(), /ids_total\{/, 'no series before an event');
  const a = hot.slot('a', { scheme: 'a' });
  a.n += 3;
  assert.match(await r.metrics(), /^ids_total\{scheme="a"\} 3$/m);
  assert.match(await r.metrics(), /^ids_total\{scheme="a"\} 3$/m, 'a second scrape adds nothing');
  a.n += 2;
  hot.slot('b', { scheme: 'b' }).n += 1;
  const text = await r.metrics();
  assert.match(text, /^ids_total\{scheme="a"\} 5$/m);
  assert.match(text, /^ids_total\{scheme="b"\} 1$/m);
});
