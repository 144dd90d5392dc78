// The multi-process lease tests on the embedded SQLite store (one file shared by processes).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetSuite } from './fleet.js';

const dir = mkdtempSync(join(tmpdir(), 'idforge-fleet-sqlite-'));
let n = 0;

fleetSuite('sqlite', { url: () => `sqlite:${join(dir, `fleet-${n++}.db`)}`, ttlMs: 2000 });
