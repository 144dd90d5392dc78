// The multi-process lease tests on the file store: one JSON file, no coordination service.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetSuite } from './fleet.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-fleet-file-'));
let n = 0;

fleetSuite('file', { url: () => `file:${join(dir, `fleet-${n++}.json`)}`, ttlMs: 2000 });
