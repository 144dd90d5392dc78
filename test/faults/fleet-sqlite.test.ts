// The multi-process lease tests on the embedded SQLite store (one file shared by processes),
// with the negative controls (the cheapest real store to run them on).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fleetSuite } from './fleet.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-fleet-sqlite-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

fleetSuite('sqlite', {
  url: () => `sqlite:${join(dir, `fleet-${n++}.db`)}`,
  ttlMs: 2000,
  controls: true,
});
