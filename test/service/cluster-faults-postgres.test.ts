// test-runner: heavy (three or four server processes under full load; scripts/run-tests.mjs)
// Cluster faults (./cluster-faults.ts: a node SIGKILLed, a node SIGSTOPped past its TTL) with
// PostgreSQL leases and PostgreSQL segments; each pairing is a file, so the pairings run at once.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { clusterFaultSuite, PAUSE_REFUSALS } from './cluster-faults.js';

await clusterFaultSuite('postgres');

test('docs/service.md names every refusal the suite accepts from a paused node', () => {
  const doc = readFileSync(new URL('../../docs/service.md', import.meta.url), 'utf8');
  const start = doc.indexOf('A node paused (GC, SIGSTOP)');
  assert.ok(start >= 0, 'service.md says what a paused node does');
  const paragraph = doc.slice(start, doc.indexOf('\n\n', start));
  for (const code of PAUSE_REFUSALS) assert.ok(paragraph.includes(code), code);
});
