// The multi-process lease tests on the file store: one JSON file, no coordination service.
import { join } from 'node:path';
import { suiteTempDir } from '../helpers/temp.js';
import { fleetSuite } from './fleet.js';

const dir = suiteTempDir('idforge-fleet-file-');
let n = 0;

fleetSuite('file', { url: () => `file:${join(dir, `fleet-${n++}.json`)}`, ttlMs: 2000 });
