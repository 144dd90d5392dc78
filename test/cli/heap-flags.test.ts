// What `serve` asks of V8 before the commands load (bin/main.ts serveHeapFlags): concurrent
// marking off, unless the process was started asking for it. bench:service's row
// "count=1, V8 concurrent marking on" measures what the setting is for.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serveHeapFlags } from '../../packages/idforge/src/bin/main.js';

test('serve turns concurrent marking off by default', () => {
  assert.equal(serveHeapFlags([]), '--no-concurrent-marking');
  assert.equal(serveHeapFlags(['--max-old-space-size=512']), '--no-concurrent-marking');
  assert.equal(serveHeapFlags(['--no-concurrent-marking']), '--no-concurrent-marking');
});

test('a process started with --concurrent-marking keeps it', () => {
  assert.equal(serveHeapFlags(['--concurrent-marking']), null);
  assert.equal(serveHeapFlags(['--max-old-space-size=512', '--concurrent_marking']), null);
  assert.equal(
    serveHeapFlags(['--concurrent-marking-x']),
    '--no-concurrent-marking',
    'another flag',
  );
});
