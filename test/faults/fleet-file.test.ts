// The multi-process lease tests on the file store: one JSON file, no coordination service.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { fleetSuite } from './fleet.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-fleet-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

fleetSuite('file', { url: () => `file:${join(dir, `fleet-${n++}.json`)}`, ttlMs: 2000 });
